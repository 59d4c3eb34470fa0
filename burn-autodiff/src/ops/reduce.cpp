// Backward of the reductions: sums and means spread the gradient back over the reduced elements;
// products use exclusive products (exact with zeros); max/min, sort and topk route the gradient to
// the selected elements through their indices; cumsum/cumprod run reversed scans and cummax/cummin
// credit the element that produced each running value.
#include <algorithm>

#include "burn/tensor/shape_rules.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

Prim AutodiffBackend::sum(Prim x) {
  return record_unary(*this, OpId::sum, std::move(x), &Backend::sum, false, false, [](Step& s, const H& g) -> Hs {
    const Shape& shape = s.input_shape(0);
    return {T(g).reshape(Shape(std::vector<int64_t>(shape.rank(), 1))).expand(shape)};
  });
}

Prim AutodiffBackend::mean(Prim x) {
  return record_unary(*this, OpId::mean, std::move(x), &Backend::mean, false, false, [](Step& s, const H& g) -> Hs {
    const Shape& shape = s.input_shape(0);
    const double n = static_cast<double>(shape.num_elements());
    return {(T(g) / n).reshape(Shape(std::vector<int64_t>(shape.rank(), 1))).expand(shape)};
  });
}

Prim AutodiffBackend::sum_dim(Prim x, size_t dim) {
  return record1(
      {OpId::sum_dim}, {std::move(x)}, [dim](Backend& b, Prims p) { return b.sum_dim(std::move(p[0]), dim); },
      [](Step& s, const H& g) -> Hs { return {T(g).expand(s.input_shape(0))}; });
}

Prim AutodiffBackend::mean_dim(Prim x, size_t dim) {
  return record1(
      {OpId::mean_dim}, {std::move(x)}, [dim](Backend& b, Prims p) { return b.mean_dim(std::move(p[0]), dim); },
      [dim](Step& s, const H& g) -> Hs {
        const Shape& shape = s.input_shape(0);
        return {(T(g) / static_cast<double>(shape[dim])).expand(shape)};
      });
}

// ---- products, extrema, variance, scans, sort and topk ----

namespace {

T cum(OpId op, const T& x, size_t dim) { return api::reduce_dim(op, x.h, sdim(dim)); }
T flipped(const T& x, size_t dim) { return api::flip(x.h, {sdim(dim)}); }

// sum_{j >= i} g_j along dim: the adjoint of cumsum.
T reverse_cumsum(const T& g, size_t dim) { return flipped(cum(OpId::cumsum, flipped(g, dim), dim), dim); }

// x moved one step along dim, `fill` entering at the front and the last element dropped:
// an inclusive scan becomes an exclusive one.
T shift_in(const Step& s, const T& x, size_t dim, double fill) {
  const int64_t n = x.shape()[dim];
  T head = filled(s, shape_rules::reduce_dim(x.shape(), dim, false, "prod_dim"), fill, x.dtype());
  if (n <= 1) return n == 1 ? head : x;
  std::vector<Slice> body(dim + 1);
  body[dim] = Slice::range(0, n - 1);
  return api::cat({head.h, api::slice(x.h, body)}, sdim(dim));
}

// The product of every other element of each lane: exclusive prefix products times exclusive suffix
// products, so it is exact with any number of zeros and needs no division.
T product_of_others(const Step& s, const T& x, size_t dim) {
  T before = shift_in(s, cum(OpId::cumprod, x, dim), dim, 1.0);
  T after = flipped(shift_in(s, cum(OpId::cumprod, flipped(x, dim), dim), dim, 1.0), dim);
  return before * after;
}

// The gradient of a lane reduction that picked one element per lane: g goes to the picked index.
T scatter_to(const Step& s, const Shape& shape, DType dtype, size_t dim, const H& indices, const H& g) {
  return api::scatter_add(zeros(s, shape, dtype).h, sdim(dim), indices, g);
}

// For a running max/min y of x: the index that produced each y, the last j <= i with x_j == y_j
// (a tie with the running value moves it, as torch.cummax/cummin's indices do).
H scan_source(const Step& s, const T& x, const T& y, size_t dim) {
  const Shape& shape = x.shape();
  std::vector<int64_t> lane(shape.rank(), 1);
  lane[dim] = shape[dim];
  H pos = api::reshape(api::arange(s.device(), 0, shape[dim], 1, DType::I64), lane);
  H took = api::cast(api::compare(OpId::equal, x.h, y.h), DType::I64);
  return api::reduce_dim(OpId::cummax, api::mul(took, pos), sdim(dim));
}

// Records an op whose forward returns (values, indices) and whose gradient scatters g to the
// indices (max/min over a dim, sort, topk).
using PairFn = std::function<PrimPair(Backend&, Prim)>;
PrimPair record_picking(AutodiffBackend& ad, OpId op, Prim x, size_t dim, PairFn fn) {
  Prims out = ad.record(
      {op}, {std::move(x)},
      [fn = std::move(fn)](Backend& b, Prims p) {
        PrimPair r = fn(b, std::move(p[0]));
        return Prims{std::move(r.first), std::move(r.second)};
      },
      [dim](Step& s, const H& g) -> Hs {
        return {scatter_to(s, s.input_shape(0), s.input_dtype(0), dim, s.extra_output(1), g)};
      });
  return {std::move(out.at(0)), std::move(out.at(1))};
}

// max/min over everything: the gradient is shared evenly by the elements equal to the result
// (PyTorch's max() and min() without a dim).
Hs share_over_ties(Step& s, const H& g) {
  T x = s.input(0);
  T y = T(s.output()).reshape(Shape(std::vector<int64_t>(x.rank(), 1)));
  T hit = as_float(api::compare(OpId::equal, x.h, y.h), x.dtype());
  T count = api::reduce_all(OpId::sum, hit.h);
  return {hit * (T(g) / count).reshape(y.shape())};
}

}  // namespace

