// The fault injection lists of the GPU backends (fault_list.hpp).
#include "burn/gpu/fault_list.hpp"

#include <cstdlib>

namespace burn::gpu {

bool fault_listed(const char* variable, std::string_view fault) {
  const char* env = std::getenv(variable);
  if (!env || !*env) return false;
  std::string_view list(env);
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == fault) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

std::string injected_note(const char* variable) {
  const char* env = std::getenv(variable);
  return std::string(" (injected by ") + variable + "=" + (env ? env : "") + ")";
}

}  // namespace burn::gpu
