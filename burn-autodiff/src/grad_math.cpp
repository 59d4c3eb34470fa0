// Helpers of the backward formulas.
#include "grad_math.hpp"

#include "burn/tensor/shape_rules.hpp"

namespace burn::autodiff {

T sum_to(T g, const Shape& shape) {
  if (g.shape() == shape) return g;
  for (int64_t d : shape_rules::broadcast_axes(shape, g.shape())) g = g.sum_dim(d);  // keepdim: d stays valid
  return g.reshape(shape);
}

T channel_sum(const H& g) {
  const Shape& s = g.prim->shape();
  T r = api::reshape(g, {s[0], s[1], -1});
  return r.sum_dim(2).sum_dim(0).reshape(Shape{s[1]});
}

}  // namespace burn::autodiff