Prim AutodiffBackend::prod(Prim x) {
  return record_unary(*this, OpId::prod, std::move(x), &Backend::prod, true, false, [](Step& s, const H& g) -> Hs {
    T x = s.input(0);
    const Shape& shape = x.shape();
    T flat = x.reshape(Shape{shape.num_elements()});
    return {(product_of_others(s, flat, 0) * g).reshape(shape)};
  });
}

Prim AutodiffBackend::prod_dim(Prim x, size_t dim) {
  return record1(
      {OpId::prod_dim, in(0)}, {std::move(x)}, [dim](Backend& b, Prims p) { return b.prod_dim(std::move(p[0]), dim); },
      [dim](Step& s, const H& g) -> Hs { return {product_of_others(s, s.input(0), dim) * g}; });
}

Prim AutodiffBackend::max(Prim x) {
  return record_unary(*this, OpId::max, std::move(x), &Backend::max, true, true, share_over_ties);
}

Prim AutodiffBackend::min(Prim x) {
  return record_unary(*this, OpId::min, std::move(x), &Backend::min, true, true, share_over_ties);
}

// max/min over a dim route the gradient to the index the forward picked (PyTorch's max(dim)): the
// forward runs the with-indices op and keeps the indices, which are 1/n of the input's size.
Prim AutodiffBackend::max_dim(Prim x, size_t dim) {
  if (!any_tracked({&x})) return UnwrapBackend::max_dim(std::move(x), dim);
  return record_picking(*this, OpId::max_dim, std::move(x), dim,
                        [dim](Backend& b, Prim p) { return b.max_dim_with_indices(std::move(p), dim); })
      .first;
}

Prim AutodiffBackend::min_dim(Prim x, size_t dim) {
  if (!any_tracked({&x})) return UnwrapBackend::min_dim(std::move(x), dim);
  return record_picking(*this, OpId::min_dim, std::move(x), dim,
                        [dim](Backend& b, Prim p) { return b.min_dim_with_indices(std::move(p), dim); })
      .first;
}

PrimPair AutodiffBackend::max_dim_with_indices(Prim x, size_t dim) {
  return record_picking(*this, OpId::max_dim_with_indices, std::move(x), dim,
                        [dim](Backend& b, Prim p) { return b.max_dim_with_indices(std::move(p), dim); });
}

