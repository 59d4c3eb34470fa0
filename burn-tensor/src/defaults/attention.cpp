// Default composite body of the attention module op (scaled dot-product attention), composed only from
// other ops of `this`: softmax(q @ k^T * scale, masked to -inf) @ v, materialising the [Lq, Lk] scores.
//
// Semantics (shared with every backend's override; shapes as the attention rule checks them):
// - q [B, H, Lq, E], k [B, H, Lk, E], v [B, H, Lk, Ev]; mask null or a rank-4 bool broadcastable to
//   [B, H, Lq, Lk], true = masked out (Burn's convention, the opposite of torch's bool attn_mask);
// - causal masks key j for query i when j > i (top-left alignment, as torch's is_causal, also when
//   Lq != Lk); it combines with the mask by OR;
// - scale defaults to 1/sqrt(E) (the api fills it in);
// - a query row whose keys are all masked gives NaN, as the reference math (softmax of all -inf).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn {

Prim Backend::attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) {
  const Shape qs = query->shape(), ks = key->shape();
  shape_rules::attention(qs, ks, value->shape(), mask ? &mask->shape() : nullptr);
  const int64_t lq = qs[2], lk = ks[2];
  const double scale =
      options.scale ? *options.scale : 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(qs[3], 1)));
  Prim kt = permute(std::move(key), Axes{0, 1, 3, 2});
  Prim scores = mul_scalar(matmul(std::move(query), std::move(kt)), Scalar(scale));
  if (options.causal) {
    Prim rows = reshape(arange(0, lq, 1, DType::I64), Shape{1, 1, lq, 1});
    Prim cols = reshape(arange(0, lk, 1, DType::I64), Shape{1, 1, 1, lk});
    Prim upper = greater(std::move(cols), std::move(rows));  // [1, 1, Lq, Lk]
    mask = mask ? bool_or(std::move(mask), std::move(upper)) : std::move(upper);
  }
  if (mask) scores = mask_fill(std::move(scores), std::move(mask), Scalar(-std::numeric_limits<double>::infinity()));
  return matmul(softmax(std::move(scores), 3), std::move(value));
}

}  // namespace burn
