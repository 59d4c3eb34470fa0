// Dynamic loss scaling for f16 mixed-precision training (torch.cuda.amp.GradScaler's semantics): the
// loss is multiplied by the scale before backward so that small f16 gradients do not flush to zero;
// the gradients are divided by it before the optimizer sees them (before clipping: the optimizer clips
// after unscale), and a step whose gradients hold an inf or NaN is skipped. The scale backs off
// (x backoff_factor) on every skipped step and grows (x growth_factor) after growth_interval steps in
// a row without one. bf16 has f32's exponent range and needs none of this (torch's advice too).
//
//   optim::GradScaler scaler;                                  // 2^16, x2 every 2000 good steps, x0.5
//   Gradients g = scaler.scale(loss).backward();
//   optim::GradientsParams grads = optim::GradientsParams::from_grads(g, model);
//   scaler.step(opt, lr, nn::ModuleRef(model), grads);         // unscales, skips on inf/NaN
//   scaler.update();
#pragma once

#include <cstdint>

#include "burn/optim/optimizer.hpp"

namespace burn::optim {

struct GradScalerConfig {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  bool enabled = true;  // off: scale() and unscale() leave values alone, step() always steps
};

class BURN_OPTIM_API GradScaler {
 public:
  // ValueError for a scale <= 0, growth_factor <= 1, backoff_factor outside (0, 1) or an interval < 1.
  explicit GradScaler(GradScalerConfig config = {});

  // loss * scale, recorded on loss's device (so backward gives scaled gradients).
  TensorHandle scale(const TensorHandle& loss) const;
  template <size_t D>
  Tensor<D> scale(const Tensor<D>& loss) const {
    return Tensor<D>(scale(loss.handle()));
  }
  // Divides every gradient by the scale (multiplies by its f32 reciprocal, as torch does) and records
  // whether any element is inf or NaN. Once per step: ValueError when called again before update().
  void unscale(GradientsParams& grads);
  // optimizer.step_module unless a gradient was not finite; unscales first when unscale() was not
  // called this step. Returns whether the optimizer stepped.
  bool step(Optimizer& optimizer, double lr, nn::ModuleRef module, GradientsParams& grads);
  // The scale for the next step: backoff after a skipped step, growth after growth_interval good
  // ones in a row (a growth that would overflow to inf is not taken). Call once per step, after step().
  void update();

  double get_scale() const { return scale_; }
  int64_t growth_tracker() const { return growth_tracker_; }  // good steps in a row since the last change
  bool found_inf() const { return found_inf_; }               // of the current step's unscale
  const GradScalerConfig& config() const { return config_; }

 private:
  GradScalerConfig config_;
  double scale_;
  int64_t growth_tracker_ = 0;
  bool unscaled_ = false;
  bool found_inf_ = false;
};

}  // namespace burn::optim
