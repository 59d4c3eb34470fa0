// Linear and Identity.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/init.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

namespace detail {
BURN_NN_API TensorHandle linear(const TensorHandle& x, const TensorHandle& weight, const TensorHandle* bias);
}

// y = x W + b over the last dim; W is [d_input, d_output] as in Burn (PyTorch's transposed).
class BURN_NN_API Linear {
 public:
  Param<Tensor<2>> weight;
  std::optional<Param<Tensor<1>>> bias;
  BURN_MODULE(weight, bias)

  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::linear(x.handle(), weight.handle(), bias ? &bias->handle() : nullptr));
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
