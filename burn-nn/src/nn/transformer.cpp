#include "burn/nn/transformer.hpp"

#include "config_json.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(PositionWiseFeedForwardConfig, d_model, d_ff, dropout, initializer)

PositionWiseFeedForward PositionWiseFeedForwardConfig::init(const Device& device) const {
  if (d_model <= 0 || d_ff <= 0)
    throw ValueError(
        "PositionWiseFeedForwardConfig::init",
        "d_model and d_ff must be positive, got " + std::to_string(d_model) + " and " + std::to_string(d_ff));
  return {LinearConfig{d_model, d_ff, true, initializer}.init(device),
          LinearConfig{d_ff, d_model, true, initializer}.init(device), DropoutConfig{dropout}.init()};
}

}  // namespace burn::nn
