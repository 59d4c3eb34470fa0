// CPU kernels of the resample module ops (interpolation and pixel (un)shuffle).
// Until a kernel is written here, an op runs the default composite from burn-tensor.
#include "cpu_backend.hpp"

namespace burn::cpu {

Prim CpuBackend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) { return Backend::interpolate(std::move(x), output_size, options); }

Prim CpuBackend::interpolate_backward(Prim x, Prim grad_out, const Shape& output_size, const InterpolateOptions& options) { return Backend::interpolate_backward(std::move(x), std::move(grad_out), output_size, options); }

Prim CpuBackend::pixel_shuffle(Prim x, int64_t factor) { return Backend::pixel_shuffle(std::move(x), factor); }

Prim CpuBackend::pixel_unshuffle(Prim x, int64_t factor) { return Backend::pixel_unshuffle(std::move(x), factor); }

}  // namespace burn::cpu
