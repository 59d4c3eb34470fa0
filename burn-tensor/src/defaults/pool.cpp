// Default composite bodies of the pool module ops (max, average and adaptive pooling, and their backward).
// Every op builds a host table of the input positions feeding each output (and their weights) and
// applies it with select / select_add / max_dim_with_indices / scatter_add of `this`.
// The options arrive normalised by the tensor API: one entry per spatial dim in every vector.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

using namespace module_detail;

namespace {

TapTable pool_table(const Shape& s, const PoolOptions& p, bool avg, std::vector<int64_t>& out_sp) {
  std::vector<DimTaps> dims;
  for (size_t i = 2; i < s.rank(); ++i) dims.push_back(pool_taps(s[i], i - 2, p, avg));
  out_sp.clear();
  for (const DimTaps& d : dims) out_sp.push_back(d.out);
  return combine(dims, avg);
}

TapTable adaptive_table(const Shape& s, const Shape& out, bool avg) {
  std::vector<DimTaps> dims;
  for (size_t i = 2; i < s.rank(); ++i) dims.push_back(adaptive_taps(s[i], out[i - 2], avg));
  return combine(dims, avg);
}

}  // namespace

Prim Backend::max_pool(Prim x, const PoolOptions& options) {
  return max_pool_with_indices(std::move(x), options).first;
}

PrimPair Backend::max_pool_with_indices(Prim x, const PoolOptions& options) {
  std::vector<int64_t> out_sp;
  const TapTable t = pool_table(x->shape(), options, false, out_sp);
  return gathered_max(*this, std::move(x), t, out_sp);
}

Prim Backend::max_pool_backward(Prim x, Prim grad_out, Prim indices, const PoolOptions& options) {
  (void)options;  // the indices say where each gradient goes
  const Shape s = x->shape();
  const DType dt = x->dtype();
  x.reset();
  return scatter_by_indices(*this, s, dt, std::move(grad_out), std::move(indices));
}

Prim Backend::avg_pool(Prim x, const PoolOptions& options) {
  std::vector<int64_t> out_sp;
  const TapTable t = pool_table(x->shape(), options, true, out_sp);
  return weighted_gather(*this, std::move(x), t, out_sp);
}

Prim Backend::avg_pool_backward(Prim x, Prim grad_out, const PoolOptions& options) {
  std::vector<int64_t> out_sp;
  const Shape s = x->shape();
  x.reset();
  const TapTable t = pool_table(s, options, true, out_sp);
  return weighted_scatter(*this, s, std::move(grad_out), t);
}

Prim Backend::adaptive_avg_pool(Prim x, const Shape& output_size) {
  const TapTable t = adaptive_table(x->shape(), output_size, true);
  return weighted_gather(*this, std::move(x), t, output_size.dims());
}

Prim Backend::adaptive_avg_pool_backward(Prim x, Prim grad_out) {
  const Shape s = x->shape();
  x.reset();
  const TapTable t = adaptive_table(s, Shape(spatial(grad_out->shape())), true);
  return weighted_scatter(*this, s, std::move(grad_out), t);
}

PrimPair Backend::adaptive_max_pool(Prim x, const Shape& output_size) {
  const TapTable t = adaptive_table(x->shape(), output_size, false);
  return gathered_max(*this, std::move(x), t, output_size.dims());
}

Prim Backend::adaptive_max_pool_backward(Prim x, Prim grad_out, Prim indices) {
  const Shape s = x->shape();
  const DType dt = x->dtype();
  x.reset();
  return scatter_by_indices(*this, s, dt, std::move(grad_out), std::move(indices));
}

}  // namespace burn
