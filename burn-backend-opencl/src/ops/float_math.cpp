// The float_math ops: each is its expression (burn/gpu/exprs.hpp) run by the elementwise launcher, defined by
// the GPU backends' shared op glue (burn/gpu/elementwise_ops.hpp).
#include "burn/gpu/elementwise_ops.hpp"
#include "ops/elementwise.hpp"

namespace burn::opencl {

BURN_GPU_FLOAT_MATH_OPS(OpenClBackend)

}  // namespace burn::opencl
