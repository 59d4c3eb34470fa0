// Default composite bodies of the pool module ops (max, average and adaptive pooling, and their backward).
// Every op builds a host table of the input positions feeding each output (and their weights) and
// applies it with select / select_add / max_dim_with_indices / scatter_add of `this`.
// The pool rules (shape_rules.hpp) check the shapes, normalise the options and give the output's shape.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

using namespace module_detail;

namespace {

// The taps of a pool whose options the pool rule normalised.
TapTable pool_table(const Shape& s, const PoolOptions& p, bool avg) {
  std::vector<DimTaps> dims;
  for (size_t i = 2; i < s.rank(); ++i) dims.push_back(pool_taps(s[i], i - 2, p, avg));
  return combine(dims, avg);
}

TapTable adaptive_table(const Shape& s, const Shape& out, bool avg) {
  std::vector<DimTaps> dims;
  for (size_t i = 2; i < s.rank(); ++i) dims.push_back(adaptive_taps(s[i], out[i], avg));
  return combine(dims, avg);
}

}  // namespace

Prim Backend::max_pool(Prim x, const PoolOptions& options) {
  return max_pool_with_indices(std::move(x), options).first;
}

PrimPair Backend::max_pool_with_indices(Prim x, const PoolOptions& options) {
  PoolOptions o = options;
  const Shape out = shape_rules::pool(x->shape(), o, true, "max_pool_with_indices");
  const TapTable t = pool_table(x->shape(), o, false);
  return gathered_max(*this, std::move(x), t, out);
}

Prim Backend::max_pool_backward(Prim x, Prim grad_out, Prim indices, const PoolOptions& options) {
  (void)options;  // the indices say where each gradient goes
  const Shape s = x->shape();
  const DType dt = x->dtype();
  x.reset();
  return scatter_by_indices(*this, s, dt, std::move(grad_out), std::move(indices));
}

Prim Backend::avg_pool(Prim x, const PoolOptions& options) {
  PoolOptions o = options;
  const Shape out = shape_rules::pool(x->shape(), o, false, "avg_pool");
  const TapTable t = pool_table(x->shape(), o, true);
  return weighted_gather(*this, std::move(x), t, out);
}

Prim Backend::avg_pool_backward(Prim x, Prim grad_out, const PoolOptions& options) {
  const Shape s = x->shape();
  x.reset();
  PoolOptions o = options;
  shape_rules::pool(s, o, false, "avg_pool_backward");
  const TapTable t = pool_table(s, o, true);
  return weighted_scatter(*this, s, std::move(grad_out), t);
}

Prim Backend::adaptive_avg_pool(Prim x, const Shape& output_size) {
  const Shape out = shape_rules::adaptive_pool(x->shape(), output_size.dims(), "adaptive_avg_pool");
  const TapTable t = adaptive_table(x->shape(), out, true);
  return weighted_gather(*this, std::move(x), t, out);
}

Prim Backend::adaptive_avg_pool_backward(Prim x, Prim grad_out) {
  const Shape s = x->shape();
  x.reset();
  const TapTable t = adaptive_table(s, grad_out->shape(), true);
  return weighted_scatter(*this, s, std::move(grad_out), t);
}

PrimPair Backend::adaptive_max_pool(Prim x, const Shape& output_size) {
  const Shape out = shape_rules::adaptive_pool(x->shape(), output_size.dims(), "adaptive_max_pool");
  const TapTable t = adaptive_table(x->shape(), out, false);
  return gathered_max(*this, std::move(x), t, out);
}

Prim Backend::adaptive_max_pool_backward(Prim x, Prim grad_out, Prim indices) {
  const Shape s = x->shape();
  const DType dt = x->dtype();
  x.reset();
  return scatter_by_indices(*this, s, dt, std::move(grad_out), std::move(indices));
}

}  // namespace burn
