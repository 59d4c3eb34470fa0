// Default composite bodies of the norm module ops (layer, group, batch and RMS normalisation, and their backward).
// Placeholders until written: each throws Unsupported naming the op.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

Prim Backend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) {
  throw Unsupported("layer_norm", "not implemented yet");
}

Prims Backend::layer_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  throw Unsupported("layer_norm_backward", "not implemented yet");
}

Prim Backend::group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) {
  throw Unsupported("group_norm", "not implemented yet");
}

Prims Backend::group_norm_backward(Prim x, Prim weight, Prim grad_out, int64_t num_groups, double eps) {
  throw Unsupported("group_norm_backward", "not implemented yet");
}

Prims Backend::batch_norm(Prim x, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training, double momentum, double eps) {
  throw Unsupported("batch_norm", "not implemented yet");
}

Prims Backend::batch_norm_backward(Prim x, Prim weight, Prim running_mean, Prim running_var, Prim grad_out, bool training, double eps) {
  throw Unsupported("batch_norm_backward", "not implemented yet");
}

Prim Backend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) {
  throw Unsupported("rms_norm", "not implemented yet");
}

Prims Backend::rms_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  throw Unsupported("rms_norm_backward", "not implemented yet");
}

}  // namespace burn
