// Tensor API, pool group: max, average and adaptive pooling over 1 to 3 spatial dims, and their
// backward ops. Checks every argument, normalises per-spatial-dim options, then calls the backend op.
#include <algorithm>
#include <string>

#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/module.hpp"
#include "module_checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

// Normalises and checks pool options; `is_max` allows dilation. Returns the options the backend gets.
PoolOptions normalise_pool(const H& x, const PoolOptions& o, bool is_max, const char* op) {
  be(x, op);
  require_float(x, op);
  const size_t n = spatial_rank(x, op);
  require_nonempty_planes(x, op);
  if (o.kernel.empty()) throw ValueError(op, "kernel size is required");
  PoolOptions p = o;
  p.kernel = per_dim(o.kernel, n, 1, op, "kernel");
  require_positive(p.kernel, op, "kernel");
  p.stride = o.stride.empty() ? p.kernel : per_dim(o.stride, n, 1, op, "stride");
  require_positive(p.stride, op, "stride");
  p.padding = per_dim(o.padding, n, 0, op, "padding");
  require_non_negative(p.padding, op, "padding");
  p.padding_end = o.padding_end.empty() ? p.padding : per_dim(o.padding_end, n, 0, op, "padding_end");
  require_non_negative(p.padding_end, op, "padding_end");
  p.dilation = per_dim(o.dilation, n, 1, op, "dilation");
  require_positive(p.dilation, op, "dilation");
  if (!is_max)
    for (int64_t d : p.dilation)
      if (d != 1) throw ValueError(op, "average pools take no dilation, got " + dims_text(p.dilation));
  for (size_t i = 0; i < n; ++i) {
    const int64_t eff = dilated_extent(p.dilation[i], p.kernel[i], op);
    if (p.padding[i] > eff / 2 || p.padding_end[i] > eff / 2)
      throw ValueError(op, "padding " + dims_text(p.padding) + " / " + dims_text(p.padding_end) +
                               " must be at most half of the (dilated) kernel " + dims_text(p.kernel));
    const int64_t in = checked_add(shape(x)[i + 2], checked_add(p.padding[i], p.padding_end[i], op), op);
    if (eff > in)
      throw ShapeError(op, "kernel " + dims_text(p.kernel) + " (dilation " + dims_text(p.dilation) +
                               ") is larger than the padded input " + shape(x).to_string());
  }
  return p;
}

void check_indices(const H& x, const H& g, const H& idx, const char* op) {
  same_device(x, idx, op);
  require_index(idx, op);
  if (shape(idx) != shape(g))
    throw ShapeError(op, "indices have shape " + shape(idx).to_string() + ", grad_out " + shape(g).to_string());
}

std::vector<int64_t> pool_out_spatial(const H& x, const PoolOptions& p, const char* op) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < p.kernel.size(); ++i) {
    const int64_t o = module_detail::pool_out_len(shape(x)[i + 2], p.kernel[i], p.stride[i], p.padding[i],
                                                  p.padding_end[i], p.dilation[i], p.ceil_mode);
    if (o <= 0) throw ShapeError(op, "input " + shape(x).to_string() + " gives an empty output");
    out.push_back(o);
  }
  check_output(nc_with(x, out), x, op);
  return out;
}

// Adaptive windows are [o * in / out, ((o + 1) * in + out - 1) / out): that must fit int64.
void check_adaptive(const H& x, const std::vector<int64_t>& out, const char* op) {
  for (size_t i = 0; i < out.size(); ++i)
    checked_mul(checked_add(out[i], 1, op), checked_add(shape(x)[i + 2], 1, op), op);
}

}  // namespace

// ---------------------------------------------------------------------------- pooling

H max_pool(H x, const PoolOptions& options) {
  PoolOptions p = normalise_pool(x, options, true, "max_pool");
  pool_out_spatial(x, p, "max_pool");
  return with(x, be(x, "max_pool").max_pool(std::move(x.prim), p));
}

