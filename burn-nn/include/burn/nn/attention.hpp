// MultiHeadAttention (Burn's): masks for padding and attention patterns, attention weights out,
// and a cache for autoregressive decoding.
#pragma once

#include "burn/nn/config.hpp"
#include "burn/nn/dropout.hpp"
#include "burn/nn/linear.hpp"

namespace burn::nn {

// query [B, Lq, d_model], key and value [B, Lk, d_model]. mask_pad [B, Lk]: true marks a padding
// key; mask_attn [B, Lq, Lk]: true marks a pair that may not attend (Burn's and PyTorch's bool masks).
struct MhaInput {
  Tensor<3> query, key, value;
  std::optional<Tensor<2, Bool>> mask_pad;
  std::optional<Tensor<3, Bool>> mask_attn;
  static MhaInput self_attn(const Tensor<3>& x) { return {x, x, x, std::nullopt, std::nullopt}; }
  static MhaInput cross(const Tensor<3>& q, const Tensor<3>& k, const Tensor<3>& v) {
    return {q, k, v, std::nullopt, std::nullopt};
  }
  MhaInput with_mask_pad(const Tensor<2, Bool>& m) const {
    MhaInput c = *this;
    c.mask_pad = m;
    return c;
  }
  MhaInput with_mask_attn(const Tensor<3, Bool>& m) const {
    MhaInput c = *this;
    c.mask_attn = m;
    return c;
  }
};

struct MhaOutput {
  Tensor<3> context;  // [B, Lq, d_model]
  Tensor<4> weights;  // [B, n_heads, Lq, Lk], after dropout
};

// The projected keys and values of the positions decoded so far ([B, n_heads, L, d_k]).
struct MhaCache {
  std::optional<Tensor<4>> key, value;
  int64_t length() const { return key ? key->dim(2) : 0; }
};

class BURN_NN_API MultiHeadAttention {
 public:
  Linear query, key, value, output;
  Dropout dropout;
  int64_t n_heads = 1;
  double min_float = -1.0e4;  // the score of a masked pair before softmax
  bool quiet_softmax = false;
  BURN_MODULE(query, key, value, output, dropout)

  MhaOutput forward(const MhaInput& input) const;
  // Attends from the new positions of `input` (query, key and value hold only them) to every
  // position in the cache and the new ones, then appends the new keys and values to the cache.
  // Decoding one position at a time needs no mask: earlier positions are all that exist.
  MhaOutput forward_cache(const MhaInput& input, MhaCache& cache) const;
  std::string extra_repr() const;
};

// [batch, length, length], true above the diagonal: each position attends to itself and earlier
// ones (Burn's generate_autoregressive_mask), for MhaInput::with_mask_attn.
BURN_NN_API Tensor<3, Bool> autoregressive_mask(int64_t batch, int64_t length, const Device& device);

struct BURN_NN_API MultiHeadAttentionConfig {
  int64_t d_model = 0;
  int64_t n_heads = 0;
  double dropout = 0.1;
  double min_float = -1.0e4;
  bool quiet_softmax = false;
  // The query, key and value weights; the default is PyTorch's (xavier_uniform over its packed
  // [3 d_model, d_model] in_proj, that is a gain of sqrt(1/2) per projection). As in PyTorch every
  // bias starts at zero and the output projection is a default Linear.
  Initializer initializer = Initializer::xavier_uniform(0.7071067811865476);
  MultiHeadAttention init(const Device& device) const;
  BURN_CONFIG(MultiHeadAttentionConfig)
};

}  // namespace burn::nn
