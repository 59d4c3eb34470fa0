// CPU kernels of the norm module ops (layer, group, batch and RMS normalisation, and their backward).
// Until a kernel is written here, an op runs the default composite from burn-tensor.
#include "cpu_backend.hpp"

namespace burn::cpu {

Prim CpuBackend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) { return Backend::layer_norm(std::move(x), std::move(weight), std::move(bias), normalized_dims, eps); }

Prims CpuBackend::layer_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) { return Backend::layer_norm_backward(std::move(x), std::move(weight), std::move(grad_out), normalized_dims, eps); }

Prim CpuBackend::group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) { return Backend::group_norm(std::move(x), std::move(weight), std::move(bias), num_groups, eps); }

Prims CpuBackend::group_norm_backward(Prim x, Prim weight, Prim grad_out, int64_t num_groups, double eps) { return Backend::group_norm_backward(std::move(x), std::move(weight), std::move(grad_out), num_groups, eps); }

Prims CpuBackend::batch_norm(Prim x, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training, double momentum, double eps) { return Backend::batch_norm(std::move(x), std::move(weight), std::move(bias), std::move(running_mean), std::move(running_var), training, momentum, eps); }

Prims CpuBackend::batch_norm_backward(Prim x, Prim weight, Prim running_mean, Prim running_var, Prim grad_out, bool training, double eps) { return Backend::batch_norm_backward(std::move(x), std::move(weight), std::move(running_mean), std::move(running_var), std::move(grad_out), training, eps); }

Prim CpuBackend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) { return Backend::rms_norm(std::move(x), std::move(weight), normalized_dims, eps); }

Prims CpuBackend::rms_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) { return Backend::rms_norm_backward(std::move(x), std::move(weight), std::move(grad_out), normalized_dims, eps); }

}  // namespace burn::cpu
