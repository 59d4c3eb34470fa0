// Indexing: mask_where and mask_fill are elementwise expressions (burn/gpu/elementwise_ops.hpp); gather,
// scatter_add and argwhere have no kernels yet (pending.cpp).
#include "burn/gpu/elementwise_ops.hpp"
#include "ops/elementwise.hpp"

namespace burn::opencl {

BURN_GPU_MASK_OPS(OpenClBackend)

}  // namespace burn::opencl
