// Dropout: active only while training, that is on an autodiff device with grad enabled (Burn).
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

namespace detail {
BURN_NN_API TensorHandle dropout(const TensorHandle& x, double prob);
}

class BURN_NN_API Dropout {
 public:
  double prob = 0.5;
  BURN_MODULE()

  // Zeroes each element with probability `prob` and scales the others by 1 / (1 - prob).
  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(detail::dropout(x.handle(), prob));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API DropoutConfig {
  double prob = 0.5;
  Dropout init() const;
  BURN_CONFIG(DropoutConfig)
};

}  // namespace burn::nn
