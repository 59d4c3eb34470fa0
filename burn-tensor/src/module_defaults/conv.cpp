// Default composite bodies of the conv module ops (convolution, transposed and deformable convolution, im2col/col2im, and their backward).
// Placeholders until written: each throws Unsupported naming the op.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

Prim Backend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) {
  throw Unsupported("conv", "not implemented yet");
}

Prims Backend::conv_backward(Prim x, Prim weight, Prim grad_out, const ConvOptions& options, bool bias_grad) {
  throw Unsupported("conv_backward", "not implemented yet");
}

Prim Backend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) {
  throw Unsupported("conv_transpose", "not implemented yet");
}

Prims Backend::conv_transpose_backward(Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options, bool bias_grad) {
  throw Unsupported("conv_transpose_backward", "not implemented yet");
}

Prim Backend::deform_conv2d(Prim x, Prim offset, Prim weight, Prim mask, Prim bias, const DeformConvOptions& options) {
  throw Unsupported("deform_conv2d", "not implemented yet");
}

Prim Backend::unfold(Prim x, const UnfoldOptions& options) {
  throw Unsupported("unfold", "not implemented yet");
}

Prim Backend::fold(Prim cols, const Shape& output_size, const UnfoldOptions& options) {
  throw Unsupported("fold", "not implemented yet");
}

}  // namespace burn
