// Automatic mixed precision (PyTorch's torch.autocast): inside an AutocastGuard the tensor API casts the
// float operands of some ops before calling the backend, on this thread only:
//   lower:   matmul, conv, conv_transpose, attention run in the guard's dtype (bf16 or f16): their f32
//            operands (weights and bias included) are cast down, so the product reads half the bytes;
//   f32:     reductions (sum, mean, prod, var, cumsum, ...), norms, softmax and log_softmax, exp/log/pow
//            and the other ops whose result loses most in 16 bits run on f32: f16/bf16 operands are cast
//            up, and the result is f32; losses are composites of these, so they run in f32 too;
//   promote: binary elementwise ops and comparisons whose float operands differ (a bf16 product plus an
//            f32 bias) run in the wider dtype, as PyTorch's type promotion does (outside a guard a mix
//            stays a DTypeError).
// Every other op runs in the dtype it is given. The casts are ops of the device: on an autodiff device
// they are recorded, so the gradients of f32 parameters come back f32 (the parameters stay the f32
// master weights the optimizer updates). api::backward runs with autocast off: the backward pass runs
// each op in the dtype its forward ran in. The lists follow torch.autocast's CPU lists (lower precision:
// conv, matmul, linear, attention; fp32: losses, prod, pooling in 3d, ...) and its CUDA fp32 list for
// the pointwise ops (exp, log, pow, softplus, norms, softmax, sum, cumsum); see AutocastPolicy::cpu.
//
//   {
//     burn::AutocastGuard amp(burn::DType::BF16);
//     Tensor<2> logits = model.forward(x);          // the Linear/Conv products in bf16
//     Tensor<1> loss = cross_entropy(logits, y);    // log_softmax and the mean in f32
//   }
//   Gradients g = loss.backward();                  // f32 gradients for the f32 parameters
#pragma once

#include <vector>

#include "burn/tensor/backend.hpp"

namespace burn {

// What autocast does to an op's float operands.
enum class AutocastCast : uint8_t { None, Lower, F32, Promote };

struct BURN_TENSOR_API AutocastPolicy {
  DType dtype = DType::BF16;  // the lower precision: BF16 or F16
  std::vector<OpId> lower;    // ops run in `dtype`
  std::vector<OpId> f32;      // ops run in f32
  std::vector<OpId> promote;  // ops whose differing float operands go to the wider dtype
  // torch.autocast's lists mapped onto the op table (burn-tensor/src/api/autocast.cpp lists them).
  static AutocastPolicy cpu(DType dtype = DType::BF16);
  AutocastCast cast_of(OpId op) const;
};

// Autocast on this thread for the guard's lifetime; guards nest (the innermost wins, and the previous
// policy comes back when it ends). ValueError when the policy's dtype is not bf16 or f16.
class BURN_TENSOR_API AutocastGuard {
 public:
  explicit AutocastGuard(DType dtype = DType::BF16);
  explicit AutocastGuard(AutocastPolicy policy);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  AutocastPolicy policy_;
  const AutocastPolicy* previous_;
};

// Autocast off on this thread for its lifetime (torch.autocast(enabled=False) inside a region).
class BURN_TENSOR_API NoAutocastGuard {
 public:
  NoAutocastGuard();
  ~NoAutocastGuard();
  NoAutocastGuard(const NoAutocastGuard&) = delete;
  NoAutocastGuard& operator=(const NoAutocastGuard&) = delete;

 private:
  const AutocastPolicy* previous_;
};

// The policy in force on this thread; nullptr outside a guard.
BURN_TENSOR_API const AutocastPolicy* autocast_policy();

}  // namespace burn
