// The vulkan plugin's counters, reached through query_interface("vulkan-stats") on any chain over a
// Vulkan device (decorators forward it): dispatches, submissions, barriers and pipelines since the device's
// context was made. Header-only and free of Vulkan's headers, so tests and benchmarks outside the plugin
// (bench/gpu) can read them.
#pragma once

#include <cstdint>
#include <string_view>

namespace burn::vulkan {

inline constexpr std::string_view kVulkanStatsInterface = "vulkan-stats";

struct VulkanStats {
  uint64_t dispatches = 0, submits = 0, barriers = 0, pipelines = 0, compiled = 0, spirv_from_disk = 0;
};
class VulkanStatsSource {
 public:
  virtual ~VulkanStatsSource() = default;
  virtual VulkanStats stats() const = 0;
};

}  // namespace burn::vulkan
