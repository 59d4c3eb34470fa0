// Transformer building blocks (Burn's): PositionWiseFeedForward.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/dropout.hpp"
#include "burn/nn/linear.hpp"

namespace burn::nn {

// linear_outer(dropout(gelu(linear_inner(x)))), d_model -> d_ff -> d_model.
class BURN_NN_API PositionWiseFeedForward {
 public:
  Linear linear_inner, linear_outer;
  Dropout dropout;
  BURN_MODULE(linear_inner, linear_outer, dropout)
  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return linear_outer.forward(dropout.forward(linear_inner.forward(x).gelu()));
  }
};

struct BURN_NN_API PositionWiseFeedForwardConfig {
  int64_t d_model = 0;
  int64_t d_ff = 0;
  double dropout = 0.1;
  Initializer initializer = Initializer::pytorch_default();
  PositionWiseFeedForward init(const Device& device) const;
  BURN_CONFIG(PositionWiseFeedForwardConfig)
};

}  // namespace burn::nn
