// Helpers of the backward formulas.
#include "grad_math.hpp"

namespace burn::autodiff {

T sum_to(T g, const Shape& shape) {
  if (g.shape() == shape) return g;
  const size_t lead = g.rank() - shape.rank();
  for (size_t i = 0; i < g.rank(); ++i) {
    const int64_t target = i < lead ? 1 : shape[i - lead];
    if (g.shape()[i] != target) g = g.sum_dim(static_cast<int64_t>(i));
  }
  return g.reshape(shape);
}

T channel_sum(const H& g) {
  const Shape& s = g.prim->shape();
  T r = api::reshape(g, {s[0], s[1], -1});
  return r.sum_dim(2).sum_dim(0).reshape(Shape{s[1]});
}

}  // namespace burn::autodiff
