// TransformerEncoder/Decoder and PositionWiseFeedForward: post-norm or norm_first, masks as attention's.
#include "burn/nn/transformer.hpp"

#include "config_json.hpp"

namespace burn::nn {

// Not NLOHMANN_JSON_SERIALIZE_ENUM: it maps an unknown name to the first value without a word.
void to_json(nlohmann::json& j, FeedForwardActivation a) { j = a == FeedForwardActivation::Relu ? "relu" : "gelu"; }
void from_json(const nlohmann::json& j, FeedForwardActivation& a) {
  const std::string name = j.get<std::string>();
  if (name != "relu" && name != "gelu")
    throw ValueError("FeedForwardActivation", "unknown activation '" + name + "' (gelu or relu)");
  a = name == "relu" ? FeedForwardActivation::Relu : FeedForwardActivation::Gelu;
}

BURN_CONFIG_JSON(PositionWiseFeedForwardConfig, d_model, d_ff, dropout, activation, initializer)
BURN_CONFIG_JSON(TransformerConfig, d_model, d_ff, n_heads, n_layers, dropout, norm_first, quiet_softmax, activation,
                 layer_norm_eps)

namespace detail {
TensorHandle feed_forward_activation(const TensorHandle& x, FeedForwardActivation a) {
  return api::unary(a == FeedForwardActivation::Relu ? OpId::relu : OpId::gelu, x);
}
}  // namespace detail

PositionWiseFeedForward PositionWiseFeedForwardConfig::init(const Device& device) const {
  if (d_model <= 0 || d_ff <= 0)
    throw ValueError(
        "PositionWiseFeedForwardConfig::init",
        "d_model and d_ff must be positive, got " + std::to_string(d_model) + " and " + std::to_string(d_ff));
  return {LinearConfig{d_model, d_ff, true, initializer}.init(device),
          LinearConfig{d_ff, d_model, true, initializer}.init(device), DropoutConfig{dropout}.init(), activation};
}

Tensor<3> TransformerEncoderLayer::forward(const TransformerEncoderInput& in) const {
  auto attend = [&](const Tensor<3>& x) {
    MhaInput a = MhaInput::self_attn(x);
    a.mask_pad = in.mask_pad;
    a.mask_attn = in.mask_attn;
    return dropout.forward(mha.forward(a).context);
  };
  Tensor<3> x = in.tensor;
  if (norm_first) {  // x + sa(norm(x)), then x + ff(norm(x))
    x = x + attend(norm_1.forward(x));
    return x + dropout.forward(pwff.forward(norm_2.forward(x)));
  }
  x = norm_1.forward(x + attend(x));  // PyTorch's default: norm(x + sa(x)), norm(x + ff(x))
  return norm_2.forward(x + dropout.forward(pwff.forward(x)));
}

Tensor<3> TransformerEncoder::forward(const TransformerEncoderInput& in) const {
  TransformerEncoderInput x = in;
  for (const TransformerEncoderLayer& l : layers) x.tensor = l.forward(x);
  return x.tensor;
}

Tensor<3> TransformerDecoderLayer::forward(const TransformerDecoderInput& in) const {
  auto self = [&](const Tensor<3>& x) {
    MhaInput a = MhaInput::self_attn(x);
    a.mask_pad = in.target_mask_pad;
    a.mask_attn = in.target_mask_attn;
    return dropout.forward(self_attn.forward(a).context);
  };
  auto cross = [&](const Tensor<3>& x) {
    MhaInput a = MhaInput::cross(x, in.memory, in.memory);
    a.mask_pad = in.memory_mask_pad;
    a.mask_attn = in.memory_mask_attn;
    return dropout.forward(cross_attn.forward(a).context);
  };
  Tensor<3> x = in.target;
  if (norm_first) {
    x = x + self(norm_1.forward(x));
    x = x + cross(norm_2.forward(x));
    return x + dropout.forward(pwff.forward(norm_3.forward(x)));
  }
  x = norm_1.forward(x + self(x));
  x = norm_2.forward(x + cross(x));
  return norm_3.forward(x + dropout.forward(pwff.forward(x)));
}

Tensor<3> TransformerDecoder::forward(const TransformerDecoderInput& in) const {
  TransformerDecoderInput x = in;
  for (const TransformerDecoderLayer& l : layers) x.target = l.forward(x);
  return x.target;
}

namespace {
void check(const TransformerConfig& c, const char* op) {
  if (c.d_model <= 0 || c.d_ff <= 0 || c.n_heads <= 0 || c.n_layers <= 0)
    throw ValueError(op, "d_model, d_ff, n_heads and n_layers must be positive, got " + std::to_string(c.d_model) +
                             ", " + std::to_string(c.d_ff) + ", " + std::to_string(c.n_heads) + ", " +
                             std::to_string(c.n_layers));
}
MultiHeadAttention attention(const TransformerConfig& c, const Device& d) {
  return MultiHeadAttentionConfig{
      .d_model = c.d_model, .n_heads = c.n_heads, .dropout = c.dropout, .quiet_softmax = c.quiet_softmax}
      .init(d);
}
PositionWiseFeedForward feed_forward(const TransformerConfig& c, const Device& d) {
  return PositionWiseFeedForwardConfig{
      .d_model = c.d_model, .d_ff = c.d_ff, .dropout = c.dropout, .activation = c.activation}
      .init(d);
}
LayerNorm norm(const TransformerConfig& c, const Device& d) {
  return LayerNormConfig{.d_model = c.d_model, .epsilon = c.layer_norm_eps}.init(d);
}
}  // namespace

TransformerEncoder TransformerConfig::init_encoder(const Device& device) const {
  check(*this, "TransformerConfig::init_encoder");
  TransformerEncoder e;
  for (int64_t i = 0; i < n_layers; ++i)
    e.layers.push_back({attention(*this, device), feed_forward(*this, device), norm(*this, device), norm(*this, device),
                        DropoutConfig{dropout}.init(), norm_first});
  return e;
}

TransformerDecoder TransformerConfig::init_decoder(const Device& device) const {
  check(*this, "TransformerConfig::init_decoder");
  TransformerDecoder e;
  for (int64_t i = 0; i < n_layers; ++i)
    e.layers.push_back({attention(*this, device), attention(*this, device), feed_forward(*this, device),
                        norm(*this, device), norm(*this, device), norm(*this, device), DropoutConfig{dropout}.init(),
                        norm_first});
  return e;
}

}  // namespace burn::nn
