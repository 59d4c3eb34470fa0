// Gradient clipping by value and by total norm, and GradientsAccumulator.
#include "burn/optim/clipping.hpp"

#include <cmath>

#include "host_scalar.hpp"
namespace burn::optim {

void clip_grad_value(GradientsParams& grads, double threshold) {
  if (!(threshold >= 0))
    throw ValueError("clip_grad_value", "the threshold must be >= 0, got " + std::to_string(threshold));
  NoGradGuard no_grad;
  for (const auto& [id, g] : grads.all()) grads.set(id, api::clamp(g, -threshold, threshold));
}

double clip_grad_norm(GradientsParams& grads, double max_norm, double norm_type) {
  if (!(max_norm >= 0)) throw ValueError("clip_grad_norm", "max_norm must be >= 0, got " + std::to_string(max_norm));
  if (!(norm_type > 0)) throw ValueError("clip_grad_norm", "norm_type must be > 0, got " + std::to_string(norm_type));
  NoGradGuard no_grad;
  const bool inf = std::isinf(norm_type);
  // Each parameter's sum |g|^p (or max |g|) on its device, combined on the host in double.
  double acc = 0;
  for (const auto& [id, g] : grads.all()) {
    if (inf) {
      acc = std::max(acc, detail::host_scalar(api::max_abs(g)));
    } else if (norm_type == 2.0) {
      acc += detail::host_scalar(api::reduce_all(OpId::sum, api::mul(g, g)));
    } else {
      acc += detail::host_scalar(api::reduce_all(OpId::sum, api::powf_scalar(api::unary(OpId::abs, g), norm_type)));
    }
  }
  const double total = inf ? acc : std::pow(acc, 1.0 / norm_type);
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1.0)
    for (const auto& [id, g] : grads.all()) grads.set(id, api::mul_scalar(g, coef));
  return total;
}

void GradientClipping::apply(GradientsParams& grads) const {
  if (kind == Kind::Value)
    clip_grad_value(grads, threshold);
  else
    clip_grad_norm(grads, threshold, norm_type);
}

void GradientsAccumulator::accumulate(GradientsParams grads) {
  NoGradGuard no_grad;
  for (const auto& [id, g] : grads.all()) {
    if (auto prev = sum_.get(id)) {
      if (prev->prim->shape() != g.prim->shape())
        throw ShapeError("GradientsAccumulator", "parameter " + std::to_string(id) + ": gradient " +
                                                     g.prim->shape().to_string() + " after " +
                                                     prev->prim->shape().to_string());
      sum_.set(id, api::add(*prev, g));
    } else {
      sum_.set(id, g);
    }
  }
  ++steps_;
}

GradientsParams GradientsAccumulator::grads() {
  GradientsParams out = std::move(sum_);
  sum_ = GradientsParams();
  steps_ = 0;
  return out;
}

}  // namespace burn::optim
