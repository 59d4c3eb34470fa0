// burn::autodiff: the Autodiff decorator (Burn's Autodiff<B>). Linking it registers the decorators
// "autodiff" and "autodiff-balanced" (balanced checkpointing), so that
//   Device::get("autodiff<cpu>")  or  Device::get("cpu").autodiff(Checkpointing::Balanced)
// give a device whose float tensors can require_grad() and backward(). The tensor-side API
// (require_grad, backward, grad, NoGradGuard) is in burn/tensor/autodiff.hpp, included here.
#pragma once

#include "burn/autodiff/export.hpp"
#include "burn/autodiff/version.hpp"
#include "burn/tensor/autodiff.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::autodiff {

// Registers the decorators; idempotent. Runs when the library loads, and from every translation unit
// that includes this header, so an `--as-needed` link cannot drop the library.
BURN_AUTODIFF_API void register_decorators();
// The burn-autodiff version this program runs with.
BURN_AUTODIFF_API const char* version();

namespace detail {
inline const bool kRegistered = (register_decorators(), true);
}  // namespace detail

}  // namespace burn::autodiff
