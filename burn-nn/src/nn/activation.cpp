// Activation modules and their configs' JSON: each forwards to the tensor op of the same name.
#include "burn/nn/activation.hpp"

#include "layer_common.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(LeakyReluConfig, negative_slope)
BURN_CONFIG_JSON(GeluConfig, approximate)
BURN_CONFIG_JSON(EluConfig, alpha)
BURN_CONFIG_JSON(CeluConfig, alpha)
BURN_CONFIG_JSON(SoftplusConfig, beta, threshold)
BURN_CONFIG_JSON(HardSigmoidConfig, alpha, beta)
BURN_CONFIG_JSON(HardtanhConfig, min_val, max_val)
BURN_CONFIG_JSON(ThresholdConfig, threshold, value)
BURN_CONFIG_JSON(ThresholdedReluConfig, alpha)
BURN_CONFIG_JSON(HardShrinkConfig, lambda)
BURN_CONFIG_JSON(SoftShrinkConfig, lambda)
BURN_CONFIG_JSON(SoftmaxConfig, dim)
BURN_CONFIG_JSON(LogSoftmaxConfig, dim)
BURN_CONFIG_JSON(GluConfig, dim)
BURN_CONFIG_JSON(PReluConfig, num_parameters, alpha)
BURN_CONFIG_JSON(SwiGluConfig, d_input, d_output, bias, initializer)

namespace {
using detail::num_string;
void check_finite(const char* op, const char* what, double v) {
  if (!std::isfinite(v)) throw ValueError(op, std::string(what) + " must be finite, got " + num_string(v));
}
}  // namespace

std::string LeakyRelu::extra_repr() const { return "negative_slope=" + num_string(negative_slope); }
LeakyRelu LeakyReluConfig::init() const {
  check_finite("LeakyReluConfig::init", "negative_slope", negative_slope);
  return {negative_slope};
}
std::string Gelu::extra_repr() const { return std::string("approximate=") + (approximate ? "tanh" : "none"); }
Gelu GeluConfig::init() const { return {approximate}; }
std::string Elu::extra_repr() const { return "alpha=" + num_string(alpha); }
Elu EluConfig::init() const {
  check_finite("EluConfig::init", "alpha", alpha);
  return {alpha};
}
std::string Celu::extra_repr() const { return "alpha=" + num_string(alpha); }
Celu CeluConfig::init() const {
  if (!(alpha != 0.0 && std::isfinite(alpha)))
    throw ValueError("CeluConfig::init", "alpha must be finite and non-zero, got " + num_string(alpha));
  return {alpha};
}
std::string Softplus::extra_repr() const { return "beta=" + num_string(beta) + ", threshold=" + num_string(threshold); }
Softplus SoftplusConfig::init() const {
  if (!(beta > 0.0 && std::isfinite(beta)))
    throw ValueError("SoftplusConfig::init", "beta must be positive, got " + num_string(beta));
  return {beta, threshold};
}
std::string HardSigmoid::extra_repr() const { return "alpha=" + num_string(alpha) + ", beta=" + num_string(beta); }
HardSigmoid HardSigmoidConfig::init() const { return {alpha, beta}; }
std::string Hardtanh::extra_repr() const {
  return "min_val=" + num_string(min_val) + ", max_val=" + num_string(max_val);
}
Hardtanh HardtanhConfig::init() const {
  if (!(min_val <= max_val))
    throw ValueError("HardtanhConfig::init",
                     "min_val " + num_string(min_val) + " must not exceed max_val " + num_string(max_val));
  return {min_val, max_val};
}
std::string Threshold::extra_repr() const {
  return "threshold=" + num_string(threshold) + ", value=" + num_string(value);
}
Threshold ThresholdConfig::init() const { return {threshold, value}; }
std::string ThresholdedRelu::extra_repr() const { return "alpha=" + num_string(alpha); }
ThresholdedRelu ThresholdedReluConfig::init() const { return {alpha}; }
std::string HardShrink::extra_repr() const { return "lambda=" + num_string(lambda); }
HardShrink HardShrinkConfig::init() const {
  if (!(lambda >= 0.0))
    throw ValueError("HardShrinkConfig::init", "lambda must not be negative, got " + num_string(lambda));
  return {lambda};
}
std::string SoftShrink::extra_repr() const { return "lambda=" + num_string(lambda); }
SoftShrink SoftShrinkConfig::init() const {
  if (!(lambda >= 0.0))
    throw ValueError("SoftShrinkConfig::init", "lambda must not be negative, got " + num_string(lambda));
  return {lambda};
}
std::string Softmax::extra_repr() const { return "dim=" + std::to_string(dim); }
Softmax SoftmaxConfig::init() const { return {dim}; }
std::string LogSoftmax::extra_repr() const { return "dim=" + std::to_string(dim); }
LogSoftmax LogSoftmaxConfig::init() const { return {dim}; }
std::string Glu::extra_repr() const { return "dim=" + std::to_string(dim); }
Glu GluConfig::init() const { return {dim}; }

namespace detail {
TensorHandle prelu(const PRelu& m, const TensorHandle& x) {
  const Shape s = x.prim ? x.prim->shape() : Shape{};
  const int64_t n = m.alpha.shape()[0];
  if (n != 1 && (s.rank() < 2 || s[1] != n))
    throw ShapeError("PRelu",
                     "input " + s.to_string() + " has no channel dim (dim 1) of num_parameters " + std::to_string(n));
  return api::prelu(x, m.alpha.handle());
}
}  // namespace detail

std::string PRelu::extra_repr() const {
  return "num_parameters=" + std::to_string(alpha.shape()[0]) + ", alpha_value=" + num_string(alpha_value);
}

PRelu PReluConfig::init(const Device& device) const {
  detail::check_positive("PReluConfig::init", "num_parameters", {num_parameters});
  PRelu p;
  p.alpha = Param<Tensor<1>>(Tensor<1>::full({num_parameters}, alpha, device));
  p.alpha_value = alpha;
  return p;
}

SwiGlu SwiGluConfig::init(const Device& device) const {
  const LinearConfig c{d_input, d_output, bias, initializer};
  SwiGlu s;
  s.linear_inner = c.init(device);
  s.linear_outer = c.init(device);
  return s;
}

}  // namespace burn::nn
