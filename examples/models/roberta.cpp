// The RobertaModel of roberta.hpp: embeddings with RoBERTa's position ids, post-norm encoder layers
// (self attention, exact gelu feed-forward) and the tanh pooler, as transformers computes them.
#include "roberta.hpp"

#include <burn/tensor/autodiff.hpp>
#include <cmath>

namespace burn::models {

Tensor<2, Bool> roberta_padding_mask(const Tensor<2, Int>& input_ids, int64_t pad_token_id) {
  return input_ids.equal_elem(pad_token_id);
}

Tensor<2, Int> roberta_position_ids(const Tensor<2, Int>& input_ids, int64_t padding_idx) {
  const Tensor<2, Int> not_pad = input_ids.not_equal_elem(padding_idx).to_int();
  return not_pad.cumsum(1) * not_pad + padding_idx;
}

namespace {

bool training(const Device& d) { return autodiff_of(d) && grad_enabled(); }

// PyTorch's Embedding(padding_idx=...): the padding row takes no gradient. nn::Embedding has no
// padding_idx (nor has Burn's), so in training the rows looked up at pad tokens come from the
// detached table; elsewhere the plain lookup is the same value.
Tensor<3> lookup_sparing_padding(const nn::Embedding& table, const Tensor<2, Int>& ids, const Tensor<2, Bool>& pad) {
  const Tensor<3> e = table.forward(ids);
  if (!training(ids.device())) return e;
  const Shape s = e.shape();
  return e.mask_where(pad.reshape<3>({s[0], s[1], 1}).expand<3>({s[0], s[1], s[2]}),
                      module::embedding(table.weight.val().detach(), ids));
}

}  // namespace

Tensor<3> RobertaEmbeddings::forward(const Tensor<2, Int>& input_ids) const {
  const Tensor<2, Int> token_types = Tensor<2, Int>::zeros(input_ids.shape(), input_ids.device());
  const Tensor<2, Bool> pad = roberta_padding_mask(input_ids, padding_idx);  // position id padding_idx there too
  const Tensor<3> e = lookup_sparing_padding(word_embeddings, input_ids, pad) +
                      token_type_embeddings.forward(token_types) +
                      lookup_sparing_padding(position_embeddings, roberta_position_ids(input_ids, padding_idx), pad);
  return dropout.forward(LayerNorm.forward(e));
}

Tensor<3> RobertaSelfAttention::forward(const Tensor<3>& x, const std::optional<Tensor<2, Bool>>& mask_pad) const {
  const int64_t b = x.dim(0), l = x.dim(1), hidden = x.dim(2), head = hidden / num_heads;
  // [B, L, hidden] -> [B, heads, L, head]
  const auto heads = [&](const Tensor<3>& t) { return t.reshape<4>({b, l, num_heads, head}).swap_dims(1, 2); };
  const Tensor<4> q = heads(query.forward(x)), k = heads(key.forward(x)), v = heads(value.forward(x));
  std::optional<Tensor<4, Bool>> mask;
  if (mask_pad) mask = mask_pad->reshape<4>({b, 1, 1, l});
  Tensor<4> context;
  // The attention op has no dropout on its weights: training (an autodiff device with grad enabled,
  // as nn::Dropout decides) takes the unfused path that has.
  if (dropout.prob == 0.0 || !training(x.device())) {
    context = module::attention(q, k, v, mask);
  } else {
    Tensor<4> scores = q.matmul(k.transpose()) * (1.0 / std::sqrt(static_cast<double>(head)));
    if (mask) scores = scores.mask_fill(mask->expand<4>({b, num_heads, l, l}), -std::numeric_limits<float>::max());
    context = dropout.forward(scores.softmax(3)).matmul(v);
  }
  return context.swap_dims(1, 2).reshape<3>({b, l, hidden});
}

Tensor<3> RobertaLayer::forward(const Tensor<3>& x, const std::optional<Tensor<2, Bool>>& mask_pad) const {
  const Tensor<3> a = attention.output.forward(attention.self.forward(x, mask_pad), x);
  return output.forward(intermediate.dense.forward(a).gelu(), a);
}

RobertaModelOutput RobertaModel::forward(const Tensor<2, Int>& input_ids,
                                         const std::optional<Tensor<2, Bool>>& mask_pad) const {
  if (mask_pad && mask_pad->shape() != input_ids.shape())
    throw ShapeError("RobertaModel", "mask_pad " + mask_pad->shape().to_string() + " is not input_ids' shape " +
                                         input_ids.shape().to_string());
  const int64_t max_len = embeddings.position_embeddings.weight.shape()[0] - embeddings.padding_idx - 1;
  if (input_ids.dim(1) > max_len)
    throw ShapeError("RobertaModel", "a sequence of " + std::to_string(input_ids.dim(1)) +
                                         " tokens is longer than the position table allows (" +
                                         std::to_string(max_len) + ")");
  Tensor<3> h = embeddings.forward(input_ids);
  for (const RobertaLayer& l : encoder.layer) h = l.forward(h, mask_pad);
  RobertaModelOutput out{h, std::nullopt};
  if (pooler) {
    const int64_t b = h.dim(0), hidden = h.dim(2);
    const Tensor<2> first = h.slice({Slice::all(), Slice::at(0), Slice::all()}).reshape<2>({b, hidden});
    out.pooler_output = pooler->dense.forward(first).tanh();
  }
  return out;
}

namespace {

nn::Linear linear(int64_t in, int64_t out, const Device& d) {
  nn::Linear l = nn::LinearConfig{in, out, true, nn::Initializer::normal(0.0, 0.02)}.init(d);
  l.bias->set(Tensor<1>::zeros({out}, d));
  return l;
}

nn::LayerNorm make_layer_norm(const RobertaConfig& c, const Device& d) {
  return nn::LayerNormConfig{.d_model = c.hidden_size, .epsilon = c.layer_norm_eps}.init(d);
}

// An embedding table N(0, 0.02) with its padding row 0 (transformers' _init_weights).
nn::Embedding embedding(int64_t n, int64_t dim, std::optional<int64_t> padding_idx, const Device& d) {
  nn::Embedding e = nn::EmbeddingConfig{n, dim, nn::Initializer::normal(0.0, 0.02)}.init(d);
  if (padding_idx && *padding_idx < n)
    e.weight.set(e.weight.val().slice_fill({Slice::at(*padding_idx), Slice::all()}, 0.0));
  return e;
}

RobertaDenseNorm dense_norm(const RobertaConfig& c, int64_t in, const Device& d) {
  return {linear(in, c.hidden_size, d), make_layer_norm(c, d), nn::DropoutConfig{c.hidden_dropout_prob}.init()};
}

}  // namespace

RobertaModel RobertaConfig::init(const Device& d) const {
  if (hidden_size <= 0 || num_attention_heads <= 0 || hidden_size % num_attention_heads != 0)
    throw ValueError("RobertaConfig::init", "hidden_size " + std::to_string(hidden_size) +
                                                " must be a positive multiple of num_attention_heads " +
                                                std::to_string(num_attention_heads));
  if (max_position_embeddings <= pad_token_id + 1)
    throw ValueError("RobertaConfig::init",
                     "max_position_embeddings " + std::to_string(max_position_embeddings) +
                         " leaves no position after pad_token_id + 1 = " + std::to_string(pad_token_id + 1));
  RobertaModel m;
  m.embeddings = {embedding(vocab_size, hidden_size, pad_token_id, d),
                  embedding(max_position_embeddings, hidden_size, pad_token_id, d),
                  embedding(type_vocab_size, hidden_size, std::nullopt, d),
                  make_layer_norm(*this, d),
                  nn::DropoutConfig{hidden_dropout_prob}.init(),
                  pad_token_id};
  for (int64_t i = 0; i < num_hidden_layers; ++i) {
    RobertaSelfAttention self{linear(hidden_size, hidden_size, d), linear(hidden_size, hidden_size, d),
                              linear(hidden_size, hidden_size, d),
                              nn::DropoutConfig{attention_probs_dropout_prob}.init(), num_attention_heads};
    m.encoder.layer.push_back({{std::move(self), dense_norm(*this, hidden_size, d)},
                               {linear(hidden_size, intermediate_size, d)},
                               dense_norm(*this, intermediate_size, d)});
  }
  if (add_pooling_layer) m.pooler = RobertaPooler{linear(hidden_size, hidden_size, d)};
  return m;
}

}  // namespace burn::models
