// OpenCL C programs built at run time from the dialect (the defines, kernels/prelude.clh, kernels/math.clh,
// then the kernel), cached in memory by kernel, text and defines (a launch's lookup hashes those, never the
// assembled source) and on disk as the driver's binaries, keyed by device, driver and source hash and written
// atomically, so a second process does not pay the build.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "burn/gpu/layout.hpp"
#include "runtime/cl.hpp"

namespace burn::opencl {

class Context;
using gpu::Defines;

// The text clBuildProgram gets for kernel `name` (burn-gpu/kernels/<name>.kernel or kernels/<name>.cl) or
// for `text` when given (a generated kernel).
std::string assemble_source(std::string_view name, const Defines& defines, std::string_view text = {});

class Programs {
 public:
  explicit Programs(Context& ctx);
  ~Programs();
  // The kernel object of `name` with `defines` (built, loaded from disk or found in memory); DeviceError
  // naming `op`, the kernel, its defines and the build log when the source does not build. Call under
  // the context's launch mutex.
  cl_kernel get(std::string_view name, const Defines& defines, const char* op, std::string_view text = {});
  // The same with the defines in two lists, `shared` then `own` (a launch's table built once, then its own).
  cl_kernel get(std::string_view name, const Defines& shared, const Defines& own, const char* op,
                std::string_view text = {});
  // Where binaries are kept ("" when the disk cache is off: BURN_OPENCL_CACHE_DIR=off).
  const std::string& dir() const { return dir_; }

 private:
  struct Entry {
    std::string name, text;
    Defines shared, own;
    cl_program program;
    cl_kernel kernel;
  };
  cl_program build(const std::string& source, std::string_view name, const Defines& defines, const char* op);
  Context& ctx_;
  std::string dir_;
  // By a hash of the kernel's name, text and defines; the entries under one hash are compared in full.
  std::unordered_map<size_t, std::vector<Entry>> cache_;
};

}  // namespace burn::opencl
