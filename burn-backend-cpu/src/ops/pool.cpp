// CPU kernels of the pool module ops (max, average and adaptive pooling, and their backward).
// Until a kernel is written here, an op runs the default composite from burn-tensor.
#include "cpu_backend.hpp"

namespace burn::cpu {

Prim CpuBackend::max_pool(Prim x, const PoolOptions& options) { return Backend::max_pool(std::move(x), options); }

PrimPair CpuBackend::max_pool_with_indices(Prim x, const PoolOptions& options) { return Backend::max_pool_with_indices(std::move(x), options); }

Prim CpuBackend::max_pool_backward(Prim x, Prim grad_out, Prim indices, const PoolOptions& options) { return Backend::max_pool_backward(std::move(x), std::move(grad_out), std::move(indices), options); }

Prim CpuBackend::avg_pool(Prim x, const PoolOptions& options) { return Backend::avg_pool(std::move(x), options); }

Prim CpuBackend::avg_pool_backward(Prim x, Prim grad_out, const PoolOptions& options) { return Backend::avg_pool_backward(std::move(x), std::move(grad_out), options); }

Prim CpuBackend::adaptive_avg_pool(Prim x, const Shape& output_size) { return Backend::adaptive_avg_pool(std::move(x), output_size); }

Prim CpuBackend::adaptive_avg_pool_backward(Prim x, Prim grad_out) { return Backend::adaptive_avg_pool_backward(std::move(x), std::move(grad_out)); }

PrimPair CpuBackend::adaptive_max_pool(Prim x, const Shape& output_size) { return Backend::adaptive_max_pool(std::move(x), output_size); }

Prim CpuBackend::adaptive_max_pool_backward(Prim x, Prim grad_out, Prim indices) { return Backend::adaptive_max_pool_backward(std::move(x), std::move(grad_out), std::move(indices)); }

}  // namespace burn::cpu
