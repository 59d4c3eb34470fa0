// Turning a failed Vulkan call into a burn::Error that names the op, the call and the result.
#pragma once

#include <cstddef>
#include <string>

#include <vulkan/vulkan.h>

namespace burn::vulkan {

// "VK_ERROR_DEVICE_LOST", or the number for a code this header does not know.
const char* result_name(VkResult r);

// Throws for r < 0: OutOfMemory for the out-of-memory codes (naming `bytes` when known), DeviceError for
// a lost device, Unsupported for missing features or extensions, else DeviceError. `op` is the tensor op
// (current_op() when null), `what` the Vulkan call.
[[noreturn]] void throw_vk(VkResult r, const char* what, size_t bytes = 0, const char* op = nullptr);

inline void check_vk(VkResult r, const char* what, size_t bytes = 0) {
  if (r < 0) throw_vk(r, what, bytes);
}

// The op name errors carry: the tensor api's current op, else "vulkan".
const char* op_name(const char* op = nullptr) noexcept;

}  // namespace burn::vulkan
