// Embedding and ranking losses as composites of tensor ops, so autodiff differentiates them.
#include "burn/nn/loss/embedding.hpp"

#include "../config_json.hpp"
#include "common.hpp"

namespace burn::nn::loss {

BURN_CONFIG_JSON(CosineEmbeddingLossConfig, margin)
BURN_CONFIG_JSON(HingeEmbeddingLossConfig, margin)
BURN_CONFIG_JSON(MarginRankingLossConfig, margin)
BURN_CONFIG_JSON(TripletMarginLossConfig, margin, p, eps, swap)

namespace detail {

namespace {

// Labels of 1 or -1 only; ValueError naming the loss and the first other one.
void check_signs(const H& target, const char* op) {
  const std::vector<double> v = api::into_data(target).convert(DType::F64).to_vec<double>();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != 1.0 && v[i] != -1.0)
      throw ValueError(op, "target " + num(v[i]) + " at " + std::to_string(i) + " is neither 1 nor -1");
}

// The p-norm of each row of u - v + eps (torch's pairwise_distance), as [n].
H pairwise_distance(const H& u, const H& v, double p, double eps) {
  const H d = api::add_scalar(api::sub(u, v), eps);
  const int64_t n = u.prim->shape()[0];
  H norm;
  if (p == 1.0)
    norm = api::reduce_dim(OpId::sum_dim, api::unary(OpId::abs, d), 1);
  else if (p == 2.0)
    norm = api::unary(OpId::sqrt, api::reduce_dim(OpId::sum_dim, api::unary(OpId::square, d), 1));
  else
    norm = api::powf_scalar(api::reduce_dim(OpId::sum_dim, api::powf_scalar(api::unary(OpId::abs, d), p), 1), 1.0 / p);
  return api::reshape(norm, {n});
}

}  // namespace

H cosine_embedding(const H& x1, const H& x2, const H& target, double margin, Red r) {
  const char* op = "CosineEmbeddingLoss";
  require_float(x1, op, "x1", 2);
  require_float(x2, op, "x2", 2);
  require_same_shape(x1, x2, op, "x1", "x2");
  require_int(target, op, "target", 1);
  const int64_t n = x1.prim->shape()[0];
  if (target.prim->shape()[0] != n)
    throw ShapeError(op, "target " + target.prim->shape().to_string() + " must have one label per row of x1 " +
                             x1.prim->shape().to_string());
  check_signs(target, op);
  // torch's cosine with 1e-12 added to both squared magnitudes.
  const H dot = api::reduce_dim(OpId::sum_dim, api::mul(x1, x2), 1);
  const H m1 = api::add_scalar(api::reduce_dim(OpId::sum_dim, api::unary(OpId::square, x1), 1), 1e-12);
  const H m2 = api::add_scalar(api::reduce_dim(OpId::sum_dim, api::unary(OpId::square, x2), 1), 1e-12);
  const H cos = api::reshape(api::div(dot, api::unary(OpId::sqrt, api::mul(m1, m2))), {n});
  const H similar = api::compare_elem(OpId::equal_elem, target, 1);
  const H loss =
      api::mask_where(api::clamp_min(api::sub_scalar(cos, margin), 0.0), similar, api::rsub_scalar(cos, 1.0));
  return reduce(loss, r, op);
}

H hinge_embedding(const H& x, const H& target, double margin, Red r) {
  const char* op = "HingeEmbeddingLoss";
  require_float(x, op, "input");
  require_float(target, op, "target");
  require_same_shape(x, target, op, "input", "target");
  check_signs(target, op);
  const H similar = api::compare_elem(OpId::equal_elem, target, 1.0);
  const H loss = api::mask_where(api::clamp_min(api::rsub_scalar(x, margin), 0.0), similar, x);
  return reduce(loss, r, op);
}

H margin_ranking(const H& x1, const H& x2, const H& target, double margin, Red r) {
  const char* op = "MarginRankingLoss";
  require_float(x1, op, "x1");
  require_float(x2, op, "x2");
  require_float(target, op, "target");
  require_same_shape(x1, x2, op, "x1", "x2");
  require_same_shape(x1, target, op, "x1", "target");
  const H neg_y_diff = api::mul(api::unary(OpId::neg, target), api::sub(x1, x2));
  return reduce(api::clamp_min(api::add_scalar(neg_y_diff, margin), 0.0), r, op);
}

H triplet_margin(const H& anchor, const H& positive, const H& negative, double margin, double p, double eps, bool swap,
                 Red r) {
  const char* op = "TripletMarginLoss";
  require_float(anchor, op, "anchor", 2);
  require_float(positive, op, "positive", 2);
  require_float(negative, op, "negative", 2);
  require_same_shape(anchor, positive, op, "anchor", "positive");
  require_same_shape(anchor, negative, op, "anchor", "negative");
  if (!(p > 0.0)) throw ValueError(op, "p must be > 0, got " + num(p));
  const H d_pos = pairwise_distance(anchor, positive, p, eps);
  H d_neg = pairwise_distance(anchor, negative, p, eps);
  if (swap) d_neg = api::minimum(d_neg, pairwise_distance(positive, negative, p, eps));
  return reduce(api::clamp_min(api::add_scalar(api::sub(d_pos, d_neg), margin), 0.0), r, op);
}

}  // namespace detail

CosineEmbeddingLoss CosineEmbeddingLossConfig::init() const {
  if (!(margin >= -1.0 && margin <= 1.0))
    throw ValueError("CosineEmbeddingLossConfig::init", "margin must be in [-1, 1], got " + detail::num(margin));
  return CosineEmbeddingLoss{margin};
}

HingeEmbeddingLoss HingeEmbeddingLossConfig::init() const { return HingeEmbeddingLoss{margin}; }

MarginRankingLoss MarginRankingLossConfig::init() const { return MarginRankingLoss{margin}; }

TripletMarginLoss TripletMarginLossConfig::init() const {
  const char* op = "TripletMarginLossConfig::init";
  if (!(p > 0.0)) throw ValueError(op, "p must be > 0, got " + detail::num(p));
  return TripletMarginLoss{margin, p, eps, swap};
}

}  // namespace burn::nn::loss
