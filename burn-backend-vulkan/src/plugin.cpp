// The vulkan plugin's entry point: its score is the best device's (0 without one), its factory opens
// the device that BURN_VULKAN_DEVICE names, else the best one.
#include <memory>

#include "burn/tensor/plugin.hpp"
#include "vulkan_backend.hpp"

namespace {

std::unique_ptr<burn::Backend> make_vulkan_backend() {
  auto instance = burn::vulkan::Instance::get();
  return std::make_unique<burn::vulkan::VulkanBackend>(burn::vulkan::context_for(instance->choose("")), "vulkan");
}

int32_t vulkan_score() { return burn::vulkan::Instance::get()->best_score(); }

}  // namespace

BURN_BACKEND_PLUGIN("vulkan", "0.1.0", make_vulkan_backend, vulkan_score)
