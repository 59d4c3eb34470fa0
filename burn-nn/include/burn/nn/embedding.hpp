// Embedding: a lookup table of n_embedding vectors of size d_model.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/init.hpp"
#include "burn/nn/module.hpp"
#include "burn/tensor/module.hpp"

namespace burn::nn {

class BURN_NN_API Embedding {
 public:
  Param<Tensor<2>> weight;  // [n_embedding, d_model]
  BURN_MODULE(weight)

  // [batch, seq] indices -> [batch, seq, d_model]
  template <size_t D>
  Tensor<D + 1> forward(const Tensor<D, Int>& indices) const {
    return module::embedding(weight.val(), indices);
  }
  std::string extra_repr() const;
};

struct BURN_NN_API EmbeddingConfig {
  int64_t n_embedding = 0;
  int64_t d_model = 0;
  Initializer initializer = Initializer::normal(0.0, 1.0);  // PyTorch's N(0, 1)
  Embedding init(const Device& device) const;
  BURN_CONFIG(EmbeddingConfig)
};

}  // namespace burn::nn
