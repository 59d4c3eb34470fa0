// A hook told of each gradient a backward pass keeps as soon as it is final, i.e. every op that read
// the tensor has contributed. Data-parallel training uses it to send gradients while backward still
// runs; it is set per thread by a scope, so code that calls loss.backward() itself needs no change.
#pragma once

#include <cstdint>
#include <functional>

#include "burn/tensor/api.hpp"

namespace burn {

// `key` is the gradient's key in the Gradients that backward returns (api::grad finds it from the
// tensor); `grad` lives where that Gradients' entry does. Called on the thread running backward.
using GradReadyHook = std::function<void(uint64_t key, const TensorHandle& grad)>;

// Gives backward passes on this thread `hook` for the scope's lifetime. Scopes nest; an empty hook
// turns an outer one off inside the scope.
class BURN_TENSOR_API GradReadyScope {
 public:
  explicit GradReadyScope(GradReadyHook hook);
  ~GradReadyScope();
  GradReadyScope(const GradReadyScope&) = delete;
  GradReadyScope& operator=(const GradReadyScope&) = delete;

 private:
  GradReadyHook hook_;
  const GradReadyHook* previous_;
};

// The hook of this thread's innermost GradReadyScope, nullptr when none is set (what an autodiff
// decorator's backward calls).
BURN_TENSOR_API const GradReadyHook* current_grad_ready_hook();

}  // namespace burn
