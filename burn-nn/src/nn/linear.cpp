// Linear: weight [d_input, d_output] (Burn's layout), any input rank.
#include "burn/nn/linear.hpp"

#include "burn/tensor/autocast.hpp"

#include "config_json.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(LinearConfig, d_input, d_output, bias, initializer)

namespace detail {

TensorHandle linear(const TensorHandle& x, const TensorHandle& weight, const TensorHandle* bias) {
  const Shape& s = x.prim ? x.prim->shape() : Shape{};
  const Shape& w = weight.prim->shape();
  if (s.rank() == 0 || s[s.rank() - 1] != w[0])
    throw ShapeError("Linear", "input " + s.to_string() + " has no last dim of d_input " + std::to_string(w[0]));
  // One matrix product over every leading dim: [..., d_input] -> [n, d_input] -> [..., d_output].
  std::vector<int64_t> out_dims = s.dims();
  out_dims.back() = w[1];
  TensorHandle y = api::matmul(api::reshape(x, {-1, w[0]}), weight);
  if (bias) {
    // Under autocast the product came out in the lower dtype: the bias joins it there (torch's linear
    // is one lower-precision op), so the layer's output stays 16-bit.
    TensorHandle b = *bias;
    if (autocast_policy() && b.prim->dtype() != y.prim->dtype() && is_float(b.prim->dtype()))
      b = api::cast(b, y.prim->dtype());
    y = api::add(std::move(y), api::unsqueeze_dims(b, {0}));
  }
  return api::reshape(std::move(y), out_dims);
}

TensorHandle quantized_linear(const TensorHandle& x, const QTensor& weight, const TensorHandle* bias,
                              bool weight_only) {
  // A module moved to another device (valid(), to_device) keeps its QTensor where it was quantized.
  const QTensor w = x.prim && weight.device() != x.device ? weight.to_device(x.device) : weight;
  const QuantScheme& s = w.scheme();
  const bool integer_path =
      !weight_only && s.value == QuantValue::Q8 &&
      (s.level == QuantLevel::Tensor || (s.level == QuantLevel::Channel && (s.axis == 1 || s.axis == -1)));
  if (!integer_path) return linear(x, w.dequantize_handle(), bias);
  const Shape& xs = x.prim ? x.prim->shape() : Shape{};
  if (xs.rank() == 0 || xs[xs.rank() - 1] != w.shape()[0])
    throw ShapeError("Linear",
                     "input " + xs.to_string() + " has no last dim of d_input " + std::to_string(w.shape()[0]));
  return burn::quantized_linear(x, w, bias ? std::optional<TensorHandle>(*bias) : std::nullopt);
}

}  // namespace detail

std::string Linear::extra_repr() const {
  return "d_input=" + std::to_string(weight.shape()[0]) + ", d_output=" + std::to_string(weight.shape()[1]) +
         ", bias=" + (bias ? "true" : "false") +
         (quantized_weight ? std::string(dequantize_at_forward ? ", weight-only" : "") +
                                 ", quantized=" + quantized_weight->scheme().to_string()
                           : std::string());
}

Linear LinearConfig::init(const Device& device) const {
  if (d_input <= 0 || d_output <= 0)
    throw ValueError("LinearConfig::init", "d_input and d_output must be positive, got " + std::to_string(d_input) +
                                               " and " + std::to_string(d_output));
  Linear l;
  l.weight = Param<Tensor<2>>(initializer.init<2>(Shape{d_input, d_output}, device, d_input, d_output));
  if (bias) l.bias = Param<Tensor<1>>(initializer.init<1>(Shape{d_output}, device, d_input, d_output));
  return l;
}

}  // namespace burn::nn
