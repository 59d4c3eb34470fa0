// Float math: each op is its expression (burn/gpu/exprs.hpp, kernels/math.glsl) run by the elementwise
// launcher, defined by the GPU backends' shared op glue (burn/gpu/elementwise_ops.hpp).
#include "burn/gpu/elementwise_ops.hpp"
#include "ops/elementwise.hpp"

namespace burn::vulkan {

BURN_GPU_FLOAT_MATH_OPS(VulkanBackend)

}  // namespace burn::vulkan
