// GradScaler: torch.cuda.amp.GradScaler's dynamic loss scaling (see grad_scaler.hpp).
#include "burn/optim/grad_scaler.hpp"

#include <cmath>
#include <string>

#include "host_scalar.hpp"
namespace burn::optim {

GradScaler::GradScaler(GradScalerConfig config) : config_(config), scale_(static_cast<float>(config.init_scale)) {
  const char* op = "GradScaler";
  if (!(config.init_scale > 0) || !std::isfinite(config.init_scale))
    throw ValueError(op, "init_scale must be a positive finite number, got " + std::to_string(config.init_scale));
  if (!(config.growth_factor > 1.0))
    throw ValueError(op, "growth_factor must be > 1, got " + std::to_string(config.growth_factor));
  if (!(config.backoff_factor > 0.0 && config.backoff_factor < 1.0))
    throw ValueError(op, "backoff_factor must be in (0, 1), got " + std::to_string(config.backoff_factor));
  if (config.growth_interval < 1)
    throw ValueError(op, "growth_interval must be >= 1, got " + std::to_string(config.growth_interval));
}

TensorHandle GradScaler::scale(const TensorHandle& loss) const {
  if (!config_.enabled) return loss;
  return api::mul_scalar(loss, scale_);
}

void GradScaler::unscale(GradientsParams& grads) {
  if (!config_.enabled) return;
  if (unscaled_)
    throw ValueError("GradScaler::unscale", "the gradients of this step were already unscaled; call update() first");
  NoGradGuard no_grad;
  // torch: inv_scale = scale.double().reciprocal().float()
  const double inv = static_cast<double>(static_cast<float>(1.0 / scale_));
  bool inf = false;
  for (const auto& [id, g] : grads.all()) {
    if (!inf) {  // torch checks the scaled gradient, before the multiplication
      const TensorHandle finite = api::reduce_all(OpId::all, api::unary(OpId::is_finite, g));
      inf = detail::host_scalar(finite) == 0.0;
    }
    grads.set(id, api::mul_scalar(g, inv));
  }
  found_inf_ = inf;
  unscaled_ = true;
}

bool GradScaler::step(Optimizer& optimizer, double lr, nn::ModuleRef module, GradientsParams& grads) {
  if (!config_.enabled) {
    optimizer.step_module(lr, module, grads);
    return true;
  }
  if (!unscaled_) unscale(grads);
  if (found_inf_) return false;
  optimizer.step_module(lr, module, grads);
  return true;
}

// The scale is an f32 value, as torch keeps it (a growth that overflows f32 is not taken).
void GradScaler::update() {
  if (!config_.enabled) return;
  if (!unscaled_)
    throw ValueError("GradScaler::update", "no step was taken since the last update (call step() or unscale() first)");
  if (found_inf_) {
    scale_ = static_cast<float>(scale_ * static_cast<float>(config_.backoff_factor));
    growth_tracker_ = 0;
  } else if (++growth_tracker_ == config_.growth_interval) {
    const float grown = static_cast<float>(scale_ * static_cast<float>(config_.growth_factor));
    if (std::isfinite(grown)) scale_ = grown;
    growth_tracker_ = 0;
  }
  unscaled_ = false;
  found_inf_ = false;
}

}  // namespace burn::optim
