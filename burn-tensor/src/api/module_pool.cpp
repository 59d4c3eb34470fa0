// Tensor API: pooling, resampling (interpolate, pixel shuffle) and embedding module ops. Checks every
// argument, normalises per-spatial-dim options to full-length vectors, then calls the backend op.
#include <algorithm>
#include <string>

#include "burn/tensor/module.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

std::string vec_text(const std::vector<int64_t>& v) { return Shape(v).to_string(); }

// Spatial rank of an NC<spatial> input with 1 to 3 spatial dims.
size_t spatial_rank(const H& x, const char* op) {
  const size_t r = rank(x);
  if (r < 3 || r > 5)
    throw ShapeError(op, "expected an input of rank 3, 4 or 5 (N, C, spatial...), got shape " +
                             shape(x).to_string());
  return r - 2;
}

// Empty -> fill, one value -> broadcast, else one value per spatial dim.
std::vector<int64_t> per_dim(const std::vector<int64_t>& v, size_t n, int64_t fill, const char* op,
                             const char* what) {
  if (v.empty()) return std::vector<int64_t>(n, fill);
  if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
  if (v.size() != n)
    throw ShapeError(op, std::string(what) + " " + vec_text(v) + " needs 1 or " + std::to_string(n) +
                             " values for " + std::to_string(n) + " spatial dims");
  return v;
}

void require_positive(const std::vector<int64_t>& v, const char* op, const char* what) {
  for (int64_t e : v)
    if (e <= 0) throw ValueError(op, std::string(what) + " must be positive, got " + vec_text(v));
}
void require_non_negative(const std::vector<int64_t>& v, const char* op, const char* what) {
  for (int64_t e : v)
    if (e < 0) throw ValueError(op, std::string(what) + " must be non-negative, got " + vec_text(v));
}

void require_nonempty_planes(const H& x, const char* op) {
  for (int64_t d : shape(x))
    if (d <= 0) throw ShapeError(op, "input shape " + shape(x).to_string() + " has an empty dim");
}

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
      if (d != 1) throw ValueError(op, "average pools take no dilation, got " + vec_text(p.dilation));
  for (size_t i = 0; i < n; ++i) {
    const int64_t eff = p.dilation[i] * (p.kernel[i] - 1) + 1;
    if (p.padding[i] > eff / 2 || p.padding_end[i] > eff / 2)
      throw ValueError(op, "padding " + vec_text(p.padding) + " / " + vec_text(p.padding_end) +
                               " must be at most half of the (dilated) kernel " + vec_text(p.kernel));
    const int64_t in = shape(x)[i + 2] + p.padding[i] + p.padding_end[i];
    if (eff > in)
      throw ShapeError(op, "kernel " + vec_text(p.kernel) + " (dilation " + vec_text(p.dilation) +
                               ") is larger than the padded input " + shape(x).to_string());
  }
  return p;
}

std::vector<int64_t> checked_output_size(const H& x, const std::vector<int64_t>& size, const char* op) {
  const size_t n = spatial_rank(x, op);
  if (size.size() != n)
    throw ShapeError(op, "output size " + vec_text(size) + " needs " + std::to_string(n) + " values for input " +
                             shape(x).to_string());
  for (int64_t s : size)
    if (s <= 0) throw ValueError(op, "output size must be positive, got " + vec_text(size));
  return size;
}

// grad_out must match the forward output's shape: same N, C and the given spatial dims.
void check_grad(const H& x, const H& g, const std::vector<int64_t>& spatial_out, const char* op) {
  same_device(x, g, op);
  same_dtype(x, g, op);
  std::vector<int64_t> want{shape(x)[0], shape(x)[1]};
  want.insert(want.end(), spatial_out.begin(), spatial_out.end());
  if (shape(g) != Shape(want))
    throw ShapeError(op, "grad_out has shape " + shape(g).to_string() + ", expected " + Shape(want).to_string());
}

void check_indices(const H& x, const H& g, const H& idx, const char* op) {
  same_device(x, idx, op);
  require_index(idx, op);
  if (shape(idx) != shape(g))
    throw ShapeError(op, "indices have shape " + shape(idx).to_string() + ", grad_out " + shape(g).to_string());
}

// Output length of a pool along one dim (PyTorch's rule, padding_end as the after-padding).
int64_t pool_output_len(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d, bool ceil_mode) {
  const int64_t span = in + pb + pe - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  // the last window must start inside the input or the leading padding
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

std::vector<int64_t> pool_out_spatial(const H& x, const PoolOptions& p, const char* op) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < p.kernel.size(); ++i) {
    const int64_t o = pool_output_len(shape(x)[i + 2], p.kernel[i], p.stride[i], p.padding[i], p.padding_end[i],
                                      p.dilation[i], p.ceil_mode);
    if (o <= 0) throw ShapeError(op, "input " + shape(x).to_string() + " gives an empty output");
    out.push_back(o);
  }
  return out;
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
  check_grad(x, grad_out, pool_out_spatial(x, p, "max_pool_backward"), "max_pool_backward");
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
  check_grad(x, grad_out, pool_out_spatial(x, p, "avg_pool_backward"), "avg_pool_backward");
  return with(x, be(x, "avg_pool_backward").avg_pool_backward(std::move(x.prim), grad_out.prim, p));
}

H adaptive_avg_pool(H x, const std::vector<int64_t>& output_size) {
  const char* op = "adaptive_avg_pool";
  be(x, op);
  require_float(x, op);
  require_nonempty_planes(x, op);
  Shape out(checked_output_size(x, output_size, op));
  return with(x, be(x, op).adaptive_avg_pool(std::move(x.prim), out));
}

