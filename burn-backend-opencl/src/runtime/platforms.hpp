// Every OpenCL device of every platform the ICD loader finds, profiled once per process: vendor, type,
// driver, limits and the extensions the kernels care about (cl_khr_fp64, cl_khr_fp16). A device is chosen
// by index or by part of its name, or by score; never "the first platform".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cl.hpp"

namespace burn::opencl {

struct DeviceProfile {
  uint32_t index = 0;  // across all platforms, in the loader's order: `opencl:<index>`
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_name, platform_version;
  std::string name, vendor, version, driver_version, c_version;
  cl_device_type type = 0;
  uint32_t compute_units = 0;
  uint64_t global_mem = 0, max_alloc = 0, local_mem = 0;
  size_t max_work_group = 0;
  uint32_t base_align_bits = 0;
  std::string extensions;
  bool fp64 = false, fp16 = false;
  bool unified_memory = false;  // CL_DEVICE_HOST_UNIFIED_MEMORY: an integrated GPU shares the host's memory
  std::string unusable;         // why burn cannot run on it (empty: usable)

  bool is_gpu() const { return (type & CL_DEVICE_TYPE_GPU) != 0; }
  bool is_cpu() const { return (type & CL_DEVICE_TYPE_CPU) != 0; }
  const char* type_name() const;
  bool has_extension(std::string_view ext) const;
  // As the vulkan plugin scores: 0 when unusable; 100 for a GPU with its own memory, 60 for one sharing the
  // host's, 40 for accelerators, 20 for the rest, 5 for CPU-type devices (PoCL).
  int32_t score() const;
  // "opencl:0 pthread-haswell-AMD EPYC (CPU, Portable Computing Language, OpenCL 3.0 PoCL, driver 3.1, 12.7 GiB,
  // fp64)".
  std::string describe() const;
  // The disk-cache key part naming the device and its driver.
  std::string cache_key() const;
};

class Platforms {
 public:
  // The process's profiles, enumerated once (the loader's answer does not change while we run).
  static std::shared_ptr<const Platforms> get();

  const std::vector<DeviceProfile>& profiles() const { return profiles_; }
  // Why no device was found (no ICD, the loader's error), when profiles() is empty.
  const std::string& error() const { return error_; }
  int32_t best_score() const;
  // The device `arg` names: an index ("1"), part of a name, vendor or platform ("pocl", case-insensitive),
  // or "" for BURN_OPENCL_DEVICE when set, else the best score (the lowest index among equals).
  // DeviceError listing every device when none matches or the match is unusable.
  const DeviceProfile& choose(std::string_view arg) const;

 private:
  Platforms();
  std::vector<DeviceProfile> profiles_;
  std::string error_;
};

}  // namespace burn::opencl
