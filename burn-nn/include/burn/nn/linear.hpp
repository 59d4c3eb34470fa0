// Linear and Identity.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/init.hpp"
#include "burn/nn/module.hpp"
#include "burn/tensor/quant.hpp"

namespace burn::nn {

namespace detail {
BURN_NN_API TensorHandle linear(const TensorHandle& x, const TensorHandle& weight, const TensorHandle* bias);
// x through a quantized weight: the int8 op quantized_linear where the scheme has one (q8 per tensor or per
// output channel) and `weight_only` is false, else the dequantized weight's matmul.
BURN_NN_API TensorHandle quantized_linear(const TensorHandle& x, const QTensor& weight, const TensorHandle* bias,
                                          bool weight_only);
// Whether a Calibration scope (burn/nn/quant.hpp) is open on this thread, and the hook that gives it a layer's
// input.
BURN_NN_API bool calibrating() noexcept;
BURN_NN_API void observe_input(const void* layer, const TensorHandle& x);
}  // namespace detail

// y = x W + b over the last dim; W is [d_input, d_output] as in Burn (PyTorch's transposed).
class BURN_NN_API Linear {
 public:
  Param<Tensor<2>> weight;
  std::optional<Param<Tensor<1>>> bias;
  // Set by quantize_dynamic and quantize_weights (burn/nn/quant.hpp): forward then runs on it, inference only
  // (its result is not tracked by autodiff). Not a parameter: to_device and the optimizers see the float weight
  // only; records save the QTensor in the weight's place (burn/record/quant.hpp).
  std::optional<QTensor> quantized_weight;
  // Set by quantize_weights: forward dequantizes the weight and runs the float matmul (weight-only).
  bool dequantize_at_forward = false;
  BURN_MODULE(weight, bias)

  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    if (detail::calibrating()) detail::observe_input(this, x.handle());
    const TensorHandle* b = bias ? &bias->handle() : nullptr;
    if (quantized_weight)
      return Tensor<D>(detail::quantized_linear(x.handle(), *quantized_weight, b, dequantize_at_forward));
    return Tensor<D>(detail::linear(x.handle(), weight.handle(), b));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API LinearConfig {
  int64_t d_input = 0;
  int64_t d_output = 0;
  bool bias = true;
  Initializer initializer = Initializer::pytorch_default();
  Linear init(const Device& device) const;
  BURN_CONFIG(LinearConfig)
};

// Returns its input: a placeholder where a model has an optional layer.
struct Identity {
  BURN_MODULE()
  template <size_t D, typename K>
  Tensor<D, K> forward(const Tensor<D, K>& x) const {
    return x;
  }
};

}  // namespace burn::nn
