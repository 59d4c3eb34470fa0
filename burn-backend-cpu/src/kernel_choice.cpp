// The run-time choice of a kernel family's variant: the environment override, its errors and the test hook.
#include "kernel_choice.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "burn/tensor/error.hpp"

namespace burn::cpu {

int KernelChoice::from_env() const {
  const char* env = std::getenv(spec_.env);
  if (!env || !*env) {
    for (int v = spec_.count - 1; v > 0; --v)
      if (spec_.available(v)) return v;
    return 0;
  }
  std::string expected;
  for (int v = 0; v < spec_.count; ++v) {
    if (std::strcmp(env, spec_.name(v)) == 0) {
      if (!spec_.available(v))
        throw Unsupported(spec_.env, std::string("'") + env + "' asks for " + spec_.kernels + " this CPU lacks (" +
                                         spec_.requirement(v) + ")");
      return v;
    }
    expected += v == 0 ? "" : v + 1 == spec_.count ? " or " : ", ";
    expected += spec_.name(v);
  }
  throw ValueError(spec_.env, std::string("unknown ") + spec_.choice + " '" + env + "'; expected " + expected);
}

int KernelChoice::get() {
  int v = variant_.load(std::memory_order_relaxed);
  if (v < 0) {
    v = from_env();
    variant_.store(v, std::memory_order_relaxed);
  }
  return v;
}

int KernelChoice::set(int variant) {
  if (!spec_.available(variant))
    throw Unsupported(spec_.setter,
                      std::string("this CPU cannot run the ") + spec_.name(variant) + " " + spec_.kernels);
  const int before = get();
  variant_.store(variant, std::memory_order_relaxed);
  return before;
}

}  // namespace burn::cpu
