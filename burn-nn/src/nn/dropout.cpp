// Dropout: active only while training (an autodiff device with grad enabled), as in Burn.
#include "burn/nn/dropout.hpp"

#include "config_json.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(DropoutConfig, prob)

namespace detail {

TensorHandle dropout(const TensorHandle& x, double prob) {
  if (!(prob >= 0.0 && prob <= 1.0)) throw ValueError("Dropout", "prob must be in [0, 1], got " + std::to_string(prob));
  // Training is an autodiff device with grad enabled; elsewhere dropout is the identity (Burn).
  if (prob == 0.0 || !autodiff_of(x.device) || !grad_enabled()) return x;
  if (prob == 1.0) return api::mul_scalar(x, 0.0);
  const Shape& s = x.prim->shape();
  TensorHandle keep = api::random(x.device, s, Distribution::bernoulli(1.0 - prob), x.prim->dtype());
  return api::mul_scalar(api::mul(x, keep), 1.0 / (1.0 - prob));
}

}  // namespace detail

std::string Dropout::extra_repr() const { return "prob=" + std::to_string(prob); }

Dropout DropoutConfig::init() const {
  if (!(prob >= 0.0 && prob <= 1.0))
    throw ValueError("DropoutConfig::init", "prob must be in [0, 1], got " + std::to_string(prob));
  Dropout d;
  d.prob = prob;
  return d;
}

}  // namespace burn::nn
