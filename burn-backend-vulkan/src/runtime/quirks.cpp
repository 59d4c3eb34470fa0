// The quirk table and BURN_VULKAN_DISABLE: the one place that switches device features off.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/profile.hpp"

namespace burn::vulkan {

namespace {

struct Feature {
  const char* name;
  bool DeviceFeatures::*flag;
};
// The features that may be switched off; the ones the plugin requires (int64, int8, device addresses,
// timeline semaphores) are not listed: without them the device is unusable, not degraded.
constexpr Feature kFeatures[] = {
    {"float64", &DeviceFeatures::float64},
    {"float16", &DeviceFeatures::float16},
    {"subgroup_arithmetic", &DeviceFeatures::subgroup_arithmetic},
    {"subgroup_shuffle", &DeviceFeatures::subgroup_shuffle},
    {"cooperative_matrix", &DeviceFeatures::cooperative_matrix},
    {"shared_memory_gemm", &DeviceFeatures::shared_memory_gemm},
};

// A row matches a device by driver (0: any) and vendor (0: any), and a driver version below `below`
// (0: every version).
struct Quirk {
  VkDriverId driver;
  uint32_t vendor;
  uint32_t below;
  const char* feature;
  const char* why;
};
constexpr Quirk kQuirks[] = {
    // lavapipe runs a workgroup as one CPU thread: shared-memory tiles are plain memory there, and the
    // register-blocked GEMM measured faster (../shared/debian-notes.md; docs/benchmarks-journal.md, Vulkan).
    {VK_DRIVER_ID_MESA_LLVMPIPE, 0, 0, "shared_memory_gemm", "slower than register blocking on lavapipe"},
};

bool switch_off(DeviceProfile& p, std::string_view name, const std::string& why) {
  for (const Feature& f : kFeatures) {
    if (name != f.name) continue;
    if (p.features.*f.flag) {
      p.features.*f.flag = false;
      p.disabled.push_back(std::string(f.name) + ": " + why);
    }
    return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> feature_names() {
  std::vector<std::string> names;
  for (const Feature& f : kFeatures) names.emplace_back(f.name);
  return names;
}

void apply_quirks(DeviceProfile& p) {
  // llvmpipe's shader compiler caps every loop at 65535 iterations (a guard against hung shaders) and
  // carries on after it without a word: a limit, not a feature, so it is set here rather than switched off.
  if (p.driver_id == VK_DRIVER_ID_MESA_LLVMPIPE) {
    p.limits.max_loop = 65535;
    p.disabled.push_back("loops: at most 65535 iterations per loop (llvmpipe)");
  }
  for (const Quirk& q : kQuirks) {
    if (q.driver != 0 && q.driver != p.driver_id) continue;
    if (q.vendor != 0 && q.vendor != p.vendor_id) continue;
    if (q.below != 0 && p.driver_version >= q.below) continue;
    switch_off(p, q.feature, std::string("quirk table: ") + q.why);
  }
}

std::string apply_disable_list(DeviceProfile& p, const std::string& list, const char* source) {
  std::string unknown;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string name = list.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (!name.empty() && !switch_off(p, name, source)) unknown += (unknown.empty() ? "" : ", ") + name;
    start = end + 1;
  }
  return unknown;
}

}  // namespace burn::vulkan
