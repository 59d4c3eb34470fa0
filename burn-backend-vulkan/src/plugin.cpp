// The vulkan plugin's entry point: its score is the best device's (0 without one), its factory opens
// the device that BURN_VULKAN_DEVICE names, else the best one.
#include <memory>
#include <string>

#include "burn/tensor/plugin.hpp"
#include "vulkan_backend.hpp"

namespace {

std::unique_ptr<burn::Backend> make_vulkan_backend() {
  auto instance = burn::vulkan::Instance::get();
  return std::make_unique<burn::vulkan::VulkanBackend>(burn::vulkan::context_for(instance->choose("")), "vulkan");
}

int32_t vulkan_score() { return burn::vulkan::Instance::get()->best_score(); }

// For `burn plugins` when the score is 0: what Vulkan said, or every device and what it lacks.
std::string vulkan_unavailable() {
  try {
    const auto instance = burn::vulkan::Instance::get();
    if (instance->profiles().empty()) return "no Vulkan device: the loader found no driver that reports one";
    std::string s = "no usable Vulkan device:";
    for (const auto& p : instance->profiles()) s += " " + p.describe() + ";";
    return s;
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

BURN_BACKEND_PLUGIN("vulkan", "0.1.0", make_vulkan_backend, vulkan_score)
BURN_PLUGIN_UNAVAILABLE_REASON(vulkan_unavailable)
