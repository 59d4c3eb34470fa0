// CPU kernels of the conv module ops (convolution, transposed and deformable convolution, im2col/col2im, and their backward).
// Until a kernel is written here, an op runs the default composite from burn-tensor.
#include "cpu_backend.hpp"

namespace burn::cpu {

Prim CpuBackend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) { return Backend::conv(std::move(x), std::move(weight), std::move(bias), options); }

Prims CpuBackend::conv_backward(Prim x, Prim weight, Prim grad_out, const ConvOptions& options, bool bias_grad) { return Backend::conv_backward(std::move(x), std::move(weight), std::move(grad_out), options, bias_grad); }

Prim CpuBackend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) { return Backend::conv_transpose(std::move(x), std::move(weight), std::move(bias), options); }

Prims CpuBackend::conv_transpose_backward(Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options, bool bias_grad) { return Backend::conv_transpose_backward(std::move(x), std::move(weight), std::move(grad_out), options, bias_grad); }

Prim CpuBackend::deform_conv2d(Prim x, Prim offset, Prim weight, Prim mask, Prim bias, const DeformConvOptions& options) { return Backend::deform_conv2d(std::move(x), std::move(offset), std::move(weight), std::move(mask), std::move(bias), options); }

Prim CpuBackend::unfold(Prim x, const UnfoldOptions& options) { return Backend::unfold(std::move(x), options); }

Prim CpuBackend::fold(Prim cols, const Shape& output_size, const UnfoldOptions& options) { return Backend::fold(std::move(cols), output_size, options); }

}  // namespace burn::cpu
