// Embedding: the lookup table, N(0, 1) init as PyTorch.
#include "burn/nn/embedding.hpp"

#include "config_json.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(EmbeddingConfig, n_embedding, d_model, initializer)

std::string Embedding::extra_repr() const {
  return "n_embedding=" + std::to_string(weight.shape()[0]) + ", d_model=" + std::to_string(weight.shape()[1]);
}

Embedding EmbeddingConfig::init(const Device& device) const {
  if (n_embedding <= 0 || d_model <= 0)
    throw ValueError("EmbeddingConfig::init", "n_embedding and d_model must be positive, got " +
                                                  std::to_string(n_embedding) + " and " + std::to_string(d_model));
  Embedding e;
  e.weight = Param<Tensor<2>>(initializer.init<2>(Shape{n_embedding, d_model}, device, n_embedding, d_model));
  return e;
}

}  // namespace burn::nn
