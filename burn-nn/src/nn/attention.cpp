// MultiHeadAttention: shape checks, the packed projections, masks and the incremental decoding cache.
#include "burn/nn/attention.hpp"

#include <cmath>

#include "config_json.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(MultiHeadAttentionConfig, d_model, n_heads, dropout, min_float, quiet_softmax, initializer)

namespace {

void check_input(const Tensor<3>& t, const char* what, int64_t d_model) {
  if (t.dim(2) != d_model)
    throw ShapeError("MultiHeadAttention", std::string(what) + " " + t.shape().to_string() +
                                               " has no last dim of d_model " + std::to_string(d_model));
}

}  // namespace

std::string MultiHeadAttention::extra_repr() const {
  return "d_model=" + std::to_string(query.weight.shape()[0]) + ", n_heads=" + std::to_string(n_heads);
}

MhaOutput MultiHeadAttention::forward(const MhaInput& input) const {
  MhaCache none;
  return forward_cache(input, none);
}

MhaOutput MultiHeadAttention::forward_cache(const MhaInput& in, MhaCache& cache) const {
  const int64_t d_model = query.weight.shape()[0], d_k = d_model / n_heads;
  check_input(in.query, "query", d_model);
  check_input(in.key, "key", d_model);
  check_input(in.value, "value", d_model);
  const int64_t b = in.query.dim(0), lq = in.query.dim(1);
  if (in.key.dim(0) != b || in.value.dim(0) != b || in.key.dim(1) != in.value.dim(1))
    throw ShapeError("MultiHeadAttention", "query " + in.query.shape().to_string() + ", key " +
                                               in.key.shape().to_string() + " and value " +
                                               in.value.shape().to_string() + " do not agree in batch and length");
  // [B, L, d_model] -> [B, H, L, d_k]
  auto heads = [&](const Tensor<3>& x) { return x.reshape<4>({b, x.dim(1), n_heads, d_k}).swap_dims(1, 2); };
  Tensor<4> q = heads(query.forward(in.query));
  Tensor<4> k = heads(key.forward(in.key));
  Tensor<4> v = heads(value.forward(in.value));
  if (cache.key) {
    k = Tensor<4>::cat({*cache.key, k}, 2);
    v = Tensor<4>::cat({*cache.value, v}, 2);
  }
  cache.key = k;
  cache.value = v;
  const int64_t lk = k.dim(2);
  Tensor<4> scores = q.matmul(k.transpose()) * (1.0 / std::sqrt(static_cast<double>(d_k)));
  if (in.mask_pad) {
    if (in.mask_pad->shape() != Shape{b, lk})
      throw ShapeError("MultiHeadAttention", "mask_pad " + in.mask_pad->shape().to_string() + " is not [batch " +
                                                 std::to_string(b) + ", key length " + std::to_string(lk) + "]");
    scores = scores.mask_fill(in.mask_pad->reshape<4>({b, 1, 1, lk}).expand<4>({b, n_heads, lq, lk}), min_float);
  }
  if (in.mask_attn) {
    if (in.mask_attn->shape() != Shape{b, lq, lk})
      throw ShapeError("MultiHeadAttention", "mask_attn " + in.mask_attn->shape().to_string() + " is not [" +
                                                 std::to_string(b) + ", " + std::to_string(lq) + ", " +
                                                 std::to_string(lk) + "]");
    scores = scores.mask_fill(in.mask_attn->reshape<4>({b, 1, lq, lk}).expand<4>({b, n_heads, lq, lk}), min_float);
  }
  Tensor<4> weights = dropout.forward(quiet_softmax ? scores.quiet_softmax(3) : scores.softmax(3));
  Tensor<3> context = weights.matmul(v).swap_dims(1, 2).reshape<3>({b, lq, d_model});
  return {output.forward(context), weights};
}

Tensor<3, Bool> autoregressive_mask(int64_t batch, int64_t length, const Device& device) {
  // tril_mask marks what lies outside the lower triangle (Burn's convention): the future.
  return Tensor<3, Bool>::tril_mask(Shape{batch, length, length}, 0, device);
}

MultiHeadAttention MultiHeadAttentionConfig::init(const Device& device) const {
  if (d_model <= 0 || n_heads <= 0 || d_model % n_heads != 0)
    throw ValueError(
        "MultiHeadAttentionConfig::init",
        "d_model " + std::to_string(d_model) + " must be a positive multiple of n_heads " + std::to_string(n_heads));
  auto projection = [&](const Initializer& weights) {
    Linear l = LinearConfig{d_model, d_model, true, weights}.init(device);
    l.bias->set(Tensor<1>::zeros({d_model}, device));
    return l;
  };
  MultiHeadAttention m;
  m.query = projection(initializer);
  m.key = projection(initializer);
  m.value = projection(initializer);
  m.output = projection(Initializer::pytorch_default());
  m.dropout = DropoutConfig{dropout}.init();
  m.n_heads = n_heads;
  m.min_float = min_float;
  m.quiet_softmax = quiet_softmax;
  return m;
}

}  // namespace burn::nn
