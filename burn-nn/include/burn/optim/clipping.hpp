// Gradient clipping and accumulation: wrappers over GradientsParams, so every optimizer gets them
// without a copy of its own (docs/architecture.md §8).
#pragma once

#include <limits>

#include "burn/optim/grads.hpp"

namespace burn::optim {

// Clamps every gradient element to [-threshold, threshold] (torch.nn.utils.clip_grad_value_).
BURN_OPTIM_API void clip_grad_value(GradientsParams& grads, double threshold);

// Scales all gradients together so that their total norm (over every parameter, as if concatenated)
// is at most max_norm; returns the total norm before clipping (torch.nn.utils.clip_grad_norm_, same
// 1e-6 guard). norm_type is p of the p-norm; infinity is the largest |element|.
BURN_OPTIM_API double clip_grad_norm(GradientsParams& grads, double max_norm, double norm_type = 2.0);

// One of the two, as an optimizer setting (Burn's GradientClipping).
struct GradientClipping {
  enum class Kind { Value, Norm } kind = Kind::Norm;
  double threshold = 1.0;  // the value bound, or the max norm
  double norm_type = 2.0;
  static GradientClipping value(double threshold) { return {Kind::Value, threshold, 2.0}; }
  static GradientClipping norm(double max_norm, double norm_type = 2.0) { return {Kind::Norm, max_norm, norm_type}; }
  BURN_OPTIM_API void apply(GradientsParams& grads) const;
};

// Sums the gradients of several backward passes (gradient accumulation), parameter by parameter.
class BURN_OPTIM_API GradientsAccumulator {
 public:
  void accumulate(GradientsParams grads);
  // The sum so far (divide the lr, or the loss, by steps() for a mean); empties the accumulator.
  GradientsParams grads();
  size_t steps() const { return steps_; }

 private:
  GradientsParams sum_;
  size_t steps_ = 0;
};

}  // namespace burn::optim
