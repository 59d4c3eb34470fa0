// Program builds and the two caches (programs.hpp).
#include "runtime/programs.hpp"

#include <chrono>
#include <filesystem>
#include <vector>

#include "burn/gpu/disk_cache.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/log.hpp"
#include "runtime/context.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/kernel_sources.hpp"

namespace burn::opencl {

namespace {

// No fast-math switches: results as the cpu backend's, nothing contracted or regrouped.
constexpr const char* kBuildOptions = "-cl-std=CL1.2";
// The files' format, in the key: files of another format are not found rather than found damaged.
constexpr const char* kFileFormat = "|sealed-1";

std::string describe(const Defines& defines) {
  std::string s;
  for (const auto& [k, v] : defines) {
    if (k == "OP" || k == "OPS(CASE)") continue;  // long; its source line is in the log when it fails
    s += (s.empty() ? "" : " ") + k + "=" + v;
  }
  return s;
}

std::string build_log(cl_program p, cl_device_id d) {
  size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n > 0) clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::string assemble_source(std::string_view name, const Defines& defines, std::string_view text) {
  const std::string_view kernel = text.empty() ? kernel_source(name) : text;
  if (kernel.empty()) throw Unsupported("opencl", "no OpenCL kernel named '" + std::string(name) + "'");
  std::string src;
  for (const auto& [k, v] : defines) src += "#define " + k + " " + v + "\n";
  for (const char* part : {"prelude", "math", "dialect"}) {
    src += kernel_source(part);
    src += "\n";
  }
  src += kernel;
  return src;
}

Programs::Programs(Context& ctx) : ctx_(ctx), dir_(gpu::cache_dir("BURN_OPENCL_CACHE_DIR", "opencl")) {}

Programs::~Programs() {
  for (auto& [hash, entries] : cache_)
    for (Entry& e : entries) {
      clReleaseKernel(e.kernel);
      clReleaseProgram(e.program);
    }
}

cl_program Programs::build(const std::string& good, std::string_view name, const Defines& defines, const char* op) {
  // BURN_OPENCL_FAULT=compile: a line the compiler rejects, so that the driver's own failure and log come back
  // (and no cached binary of the good source is found).
  const bool injected = fault_injected(Fault::compile);
  const std::string faulty =
      injected ? good + "\n__constant int burn_injected = injected_by_BURN_OPENCL_FAULT;\n" : std::string();
  const std::string& source = injected ? faulty : good;
  const DeviceProfile& p = ctx_.profile();
  cl_device_id dev = p.device;
  const std::string path =
      dir_.empty()
          ? std::string()
          : dir_ + "/" + gpu::hex(gpu::fnv1a(source, gpu::fnv1a(p.cache_key() + "|" + kBuildOptions + kFileFormat))) +
                ".bin";
  cl_int err = CL_SUCCESS;
  if (!path.empty()) {
    const std::vector<char> file = gpu::read_file(path);
    // A truncated or altered file (a crash mid-write on a file system without atomic rename, a disk
    // error) is rebuilt and rewritten, never given to the driver.
    const std::string_view bin = gpu::unseal(file);
    if (!file.empty() && bin.empty())
      log::warn("opencl: the cached binary " + path + " is damaged; building from source");
    if (!bin.empty()) {
      const size_t size = bin.size();
      const auto* bytes = reinterpret_cast<const unsigned char*>(bin.data());
      cl_int status = CL_SUCCESS;
      cl_program prog = clCreateProgramWithBinary(ctx_.cl(), 1, &dev, &size, &bytes, &status, &err);
      if (prog && err == CL_SUCCESS && status == CL_SUCCESS &&
          clBuildProgram(prog, 1, &dev, kBuildOptions, nullptr, nullptr) == CL_SUCCESS) {
        ++ctx_.counters().from_disk;
        return prog;
      }
      if (prog) clReleaseProgram(prog);
      log::warn("opencl: the cached binary " + path + " does not load; building from source");
    }
  }
  const char* text = source.c_str();
  const size_t len = source.size();
  const auto t0 = std::chrono::steady_clock::now();
  cl_program prog = clCreateProgramWithSource(ctx_.cl(), 1, &text, &len, &err);
  cl_check(err, op, "clCreateProgramWithSource");
  err = clBuildProgram(prog, 1, &dev, kBuildOptions, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = build_log(prog, dev);
    clReleaseProgram(prog);
    throw DeviceError(op, "OpenCL kernel '" + std::string(name) + "' [" + describe(defines) + "] does not build on " +
                              p.name + " (" + cl_error_name(err) + ")" + (injected ? injected_note() : "") +
                              "; build log:\n" + log);
  }
  ++ctx_.counters().compiled;
  // BURN_LOG=debug lists every program built from source: which variants a workload compiles, and at what cost.
  if (log::enabled(log::Level::debug)) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    log::debug("opencl: built kernel '" + std::string(name) + "' for " + op + " [" + describe(defines) + "] in " +
               std::to_string(static_cast<int64_t>(ms)) + " ms");
  }
  if (!path.empty()) {
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) == CL_SUCCESS && size > 0) {
      std::vector<unsigned char> bin(size);
      unsigned char* ptr = bin.data();
      if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) == CL_SUCCESS) {
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        const std::vector<char> sealed = gpu::seal(bin.data(), bin.size());
        if (!gpu::write_file_atomically(path, sealed.data(), sealed.size()))
          log::warn("opencl: cannot write the program cache " + path);
      }
    }
  }
  return prog;
}

cl_kernel Programs::get(std::string_view name, const Defines& defines, const char* op, std::string_view text) {
  static const Defines kNone;
  return get(name, kNone, defines, op, text);
}

cl_kernel Programs::get(std::string_view name, const Defines& shared, const Defines& own, const char* op,
                        std::string_view text) {
  // Every launch looks its kernel up: hashing the parts costs far less than assembling the source (some 17 KB
  // of prelude and math) and comparing it, which took a third of a launch's host time on PoCL.
  const std::hash<std::string_view> h;
  size_t key = h(name) ^ (h(text) * 31);
  for (const Defines* d : {&shared, &own})
    for (const auto& [k, v] : *d) key = (key * 0x100000001b3ull) ^ h(k) ^ (h(v) << 1);
  std::vector<Entry>& slot = cache_[key];
  for (const Entry& e : slot)
    if (e.name == name && e.text == text && e.own == own && e.shared == shared) return e.kernel;
  Defines defines = shared;
  defines.insert(defines.end(), own.begin(), own.end());
  const std::string source = assemble_source(name, defines, text);
  cl_program prog = build(source, name, defines, op);
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(prog, "burn_main", &err);
  if (err != CL_SUCCESS) {
    clReleaseProgram(prog);
    cl_check(err, op, "clCreateKernel");
  }
  slot.push_back({std::string(name), std::string(text), shared, own, prog, k});
  return k;
}

}  // namespace burn::opencl