PrimPair AutodiffBackend::min_dim_with_indices(Prim x, size_t dim) {
  return record_picking(*this, OpId::min_dim_with_indices, std::move(x), dim,
                        [dim](Backend& b, Prim p) { return b.min_dim_with_indices(std::move(p), dim); });
}

PrimPair AutodiffBackend::sort(Prim x, size_t dim, bool descending, bool stable) {
  return record_picking(*this, OpId::sort, std::move(x), dim, [dim, descending, stable](Backend& b, Prim p) {
    return b.sort(std::move(p), dim, descending, stable);
  });
}

PrimPair AutodiffBackend::topk(Prim x, int64_t k, size_t dim, bool largest) {
  return record_picking(*this, OpId::topk, std::move(x), dim,
                        [k, dim, largest](Backend& b, Prim p) { return b.topk(std::move(p), k, dim, largest); });
}

// d var / dx = 2 (x - mean) / max(0, n - correction); a zero divisor gives inf/NaN, like the forward.
Prim AutodiffBackend::var(Prim x, size_t dim, int64_t correction) {
  return record1(
      {OpId::var, in(0)}, {std::move(x)},
      [dim, correction](Backend& b, Prims p) { return b.var(std::move(p[0]), dim, correction); },
      [dim, correction](Step& s, const H& g) -> Hs {
        T x = s.input(0);
        T mu = api::reduce_dim(OpId::mean_dim, x.h, sdim(dim));
        const double divisor = static_cast<double>(std::max<int64_t>(0, x.shape()[dim] - correction));
        return {T(g) * (x - mu) * (2.0 / divisor)};
      });
}

Prim AutodiffBackend::cumsum(Prim x, size_t dim) {
  return record1(
      {OpId::cumsum}, {std::move(x)}, [dim](Backend& b, Prims p) { return b.cumsum(std::move(p[0]), dim); },
      [dim](Step&, const H& g) -> Hs { return {reverse_cumsum(g, dim)}; });
}

// With y = cumprod(x), dL/dx_j = sum_{i >= j} g_i y_i / x_j wherever no zero precedes or is x_j
// (PyTorch's formula; it divides by x_j there). At a lane's first zero z the terms are
// prod_{k < z} x_k prod_{z < k <= i} x_k: the cumprod of x with that zero set to 1. After the first
// zero every product holds it, so the gradient is 0. Exact for any number of zeros.
Prim AutodiffBackend::cumprod(Prim x, size_t dim) {
  return record1(
      {OpId::cumprod, in(0), true}, {std::move(x)},
      [dim](Backend& b, Prims p) { return b.cumprod(std::move(p[0]), dim); },
      [dim](Step& s, const H& g) -> Hs {
        T x = s.input(0), y = s.output();
        T zero = as_float(api::compare_elem(OpId::equal_elem, x.h, 0.0), x.dtype());
        T clear = cum(OpId::cumprod, 1.0 - zero, dim);  // 1 until a lane's first zero
        T first_zero = shift_in(s, clear, dim, 1.0) - clear;
        T before = clear * reverse_cumsum(T(g) * y, dim) / (x + zero);
        T at_zero = first_zero * reverse_cumsum(T(g) * cum(OpId::cumprod, x + first_zero, dim), dim);
        return {before + at_zero};
      });
}

// Each running max/min gets its gradient from the element that produced it.
Prim AutodiffBackend::cummax(Prim x, size_t dim) {
  return record1(
      {OpId::cummax, in(0), true}, {std::move(x)},
      [dim](Backend& b, Prims p) { return b.cummax(std::move(p[0]), dim); },
      [dim](Step& s, const H& g) -> Hs {
        T x = s.input(0);
        return {scatter_to(s, x.shape(), x.dtype(), dim, scan_source(s, x, s.output(), dim), g)};
      });
}

Prim AutodiffBackend::cummin(Prim x, size_t dim) {
  return record1(
      {OpId::cummin, in(0), true}, {std::move(x)},
      [dim](Backend& b, Prims p) { return b.cummin(std::move(p[0]), dim); },
      [dim](Step& s, const H& g) -> Hs {
        T x = s.input(0);
        return {scatter_to(s, x.shape(), x.dtype(), dim, scan_source(s, x, s.output(), dim), g)};
      });
}

}  // namespace burn::autodiff
