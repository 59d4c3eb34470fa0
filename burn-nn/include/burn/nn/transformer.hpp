// Transformers (Burn's): PositionWiseFeedForward, TransformerEncoder and TransformerDecoder with
// their layers, post-norm (PyTorch's default) or pre-norm (norm_first), batch first.
#pragma once

#include "burn/nn/attention.hpp"
#include "burn/nn/config.hpp"
#include "burn/nn/dropout.hpp"
#include "burn/nn/linear.hpp"
#include "burn/nn/norm.hpp"

namespace burn::nn {

enum class FeedForwardActivation : uint8_t { Gelu, Relu };

namespace detail {
BURN_NN_API TensorHandle feed_forward_activation(const TensorHandle& x, FeedForwardActivation a);
}

// linear_outer(dropout(activation(linear_inner(x)))), d_model -> d_ff -> d_model.
class BURN_NN_API PositionWiseFeedForward {
 public:
  Linear linear_inner, linear_outer;
  Dropout dropout;
  FeedForwardActivation activation = FeedForwardActivation::Gelu;
  BURN_MODULE(linear_inner, linear_outer, dropout)
  template <size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    const Tensor<D> h(detail::feed_forward_activation(linear_inner.forward(x).handle(), activation));
    return linear_outer.forward(dropout.forward(h));
  }
};

struct BURN_NN_API PositionWiseFeedForwardConfig {
  int64_t d_model = 0;
  int64_t d_ff = 0;
  double dropout = 0.1;
  FeedForwardActivation activation = FeedForwardActivation::Gelu;  // Burn's; PyTorch's layers default to Relu
  Initializer initializer = Initializer::pytorch_default();
  PositionWiseFeedForward init(const Device& device) const;
  BURN_CONFIG(PositionWiseFeedForwardConfig)
};

// [B, L, d_model] with optional masks (true = masked): mask_pad [B, L], mask_attn [B, L, L].
struct TransformerEncoderInput {
  Tensor<3> tensor;
  std::optional<Tensor<2, Bool>> mask_pad;
  std::optional<Tensor<3, Bool>> mask_attn;
};

class BURN_NN_API TransformerEncoderLayer {
 public:
  MultiHeadAttention mha;
  PositionWiseFeedForward pwff;
  LayerNorm norm_1, norm_2;
  Dropout dropout;
  bool norm_first = false;
  BURN_MODULE(mha, pwff, norm_1, norm_2, dropout)
  Tensor<3> forward(const TransformerEncoderInput& input) const;
};

class BURN_NN_API TransformerEncoder {
 public:
  std::vector<TransformerEncoderLayer> layers;
  BURN_MODULE(layers)
  Tensor<3> forward(const TransformerEncoderInput& input) const;
};

// target [B, Lt, d_model] attends to itself (masks target_*) and to memory [B, Lm, d_model] (masks memory_*).
struct TransformerDecoderInput {
  Tensor<3> target;
  std::optional<Tensor<2, Bool>> target_mask_pad;
  std::optional<Tensor<3, Bool>> target_mask_attn;
  Tensor<3> memory;
  std::optional<Tensor<2, Bool>> memory_mask_pad;
  std::optional<Tensor<3, Bool>> memory_mask_attn;
};

class BURN_NN_API TransformerDecoderLayer {
 public:
  MultiHeadAttention self_attn, cross_attn;
  PositionWiseFeedForward pwff;
  LayerNorm norm_1, norm_2, norm_3;
  Dropout dropout;
  bool norm_first = false;
  BURN_MODULE(self_attn, cross_attn, pwff, norm_1, norm_2, norm_3, dropout)
  Tensor<3> forward(const TransformerDecoderInput& input) const;
};

class BURN_NN_API TransformerDecoder {
 public:
  std::vector<TransformerDecoderLayer> layers;
  BURN_MODULE(layers)
  Tensor<3> forward(const TransformerDecoderInput& input) const;
};

// One config for encoders and decoders (Burn's TransformerEncoderConfig fields).
struct BURN_NN_API TransformerConfig {
  int64_t d_model = 0;
  int64_t d_ff = 0;
  int64_t n_heads = 0;
  int64_t n_layers = 0;
  double dropout = 0.1;
  bool norm_first = false;
  bool quiet_softmax = false;
  FeedForwardActivation activation = FeedForwardActivation::Gelu;
  double layer_norm_eps = 1e-5;
  TransformerEncoder init_encoder(const Device& device) const;
  TransformerDecoder init_decoder(const Device& device) const;
  BURN_CONFIG(TransformerConfig)
};

}  // namespace burn::nn
