// Bool ops on bytes 0/1: their expressions run by the elementwise launcher, defined by the GPU backends'
// shared op glue (burn/gpu/elementwise_ops.hpp).
#include "burn/gpu/elementwise_ops.hpp"
#include "ops/elementwise.hpp"

namespace burn::vulkan {

BURN_GPU_BOOLEAN_OPS(VulkanBackend)

}  // namespace burn::vulkan
