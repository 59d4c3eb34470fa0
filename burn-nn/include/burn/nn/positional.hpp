// Position encodings (Burn's): the sinusoidal PositionalEncoding added to embeddings, and
// RotaryEncoding (RoPE) applied to queries and keys.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

namespace detail {
BURN_NN_API TensorHandle positional_encoding(const TensorHandle& x, int64_t max_sequence_size, double max_timescale);
BURN_NN_API TensorHandle rotary_encoding(const TensorHandle& x, int64_t start, int64_t max_sequence_length,
                                         double theta);
}  // namespace detail

// x [B, L, d_model] + PE[L, d_model], PE[p, 2i] = sin(p / T^(2i/d)), PE[p, 2i+1] = cos(p / T^(2i/d)).
class BURN_NN_API PositionalEncoding {
 public:
  int64_t max_sequence_size = 5000;
  double max_timescale = 10000.0;
  BURN_MODULE()
  Tensor<3> forward(const Tensor<3>& x) const {
    return Tensor<3>(detail::positional_encoding(x.handle(), max_sequence_size, max_timescale));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API PositionalEncodingConfig {
  int64_t d_model = 0;
  int64_t max_sequence_size = 5000;
  double max_timescale = 10000.0;
  PositionalEncoding init() const;
  BURN_CONFIG(PositionalEncodingConfig)
};

// Rotates each pair (x[2i], x[2i+1]) of the last dim by position * theta^(-2i/d_model), the
// position being the index along dim -2 plus `start` (the cached length when decoding).
class BURN_NN_API RotaryEncoding {
 public:
  int64_t max_sequence_length = 0;
  double theta = 10000.0;
  BURN_MODULE()
  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x, int64_t start = 0) const {
    return Tensor<D>(detail::rotary_encoding(x.handle(), start, max_sequence_length, theta));
  }
  std::string extra_repr() const;
};

struct BURN_NN_API RotaryEncodingConfig {
  int64_t max_sequence_length = 0;
  int64_t d_model = 0;
  double theta = 10000.0;
  RotaryEncoding init() const;
  BURN_CONFIG(RotaryEncodingConfig)
};

}  // namespace burn::nn
