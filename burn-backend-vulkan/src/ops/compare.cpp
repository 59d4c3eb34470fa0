// Comparisons give bool tensors; an int tensor against a float scalar compares exactly (gpu::compare_elem).
// Defined by the GPU backends' shared op glue (burn/gpu/elementwise_ops.hpp).
#include "burn/gpu/elementwise_ops.hpp"
#include "ops/elementwise.hpp"

namespace burn::vulkan {

BURN_GPU_COMPARE_OPS(VulkanBackend)

}  // namespace burn::vulkan
