// What the plugin knows about one Vulkan physical device: identity, driver, limits, features and memory,
// read once at load, after the quirk table and BURN_VULKAN_DISABLE switched off what must not be used.
// Kernel choice and the plugin's score are decided from this, never from the device name.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

namespace burn::vulkan {

// The features kernels are specialised on, each switchable off by name (BURN_VULKAN_DISABLE, quirks).
struct DeviceFeatures {
  bool float64 = false;                // shaderFloat64: f64 tensors
  bool float16 = false;                // shaderFloat16 + storageBuffer16BitAccess: f16 tensors
  bool int64 = false;                  // shaderInt64: i64 tensors and 64-bit addressing (required)
  bool int8 = false;                   // shaderInt8 + storageBuffer8BitAccess: bool tensors (required)
  bool int16 = false;                  // shaderInt16
  bool storage16 = false;              // shaderInt16 + storageBuffer16BitAccess: bf16 tensors, stored as 16 bits
  bool buffer_device_address = false;  // tensors are addressed by device address (required)
  bool timeline_semaphore = false;     // submission serials (required)
  bool subgroup_arithmetic = false;    // subgroupAdd/Max in compute shaders (reductions)
  bool subgroup_shuffle = false;
  // VK_NV_cooperative_matrix with an f16 x f16 + f32 subgroup shape (DeviceLimits::coopmat_f16): the f16
  // GEMM on cooperative matrices. VK_KHR_cooperative_matrix needs glslang >= 13 (docs/decisions.md).
  bool cooperative_matrix = false;
  bool shared_memory_gemm = true;  // the shared-memory tiled GEMM, else the register-blocked one
};

struct DeviceLimits {
  uint64_t max_storage_buffer_range = 0;
  uint64_t max_memory_allocation_size = 0;
  uint64_t max_buffer_size = 0;
  uint32_t max_push_constants_size = 0;
  std::array<uint32_t, 3> max_workgroup_count{};
  std::array<uint32_t, 3> max_workgroup_size{};
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_shared_memory = 0;
  uint32_t subgroup_size = 0;
  uint64_t non_coherent_atom_size = 0;
  // Iterations one loop of an invocation may run before the driver stops it (0: no limit). lavapipe
  // ends any shader loop after 65535 iterations, silently; launchers split longer walks into dispatches.
  uint32_t max_loop = 0;
  // The cooperative-matrix shape M x N x K the f16 GEMM uses (A f16 M x K, B f16 K x N, sums f32, subgroup
  // scope), from vkGetPhysicalDeviceCooperativeMatrixPropertiesNV; zeros when the device lists none.
  std::array<uint32_t, 3> coopmat_f16{};
};

struct DeviceProfile {
  uint32_t index = 0;  // position in vkEnumeratePhysicalDevices: `vulkan:<index>`
  std::string name;
  uint32_t vendor_id = 0, device_id = 0;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  VkDriverId driver_id = static_cast<VkDriverId>(0);
  std::string driver_name, driver_info;
  uint32_t api_version = 0, driver_version = 0;
  std::array<uint8_t, VK_UUID_SIZE> pipeline_cache_uuid{};
  DeviceLimits limits;
  DeviceFeatures features;
  uint64_t device_local_bytes = 0;  // the largest DEVICE_LOCAL heap
  bool unified_memory = false;      // a memory type both DEVICE_LOCAL and HOST_VISIBLE covers that heap
  uint32_t compute_queue_family = UINT32_MAX;
  // What was switched off and why ("float16: BURN_VULKAN_DISABLE"), and why the device cannot be used.
  std::vector<std::string> disabled;
  std::vector<std::string> unusable;

  bool usable() const { return unusable.empty(); }
  bool cpu_type() const { return type == VK_PHYSICAL_DEVICE_TYPE_CPU; }
  // "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  const char* type_name() const;
  // "1.3.230"
  std::string api_version_string() const;
  // One line for `burn devices`: "vulkan:0  llvmpipe (LLVM 15.0.6, 256 bits)  CPU  2.0 GiB  Mesa 22.3.6 ...".
  std::string describe() const;
};

// Reads everything, applies the quirk table and BURN_VULKAN_DISABLE (a comma list of feature names).
// `instance` resolves the extension queries (cooperative-matrix properties).
DeviceProfile profile_device(VkInstance instance, VkPhysicalDevice physical, uint32_t index);

// The cooperative-matrix shape for the f16 GEMM among a device's properties: f16 A and B, f32 C and D,
// subgroup scope; 16 x 16 x 16 when listed, else the first such; zeros when none.
std::array<uint32_t, 3> choose_coopmat_f16(const std::vector<VkCooperativeMatrixPropertiesNV>& props);

// 0: cannot run here; low for CPU-type devices; high for discrete GPUs.
int32_t device_score(const DeviceProfile& p);

// The quirk table: switches off, by vendor and driver, features known to be broken or slow there.
void apply_quirks(DeviceProfile& p);
// Switches off the features named in `list` ("float16,cooperative_matrix"); unknown names are listed
// in the returned string (empty when all were known).
std::string apply_disable_list(DeviceProfile& p, const std::string& list, const char* source);
// The names apply_disable_list accepts.
std::vector<std::string> feature_names();

}  // namespace burn::vulkan
