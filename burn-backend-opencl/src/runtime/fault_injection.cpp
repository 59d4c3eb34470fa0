// BURN_OPENCL_FAULT: which failures the runtime pretends the driver gave.
#include "runtime/fault_injection.hpp"

#include <cstdlib>
#include <string_view>

namespace burn::opencl {

namespace {

const char* name_of(Fault f) {
  switch (f) {
    case Fault::device_lost: return "device-lost";
    case Fault::device_lost_wait: return "device-lost-wait";
    case Fault::alloc: return "alloc";
    case Fault::compile: return "compile";
  }
  return "";
}

}  // namespace

bool fault_injected(Fault f) {
  const char* env = std::getenv("BURN_OPENCL_FAULT");
  if (!env || !*env) return false;
  const std::string_view want = name_of(f);
  std::string_view list(env);
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == want) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

std::string injected_note() {
  const char* env = std::getenv("BURN_OPENCL_FAULT");
  return std::string(" (injected by BURN_OPENCL_FAULT=") + (env ? env : "") + ")";
}

}  // namespace burn::opencl