std::pair<H, H> max_pool_with_indices(H x, const PoolOptions& options) {
  PoolOptions p = normalise_pool(x, options, true, "max_pool_with_indices");
  pool_out_spatial(x, p, "max_pool_with_indices");
  H like = x;
  auto [v, i] = be(x, "max_pool_with_indices").max_pool_with_indices(std::move(x.prim), p);
  return {with(like, std::move(v)), with(like, std::move(i))};
}

H max_pool_backward(H x, const H& grad_out, const H& indices, const PoolOptions& options) {
  PoolOptions p = normalise_pool(x, options, true, "max_pool_backward");
  check_grad_out(x, grad_out, nc_with(x, pool_out_spatial(x, p, "max_pool_backward")), "max_pool_backward");
  check_indices(x, grad_out, indices, "max_pool_backward");
  return with(x, be(x, "max_pool_backward").max_pool_backward(std::move(x.prim), grad_out.prim, indices.prim, p));
}

H avg_pool(H x, const PoolOptions& options) {
  PoolOptions p = normalise_pool(x, options, false, "avg_pool");
  pool_out_spatial(x, p, "avg_pool");
  return with(x, be(x, "avg_pool").avg_pool(std::move(x.prim), p));
}

H avg_pool_backward(H x, const H& grad_out, const PoolOptions& options) {
  PoolOptions p = normalise_pool(x, options, false, "avg_pool_backward");
  check_grad_out(x, grad_out, nc_with(x, pool_out_spatial(x, p, "avg_pool_backward")), "avg_pool_backward");
  return with(x, be(x, "avg_pool_backward").avg_pool_backward(std::move(x.prim), grad_out.prim, p));
}

H adaptive_avg_pool(H x, const std::vector<int64_t>& output_size) {
  const char* op = "adaptive_avg_pool";
  be(x, op);
  require_float(x, op);
  require_nonempty_planes(x, op);
  Shape out(checked_output_size(x, output_size, op));
  check_adaptive(x, out.dims(), op);
  return with(x, be(x, op).adaptive_avg_pool(std::move(x.prim), out));
}

H adaptive_avg_pool_backward(H x, const H& grad_out) {
  const char* op = "adaptive_avg_pool_backward";
  be(x, op);
  require_float(x, op);
  spatial_rank(x, op);
  require_nonempty_planes(x, op);
  if (rank(grad_out) != rank(x))
    throw ShapeError(
        op, "grad_out " + shape(grad_out).to_string() + " and input " + shape(x).to_string() + " differ in rank");
  std::vector<int64_t> sp(shape(grad_out).begin() + 2, shape(grad_out).end());
  checked_output_size(x, sp, op);
  check_adaptive(x, sp, op);
  check_grad_out(x, grad_out, nc_with(x, sp), op);
  return with(x, be(x, op).adaptive_avg_pool_backward(std::move(x.prim), grad_out.prim));
}

std::pair<H, H> adaptive_max_pool(H x, const std::vector<int64_t>& output_size) {
  const char* op = "adaptive_max_pool";
  be(x, op);
  require_float(x, op);
  require_nonempty_planes(x, op);
  Shape out(checked_output_size(x, output_size, op));
  check_adaptive(x, out.dims(), op);
  H like = x;
  auto [v, i] = be(x, op).adaptive_max_pool(std::move(x.prim), out);
  return {with(like, std::move(v)), with(like, std::move(i))};
}

H adaptive_max_pool_backward(H x, const H& grad_out, const H& indices) {
  const char* op = "adaptive_max_pool_backward";
  be(x, op);
  require_float(x, op);
  spatial_rank(x, op);
  if (rank(grad_out) != rank(x))
    throw ShapeError(
        op, "grad_out " + shape(grad_out).to_string() + " and input " + shape(x).to_string() + " differ in rank");
  std::vector<int64_t> sp(shape(grad_out).begin() + 2, shape(grad_out).end());
  checked_output_size(x, sp, op);
  check_adaptive(x, sp, op);
  check_grad_out(x, grad_out, nc_with(x, sp), op);
  check_indices(x, grad_out, indices, op);
  return with(x, be(x, op).adaptive_max_pool_backward(std::move(x.prim), grad_out.prim, indices.prim));
}

}  // namespace burn::api
