// Bitwise ops on i64, i32, i8 and u8 tensors with the cpu backend's shift rules; float and bool tensors
// are a DTypeError. Defined by the GPU backends' shared op glue (burn/gpu/elementwise_ops.hpp).
#include "burn/gpu/elementwise_ops.hpp"
#include "ops/elementwise.hpp"

namespace burn::vulkan {

BURN_GPU_BITWISE_OPS(VulkanBackend)

}  // namespace burn::vulkan