H adaptive_avg_pool_backward(H x, const H& grad_out) {
  const char* op = "adaptive_avg_pool_backward";
  be(x, op);
  require_float(x, op);
  spatial_rank(x, op);
  require_nonempty_planes(x, op);
  if (rank(grad_out) != rank(x))
    throw ShapeError(op, "grad_out " + shape(grad_out).to_string() + " and input " + shape(x).to_string() +
                             " differ in rank");
  std::vector<int64_t> sp(shape(grad_out).begin() + 2, shape(grad_out).end());
  checked_output_size(x, sp, op);
  check_grad(x, grad_out, sp, op);
  return with(x, be(x, op).adaptive_avg_pool_backward(std::move(x.prim), grad_out.prim));
}

std::pair<H, H> adaptive_max_pool(H x, const std::vector<int64_t>& output_size) {
  const char* op = "adaptive_max_pool";
  be(x, op);
  require_float(x, op);
  require_nonempty_planes(x, op);
  Shape out(checked_output_size(x, output_size, op));
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
    throw ShapeError(op, "grad_out " + shape(grad_out).to_string() + " and input " + shape(x).to_string() +
                             " differ in rank");
  std::vector<int64_t> sp(shape(grad_out).begin() + 2, shape(grad_out).end());
  checked_output_size(x, sp, op);
  check_grad(x, grad_out, sp, op);
  check_indices(x, grad_out, indices, op);
  return with(x, be(x, op).adaptive_max_pool_backward(std::move(x.prim), grad_out.prim, indices.prim));
}

// ---------------------------------------------------------------------------- resampling

namespace {
void check_interpolate(const H& x, const std::vector<int64_t>& output_size, const InterpolateOptions& o,
                       const char* op) {
  be(x, op);
  require_float(x, op);
  const size_t n = spatial_rank(x, op);
  require_nonempty_planes(x, op);
  checked_output_size(x, output_size, op);
  if (o.mode == InterpolateMode::Cubic && n == 3)
    throw Unsupported(op, "cubic interpolation takes 1 or 2 spatial dims (as PyTorch), got input " +
                              shape(x).to_string());
}
}  // namespace

H interpolate(H x, const std::vector<int64_t>& output_size, const InterpolateOptions& options) {
  check_interpolate(x, output_size, options, "interpolate");
  return with(x, be(x, "interpolate").interpolate(std::move(x.prim), Shape(output_size), options));
}

H interpolate_backward(H x, const H& grad_out, const std::vector<int64_t>& output_size,
                       const InterpolateOptions& options) {
  const char* op = "interpolate_backward";
  check_interpolate(x, output_size, options, op);
  check_grad(x, grad_out, output_size, op);
  return with(x, be(x, op).interpolate_backward(std::move(x.prim), grad_out.prim, Shape(output_size), options));
}

H pixel_shuffle(H x, int64_t factor) {
  const char* op = "pixel_shuffle";
  be(x, op);
  if (factor <= 0) throw ValueError(op, "factor must be positive, got " + std::to_string(factor));
  if (rank(x) < 3) throw ShapeError(op, "expected (*, C, H, W), got shape " + shape(x).to_string());
  const int64_t c = shape(x)[rank(x) - 3];
  if (c % (factor * factor) != 0)
    throw ShapeError(op, "channels " + std::to_string(c) + " of " + shape(x).to_string() +
                             " are not divisible by factor^2 = " + std::to_string(factor * factor));
  return with(x, be(x, op).pixel_shuffle(std::move(x.prim), factor));
}

H pixel_unshuffle(H x, int64_t factor) {
  const char* op = "pixel_unshuffle";
  be(x, op);
  if (factor <= 0) throw ValueError(op, "factor must be positive, got " + std::to_string(factor));
  if (rank(x) < 3) throw ShapeError(op, "expected (*, C, H, W), got shape " + shape(x).to_string());
  const int64_t h = shape(x)[rank(x) - 2], w = shape(x)[rank(x) - 1];
  if (h % factor != 0 || w % factor != 0)
    throw ShapeError(op, "height and width of " + shape(x).to_string() + " are not divisible by factor " +
                             std::to_string(factor));
  return with(x, be(x, op).pixel_unshuffle(std::move(x.prim), factor));
}

// ---------------------------------------------------------------------------- embedding

H embedding(H weight, const H& indices) {
  const char* op = "embedding";
  be(weight, op);
  same_device(weight, indices, op);
  require_index(indices, op);
  if (rank(weight) != 2) throw ShapeError(op, "weight must be [num_embeddings, dim], got " + shape(weight).to_string());
  if (is_bool(weight.prim->dtype())) throw DTypeError(op, "weight must be numeric, got bool");
  return with(weight, be(weight, op).embedding(std::move(weight.prim), indices.prim));
}

H embedding_backward(H weight, const H& grad_out, const H& indices) {
  const char* op = "embedding_backward";
  be(weight, op);
  same_device(weight, grad_out, op);
  same_device(weight, indices, op);
  require_index(indices, op);
  require_float(weight, op);
  same_dtype(weight, grad_out, op);
  if (rank(weight) != 2) throw ShapeError(op, "weight must be [num_embeddings, dim], got " + shape(weight).to_string());
  std::vector<int64_t> want = shape(indices).dims();
  want.push_back(shape(weight)[1]);
  if (shape(grad_out) != Shape(want))
    throw ShapeError(op, "grad_out has shape " + shape(grad_out).to_string() + ", expected " + Shape(want).to_string());
  return with(weight, be(weight, op).embedding_backward(std::move(weight.prim), grad_out.prim, indices.prim));
}

}  // namespace burn::api
