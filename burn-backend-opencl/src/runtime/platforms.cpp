// Platform and device enumeration and profiles (platforms.hpp).
#include "runtime/platforms.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "burn/tensor/error.hpp"

namespace burn::opencl {

namespace {

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  if (clGetDeviceInfo(d, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

DeviceProfile profile_of(cl_platform_id p, cl_device_id d, uint32_t index) {
  DeviceProfile f;
  f.index = index;
  f.platform = p;
  f.device = d;
  f.platform_name = platform_string(p, CL_PLATFORM_NAME);
  f.platform_version = platform_string(p, CL_PLATFORM_VERSION);
  f.name = device_string(d, CL_DEVICE_NAME);
  f.vendor = device_string(d, CL_DEVICE_VENDOR);
  f.version = device_string(d, CL_DEVICE_VERSION);
  f.driver_version = device_string(d, CL_DRIVER_VERSION);
  f.c_version = device_string(d, CL_DEVICE_OPENCL_C_VERSION);
  f.type = device_value<cl_device_type>(d, CL_DEVICE_TYPE);
  f.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
  f.global_mem = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  f.max_alloc = device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  f.local_mem = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
  f.max_work_group = device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  f.base_align_bits = device_value<cl_uint>(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
  f.extensions = device_string(d, CL_DEVICE_EXTENSIONS);
  f.fp64 = f.has_extension("cl_khr_fp64");
  f.fp16 = f.has_extension("cl_khr_fp16");
  f.unified_memory = device_value<cl_bool>(d, CL_DEVICE_HOST_UNIFIED_MEMORY) != 0;
  // What the kernels need: a compiler, 64-bit integers in kernels (every full profile), 32-bit global
  // atomics for the fault block, byte stores for bool and int8 tensors.
  if (!device_value<cl_bool>(d, CL_DEVICE_AVAILABLE))
    f.unusable = "not available";
  else if (!device_value<cl_bool>(d, CL_DEVICE_COMPILER_AVAILABLE))
    f.unusable = "no OpenCL C compiler";
  else if (device_string(d, CL_DEVICE_PROFILE) != "FULL_PROFILE")
    f.unusable = "embedded profile (no 64-bit integers)";
  else if (f.version.rfind("OpenCL 1.0", 0) == 0 || f.version.rfind("OpenCL 1.1", 0) == 0)
    f.unusable = "OpenCL 1.2 or later needed (" + f.version + ")";
  return f;
}

}  // namespace

const char* DeviceProfile::type_name() const {
  if (is_gpu()) return "GPU";
  if (is_cpu()) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

bool DeviceProfile::has_extension(std::string_view ext) const {
  size_t at = 0;
  while ((at = extensions.find(ext, at)) != std::string::npos) {
    const size_t end = at + ext.size();
    if ((at == 0 || extensions[at - 1] == ' ') && (end == extensions.size() || extensions[end] == ' ')) return true;
    at = end;
  }
  return false;
}

int32_t DeviceProfile::score() const {
  if (!unusable.empty()) return 0;
  if (is_gpu()) return unified_memory ? 60 : 100;
  if (is_cpu()) return 5;
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return 40;
  return 20;
}

std::string DeviceProfile::describe() const {
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f GiB", static_cast<double>(global_mem) / (1024.0 * 1024.0 * 1024.0));
  std::string s = "opencl:" + std::to_string(index) + " " + name + " (" + type_name() + ", " + platform_name + ", " +
                  version + ", driver " + driver_version + ", " + mem + ", " + std::to_string(compute_units) +
                  " compute units";
  if (fp64) s += ", fp64";
  if (fp16) s += ", fp16";
  s += ")";
  if (!unusable.empty()) s += " unusable: " + unusable;
  return s;
}

std::string DeviceProfile::cache_key() const {
  return platform_name + "|" + platform_version + "|" + vendor + "|" + name + "|" + version + "|" + driver_version;
}

std::shared_ptr<const Platforms> Platforms::get() {
  static std::once_flag once;
  static std::shared_ptr<const Platforms> instance;
  std::call_once(once, [] { instance.reset(new Platforms()); });
  return instance;
}

Platforms::Platforms() {
  cl_uint n = 0;
  const cl_int r = clGetPlatformIDs(0, nullptr, &n);
  if (r == CL_PLATFORM_NOT_FOUND_KHR || (r == CL_SUCCESS && n == 0)) {
    error_ =
        "the OpenCL loader found no platform (install a driver: pocl-opencl-icd for the CPU; OCL_ICD_VENDORS may "
        "point elsewhere)";
    return;
  }
  if (r != CL_SUCCESS) {
    error_ = "clGetPlatformIDs failed: " + cl_error_name(r);
    return;
  }
  std::vector<cl_platform_id> platforms(n);
  clGetPlatformIDs(n, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devices(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr);
    for (cl_device_id d : devices) profiles_.push_back(profile_of(p, d, static_cast<uint32_t>(profiles_.size())));
  }
  if (profiles_.empty()) error_ = "the OpenCL platforms report no device";
}

int32_t Platforms::best_score() const {
  int32_t best = 0;
  for (const auto& p : profiles_) best = std::max(best, p.score());
  return best;
}

const DeviceProfile& Platforms::choose(std::string_view arg) const {
  std::string want(arg);
  std::string from = "opencl:";
  if (want.empty()) {
    if (const char* e = std::getenv("BURN_OPENCL_DEVICE"); e && *e) {
      want = e;
      from = "BURN_OPENCL_DEVICE=";
    }
  }
  auto list = [&] {
    std::string s;
    for (const auto& p : profiles_) s += "\n  " + p.describe();
    if (profiles_.empty()) s = " none (" + error_ + ")";
    return s;
  };
  const DeviceProfile* found = nullptr;
  if (want.empty()) {
    for (const auto& p : profiles_)
      if (p.score() > 0 && (!found || p.score() > found->score())) found = &p;
    if (!found) throw DeviceError("opencl", "no usable OpenCL device; devices:" + list());
    return *found;
  }
  const bool digits =
      std::all_of(want.begin(), want.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (digits) {
    const unsigned long i = std::strtoul(want.c_str(), nullptr, 10);
    if (want.size() > 9 || i >= profiles_.size())
      throw DeviceError("opencl", from + want + ": no OpenCL device with that index (" +
                                      std::to_string(profiles_.size()) + " found); devices:" + list());
    found = &profiles_[i];
  } else {
    const std::string w = lower(want);
    for (const auto& p : profiles_) {
      if (lower(p.name).find(w) == std::string::npos && lower(p.vendor).find(w) == std::string::npos &&
          lower(p.platform_name).find(w) == std::string::npos)
        continue;
      if (!found || (found->score() == 0 && p.score() > 0)) found = &p;
    }
    if (!found)
      throw DeviceError("opencl", from + want + ": no OpenCL device name, vendor or platform contains '" + want +
                                      "'; devices:" + list());
  }
  if (found->score() == 0) throw DeviceError("opencl", from + want + ": " + found->describe());
  return *found;
}

}  // namespace burn::opencl
