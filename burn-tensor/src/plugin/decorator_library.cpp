// Loads a decorator's component library on demand, from the folder of libburn-tensor itself (the
// build tree's lib/ or the install's lib/), never from the environment or the working directory.
#include "decorator_library.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <map>
#include <mutex>
#include <string>

#include "../log.hpp"

#include "burn/tensor/version.hpp"

namespace burn::detail {
namespace {

// The folder holding this library, from the dynamic loader's own record of it.
std::string own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_decorator_library), &info) == 0 || !info.dli_fname) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

DecoratorLibrary load_decorator_library(std::string_view decorator) {
  const std::string component(decorator.substr(0, decorator.find('-')));
  // Never cleared: one attempt per component and process, and the handles stay open until exit.
  static std::mutex mutex;
  static auto* tried = new std::map<std::string, DecoratorLibrary>();
  std::lock_guard lock(mutex);
  if (const auto it = tried->find(component); it != tried->end()) return it->second;

  DecoratorLibrary result;
  const std::string folder = own_folder();
  const std::string base = folder + "/libburn-" + component + ".so";
  if (component == "tensor" || folder.empty()) {
    result.path = folder;
    result.error = "no component library provides it";
  } else {
    // The soname first (what a runtime package installs), then the development symlink.
    result.path = base + "." + std::to_string(BURN_TENSOR_VERSION_MAJOR);
    if (!is_file(result.path) && is_file(base)) result.path = base;
    if (!is_file(result.path)) {
      result.error = "no component library provides it (" + result.path + " does not exist)";
    } else if (dlopen(result.path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
      const char* err = dlerror();
      result.error = "cannot load " + result.path + ": " + (err ? err : "unknown dlopen error");
    } else {
      result.loaded = true;
      logger().debug("decorators: loaded {} for '{}'", result.path, std::string(decorator));
    }
  }
  (*tried)[component] = result;
  return result;
}

}  // namespace burn::detail
