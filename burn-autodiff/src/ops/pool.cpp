// Backward of the pool ops: the backend's own backward kernels on the step's device, so they run on
// any inner backend; max pools keep the argmax indices of the forward pass for it.
#include "burn/tensor/module.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

namespace {

// max_pool and max_pool_with_indices record the same node: the forward keeps the argmax indices (the
// second output), by which the backward routes the gradient.
Prims record_max_pool(AutodiffBackend& ad, OpId op, Prim x, const PoolOptions& options) {
  return ad.record(
      {op}, {std::move(x)},
      [options](Backend& b, Prims p) {
        auto [y, idx] = b.max_pool_with_indices(std::move(p[0]), options);
        return Prims{std::move(y), std::move(idx)};
      },
      [options](Step& s, const H& g) -> Hs {
        return {on_step(
            s, s.device()->max_pool_backward(shape_stand_in(s, 0).prim, g.prim, s.extra_output(1).prim, options))};
      });
}

}  // namespace

// Computed with indices even when only the values are asked for: the backward routes by them.
Prim AutodiffBackend::max_pool(Prim x, const PoolOptions& options) {
  if (!any_tracked({&x})) return UnwrapBackend::max_pool(std::move(x), options);
  return record_max_pool(*this, OpId::max_pool, std::move(x), options).at(0);
}

PrimPair AutodiffBackend::max_pool_with_indices(Prim x, const PoolOptions& options) {
  if (!any_tracked({&x})) return UnwrapBackend::max_pool_with_indices(std::move(x), options);
  Prims r = record_max_pool(*this, OpId::max_pool_with_indices, std::move(x), options);
  return {std::move(r.at(0)), std::move(r.at(1))};
}

Prim AutodiffBackend::avg_pool(Prim x, const PoolOptions& options) {
  return record1(
      {OpId::avg_pool}, {std::move(x)}, [options](Backend& b, Prims p) { return b.avg_pool(std::move(p[0]), options); },
      [options](Step& s, const H& g) -> Hs {
        return {on_step(s, s.device()->avg_pool_backward(shape_stand_in(s, 0).prim, g.prim, options))};
      });
}

Prim AutodiffBackend::adaptive_avg_pool(Prim x, const Shape& output_size) {
  return record1(
      {OpId::adaptive_avg_pool}, {std::move(x)},
      [output_size](Backend& b, Prims p) { return b.adaptive_avg_pool(std::move(p[0]), output_size); },
      [](Step& s, const H& g) -> Hs {
        return {on_step(s, s.device()->adaptive_avg_pool_backward(shape_stand_in(s, 0).prim, g.prim))};
      });
}

PrimPair AutodiffBackend::adaptive_max_pool(Prim x, const Shape& output_size) {
  if (!any_tracked({&x})) return UnwrapBackend::adaptive_max_pool(std::move(x), output_size);
  Prims r = record(
      {OpId::adaptive_max_pool}, {std::move(x)},
      [output_size](Backend& b, Prims p) {
        auto [y, idx] = b.adaptive_max_pool(std::move(p[0]), output_size);
        return Prims{std::move(y), std::move(idx)};
      },
      [](Step& s, const H& g) -> Hs {
        return {on_step(
            s, s.device()->adaptive_max_pool_backward(shape_stand_in(s, 0).prim, g.prim, s.extra_output(1).prim))};
      });
  return {std::move(r.at(0)), std::move(r.at(1))};
}

}  // namespace burn::autodiff
