// Loading the component library that provides a decorator (internal to burn-tensor).
#pragma once

#include <string>
#include <string_view>

namespace burn::detail {

struct DecoratorLibrary {
  std::string path;  // the library file tried (or the folder searched, when none was there)
  bool loaded = false;
  std::string error;  // why it was not loaded; empty when loaded
};

// A decorator named `c` or `c-<variant>` ("autodiff", "autodiff-balanced", "fusion") is provided
// by the component library libburn-<c>.so.<burn-tensor major>, installed next to libburn-tensor.
// Loads it (once per process; never unloaded) so that its static initialiser registers its
// decorators. This is what makes "autodiff<cpu>" work in a program that never references a symbol
// of libburn-autodiff, which an --as-needed link then drops. Thread-safe.
DecoratorLibrary load_decorator_library(std::string_view decorator);

}  // namespace burn::detail
