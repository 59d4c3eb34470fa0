// The process's one VkInstance, its physical devices with their profiles, and device selection by index
// or name (`vulkan:1`, `vulkan:llvmpipe`, BURN_VULKAN_DEVICE). BURN_VULKAN_VALIDATION=1 turns on the
// Khronos validation layer; its messages are logged as errors prefixed "Vulkan validation".
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan.h>

#include "runtime/profile.hpp"

namespace burn::vulkan {

class Instance {
 public:
  // The shared instance, created on first use; DeviceError or Unsupported with the reason when Vulkan
  // cannot start (no driver, no device).
  static std::shared_ptr<Instance> get();
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle() const { return instance_; }
  const std::vector<DeviceProfile>& profiles() const { return profiles_; }
  VkPhysicalDevice physical(uint32_t index) const { return physical_.at(index); }
  bool validation() const { return messenger_ != VK_NULL_HANDLE; }
  uint64_t validation_messages() const { return validation_messages_.load(); }

  // The device an argument names: empty = $BURN_VULKAN_DEVICE, else the highest-scored usable device;
  // digits = that index; anything else = the first device whose name contains it (case-insensitive).
  // DeviceError listing every device when nothing matches or the match is unusable.
  const DeviceProfile& choose(std::string_view arg) const;
  // The highest score of any device (0 when none is usable): the plugin's score.
  int32_t best_score() const;

 private:
  Instance();
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void* self);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::vector<VkPhysicalDevice> physical_;
  std::vector<DeviceProfile> profiles_;
  std::atomic<uint64_t> validation_messages_{0};
};

}  // namespace burn::vulkan
