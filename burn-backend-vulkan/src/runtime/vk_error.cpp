// Vulkan result codes as burn errors.
#include "runtime/vk_error.hpp"

#include "burn/tensor/error.hpp"

namespace burn::vulkan {

const char* result_name(VkResult r) {
  switch (r) {
#define BURN_VK_CASE(x) \
  case x: return #x;
    BURN_VK_CASE(VK_SUCCESS)
    BURN_VK_CASE(VK_NOT_READY)
    BURN_VK_CASE(VK_TIMEOUT)
    BURN_VK_CASE(VK_INCOMPLETE)
    BURN_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    BURN_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    BURN_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    BURN_VK_CASE(VK_ERROR_DEVICE_LOST)
    BURN_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    BURN_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    BURN_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    BURN_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    BURN_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    BURN_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    BURN_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    BURN_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
    BURN_VK_CASE(VK_ERROR_UNKNOWN)
    BURN_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    BURN_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    BURN_VK_CASE(VK_ERROR_FRAGMENTATION)
    BURN_VK_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    BURN_VK_CASE(VK_PIPELINE_COMPILE_REQUIRED)
#undef BURN_VK_CASE
    default: return "VkResult(unknown)";
  }
}

const char* op_name(const char* op) noexcept {
  if (op && *op) return op;
  const char* cur = current_op();
  return cur && *cur ? cur : "vulkan";
}

void throw_vk(VkResult r, const char* what, size_t bytes, const char* op) {
  const std::string where = op_name(op);
  std::string msg = std::string(what) + " failed: " + result_name(r) + " (" + std::to_string(static_cast<int>(r)) + ")";
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTATION:
      if (bytes) msg += " asking for " + std::to_string(bytes) + " bytes";
      throw OutOfMemory(where, msg);
    case VK_ERROR_DEVICE_LOST:
      throw DeviceError(where, msg + ": the Vulkan device was lost (driver reset or crash); create a new device");
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER: throw Unsupported(where, msg);
    default: throw DeviceError(where, msg);
  }
}

}  // namespace burn::vulkan
