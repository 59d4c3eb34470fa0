// Hugging Face's RobertaModel (the RoBERTa encoder with its pooler) from burn::nn layers. Field names
// are Hugging Face's module names (embeddings.LayerNorm, encoder.layer.N.attention.self.query,
// encoder.layer.N.output.dense, pooler.dense), so a RobertaModel state dict maps onto it with the
// PyTorch adapter (Linear weights transposed, LayerNorm weight/bias -> gamma/beta).
#pragma once

#include <burn/nn.hpp>

namespace burn::models {

// Word + position + token type embeddings, then LayerNorm and dropout. Position ids are RoBERTa's:
// padding_idx + 1 + the count of non-pad tokens so far, padding_idx at a pad token.
struct RobertaEmbeddings {
  nn::Embedding word_embeddings, position_embeddings, token_type_embeddings;
  nn::LayerNorm LayerNorm;
  nn::Dropout dropout;
  int64_t padding_idx = 1;
  BURN_MODULE(word_embeddings, position_embeddings, token_type_embeddings, LayerNorm, dropout)

  // [B, L] token ids -> [B, L, hidden]; the token types are all 0 (RoBERTa has one).
  Tensor<3> forward(const Tensor<2, Int>& input_ids) const;
};

// [B, L] token ids -> [B, L] RoBERTa position ids (transformers' create_position_ids_from_input_ids).
Tensor<2, Int> roberta_position_ids(const Tensor<2, Int>& input_ids, int64_t padding_idx);

struct RobertaSelfAttention {
  nn::Linear query, key, value;
  nn::Dropout dropout;
  int64_t num_heads = 1;
  BURN_MODULE(query, key, value, dropout)

  // x [B, L, hidden]; mask_pad [B, L], true at a key that may not be attended (padding).
  Tensor<3> forward(const Tensor<3>& x, const std::optional<Tensor<2, Bool>>& mask_pad) const;
};

// RobertaSelfOutput and RobertaOutput: LayerNorm(dropout(dense(h)) + residual).
struct RobertaDenseNorm {
  nn::Linear dense;
  nn::LayerNorm LayerNorm;
  nn::Dropout dropout;
  BURN_MODULE(dense, LayerNorm, dropout)

  Tensor<3> forward(const Tensor<3>& h, const Tensor<3>& residual) const {
    return LayerNorm.forward(dropout.forward(dense.forward(h)) + residual);
  }
};

struct RobertaAttention {
  RobertaSelfAttention self;
  RobertaDenseNorm output;
  BURN_MODULE(self, output)
};

struct RobertaIntermediate {
  nn::Linear dense;  // then the exact (erf) gelu
  BURN_MODULE(dense)
};

struct RobertaLayer {
  RobertaAttention attention;
  RobertaIntermediate intermediate;
  RobertaDenseNorm output;
  BURN_MODULE(attention, intermediate, output)

  Tensor<3> forward(const Tensor<3>& x, const std::optional<Tensor<2, Bool>>& mask_pad) const;
};

struct RobertaEncoder {
  std::vector<RobertaLayer> layer;
  BURN_MODULE(layer)
};

struct RobertaPooler {
  nn::Linear dense;  // on the first token (<s>), then tanh
  BURN_MODULE(dense)
};

struct RobertaModelOutput {
  Tensor<3> last_hidden_state;             // [B, L, hidden]
  std::optional<Tensor<2>> pooler_output;  // [B, hidden]
};

struct RobertaModel {
  RobertaEmbeddings embeddings;
  RobertaEncoder encoder;
  std::optional<RobertaPooler> pooler;
  BURN_MODULE(embeddings, encoder, pooler)

  // input_ids [B, L]. mask_pad [B, L]: true at padding (Burn's convention; Hugging Face's
  // attention_mask is its negation). Without a mask every position attends everywhere, as in
  // transformers; roberta_padding_mask gives the usual one.
  RobertaModelOutput forward(const Tensor<2, Int>& input_ids,
                             const std::optional<Tensor<2, Bool>>& mask_pad = std::nullopt) const;
};

// true where input_ids is the pad token.
Tensor<2, Bool> roberta_padding_mask(const Tensor<2, Int>& input_ids, int64_t pad_token_id = 1);

// roberta-base's configuration by default; the tests shrink it.
struct RobertaConfig {
  int64_t vocab_size = 50265;
  int64_t hidden_size = 768;
  int64_t num_hidden_layers = 12;
  int64_t num_attention_heads = 12;
  int64_t intermediate_size = 3072;
  int64_t max_position_embeddings = 514;
  int64_t type_vocab_size = 1;
  int64_t pad_token_id = 1;
  double layer_norm_eps = 1e-5;
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  bool add_pooling_layer = true;
  // transformers' init: Linear and embedding weights N(0, 0.02), biases 0, LayerNorm 1 and 0, the
  // padding rows of the word and position tables 0.
  RobertaModel init(const Device& device) const;
};

}  // namespace burn::models
