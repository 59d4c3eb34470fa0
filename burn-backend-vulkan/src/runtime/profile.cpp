// Profiling a physical device: properties, features and memory through the Vulkan 1.2 query chains.
#include "runtime/profile.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace burn::vulkan {

namespace {

bool has_extension(const std::vector<VkExtensionProperties>& exts, const char* name) {
  return std::any_of(exts.begin(), exts.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// VK_NV_cooperative_matrix: the feature bit and an f16 shape the GEMM can use. A device with only the KHR
// extension says so in `disabled` (its GLSL needs glslang >= 13; Debian 12 has 12).
void read_cooperative_matrix(VkInstance instance, VkPhysicalDevice physical,
                             const std::vector<VkExtensionProperties>& exts, DeviceProfile& p) {
  if (!has_extension(exts, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    if (has_extension(exts, "VK_KHR_cooperative_matrix"))
      p.disabled.push_back(
          "cooperative_matrix: the device has VK_KHR_cooperative_matrix only, and the plugin's glslang compiles "
          "GL_NV_cooperative_matrix only (KHR needs glslang >= 13)");
    return;
  }
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &cm};
  vkGetPhysicalDeviceFeatures2(physical, &f2);
  auto get = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (!cm.cooperativeMatrix || !get) return;
  uint32_t n = 0;
  if (get(physical, &n, nullptr) != VK_SUCCESS) return;
  std::vector<VkCooperativeMatrixPropertiesNV> props(n, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  if (get(physical, &n, props.data()) != VK_SUCCESS) return;
  props.resize(n);
  p.limits.coopmat_f16 = choose_coopmat_f16(props);
  p.features.cooperative_matrix = p.limits.coopmat_f16[0] != 0;
}

}  // namespace

const char* DeviceProfile::type_name() const {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

std::string DeviceProfile::api_version_string() const {
  return std::to_string(VK_API_VERSION_MAJOR(api_version)) + "." + std::to_string(VK_API_VERSION_MINOR(api_version)) +
         "." + std::to_string(VK_API_VERSION_PATCH(api_version));
}

std::string DeviceProfile::describe() const {
  std::ostringstream s;
  s << "vulkan:" << index << "  " << name << "  (" << type_name() << ", " << gib(device_local_bytes)
    << (unified_memory ? " shared with the host" : "") << ", Vulkan " << api_version_string() << ", "
    << (driver_info.empty() ? driver_name : driver_name + " " + driver_info) << ")";
  if (features.cooperative_matrix)
    s << "  [cooperative matrix f16 " << limits.coopmat_f16[0] << "x" << limits.coopmat_f16[1] << "x"
      << limits.coopmat_f16[2] << "]";
  for (const auto& d : disabled) s << "  [off: " << d << "]";
  if (!usable()) {
    s << "  unusable:";
    for (const auto& u : unusable) s << " " << u << ";";
  }
  return s.str();
}

std::array<uint32_t, 3> choose_coopmat_f16(const std::vector<VkCooperativeMatrixPropertiesNV>& props) {
  std::array<uint32_t, 3> found{};
  for (const auto& c : props) {
    if (c.AType != VK_COMPONENT_TYPE_FLOAT16_NV || c.BType != VK_COMPONENT_TYPE_FLOAT16_NV ||
        c.CType != VK_COMPONENT_TYPE_FLOAT32_NV || c.DType != VK_COMPONENT_TYPE_FLOAT32_NV ||
        c.scope != VK_SCOPE_SUBGROUP_NV)
      continue;
    if (c.MSize == 16 && c.NSize == 16 && c.KSize == 16) return {16, 16, 16};
    if (found[0] == 0) found = {c.MSize, c.NSize, c.KSize};
  }
  return found;
}

DeviceProfile profile_device(VkInstance instance, VkPhysicalDevice physical, uint32_t index) {
  DeviceProfile p;
  p.index = index;

  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(physical, &base);
  p.name = base.deviceName;
  p.vendor_id = base.vendorID;
  p.device_id = base.deviceID;
  p.type = base.deviceType;
  p.api_version = base.apiVersion;
  p.driver_version = base.driverVersion;
  std::copy(std::begin(base.pipelineCacheUUID), std::end(base.pipelineCacheUUID), p.pipeline_cache_uuid.begin());
  const VkPhysicalDeviceLimits& l = base.limits;
  p.limits.max_storage_buffer_range = l.maxStorageBufferRange;
  p.limits.max_push_constants_size = l.maxPushConstantsSize;
  p.limits.max_workgroup_invocations = l.maxComputeWorkGroupInvocations;
  p.limits.max_shared_memory = l.maxComputeSharedMemorySize;
  p.limits.non_coherent_atom_size = l.nonCoherentAtomSize;
  for (int i = 0; i < 3; ++i) {
    p.limits.max_workgroup_count[i] = l.maxComputeWorkGroupCount[i];
    p.limits.max_workgroup_size[i] = l.maxComputeWorkGroupSize[i];
  }

  uint32_t n_ext = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n_ext, nullptr);
  std::vector<VkExtensionProperties> exts(n_ext);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n_ext, exts.data());

  if (VK_API_VERSION_MAJOR(p.api_version) == 1 && VK_API_VERSION_MINOR(p.api_version) < 2) {
    p.unusable.push_back("needs Vulkan 1.2, the device has " + p.api_version_string());
  } else {
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &driver};
    VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &subgroup};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3};
    vkGetPhysicalDeviceProperties2(physical, &props2);
    p.driver_id = driver.driverID;
    p.driver_name = driver.driverName;
    p.driver_info = driver.driverInfo;
    p.limits.max_memory_allocation_size = m3.maxMemoryAllocationSize;
    p.limits.max_buffer_size = m3.maxMemoryAllocationSize;  // maintenance4's maxBufferSize is never smaller
    p.limits.subgroup_size = subgroup.subgroupSize;
    const bool compute_subgroups = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
    p.features.subgroup_arithmetic =
        compute_subgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0;
    p.features.subgroup_shuffle =
        compute_subgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0;

    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
    vkGetPhysicalDeviceFeatures2(physical, &f2);
    p.features.float64 = f2.features.shaderFloat64;
    p.features.int64 = f2.features.shaderInt64;
    p.features.int16 = f2.features.shaderInt16;
    p.features.float16 = f12.shaderFloat16 && f11.storageBuffer16BitAccess;
    p.features.storage16 = f2.features.shaderInt16 && f11.storageBuffer16BitAccess;
    p.features.int8 = f12.shaderInt8 && f12.storageBuffer8BitAccess;
    p.features.buffer_device_address = f12.bufferDeviceAddress;
    p.features.timeline_semaphore = f12.timelineSemaphore;
    read_cooperative_matrix(instance, physical, exts, p);
  }

  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(physical, &mem);
  for (uint32_t h = 0; h < mem.memoryHeapCount; ++h) {
    if (!(mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
    if (mem.memoryHeaps[h].size <= p.device_local_bytes) continue;
    p.device_local_bytes = mem.memoryHeaps[h].size;
    p.unified_memory = false;
    for (uint32_t t = 0; t < mem.memoryTypeCount; ++t) {
      const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
      if (mem.memoryTypes[t].heapIndex == h && (mem.memoryTypes[t].propertyFlags & want) == want)
        p.unified_memory = true;
    }
  }

  uint32_t n_fam = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &n_fam, nullptr);
  std::vector<VkQueueFamilyProperties> fams(n_fam);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &n_fam, fams.data());
  // A compute-only family first (it runs beside graphics work on GPUs that have one), else any with compute.
  for (uint32_t pass = 0; pass < 2 && p.compute_queue_family == UINT32_MAX; ++pass) {
    for (uint32_t f = 0; f < n_fam; ++f) {
      const bool compute = fams[f].queueFlags & VK_QUEUE_COMPUTE_BIT;
      const bool graphics = fams[f].queueFlags & VK_QUEUE_GRAPHICS_BIT;
      if (compute && (pass == 1 || !graphics)) {
        p.compute_queue_family = f;
        break;
      }
    }
  }

  apply_quirks(p);
  if (const char* env = std::getenv("BURN_VULKAN_DISABLE"); env && *env) {
    const std::string unknown = apply_disable_list(p, env, "BURN_VULKAN_DISABLE");
    if (!unknown.empty()) p.disabled.push_back("BURN_VULKAN_DISABLE: unknown feature(s) " + unknown);
  }

  if (p.compute_queue_family == UINT32_MAX) p.unusable.push_back("no compute queue");
  if (p.unusable.empty()) {
    if (!p.features.buffer_device_address) p.unusable.push_back("no bufferDeviceAddress");
    if (!p.features.int64) p.unusable.push_back("no shaderInt64");
    if (!p.features.int8) p.unusable.push_back("no shaderInt8 with 8-bit storage buffers (bool tensors)");
    if (!p.features.timeline_semaphore) p.unusable.push_back("no timelineSemaphore");
    if (p.limits.max_push_constants_size < 128) p.unusable.push_back("maxPushConstantsSize below 128");
  }
  return p;
}

int32_t device_score(const DeviceProfile& p) {
  if (!p.usable()) return 0;
  switch (p.type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 100;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 60;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 40;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 5;
    default: return 20;
  }
}

}  // namespace burn::vulkan
