// The DEFAULT ops of the reduce (full reductions, mean, max/min with indices, any/all, var, argsort, topk) group:
// composite bodies built from other ops of the table, so a backend that implements only the core ops gets them all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace burn {
using namespace detail;

namespace {

bool is_half(DType d) { return d == DType::F16 || d == DType::BF16; }

Prim flatten(Backend& b, Prim x) {
  const int64_t n = x->shape().num_elements();
  if (x->shape().rank() == 1) return x;
  return b.reshape(std::move(x), Shape{n});
}

// Slices covering all of `s` except [0, k) on `dim`.
Slices head_slices(const Shape& s, size_t dim, int64_t k) {
  Slices r(s.rank());
  for (size_t i = 0; i < s.rank(); ++i) r[i] = SliceRange{0, i == dim ? k : s[i], 1};
  return r;
}

}  // namespace

// ---- reduce ----------------------------------------------------------------------------------

// Full reductions run the dim reduction over a flat [n] view and return shape [1].
Prim Backend::sum(Prim x) { return sum_dim(flatten(*this, std::move(x)), 0); }

// Half types accumulate in f32 (as torch does) so a large n neither overflows the divisor nor
// rounds the sum; ints divide the integer sum with truncation.
Prim Backend::mean(Prim x) {
  const DType d = x->dtype();
  if (is_half(d)) return cast(mean(cast(std::move(x), DType::F32)), d);
  const int64_t n = x->shape().num_elements();
  return div_scalar(sum(std::move(x)), Scalar(n));
}

Prim Backend::mean_dim(Prim x, size_t dim) {
  shape_rules::check_dim(x->shape(), dim, "mean_dim");
  const DType d = x->dtype();
  if (is_half(d)) return cast(mean_dim(cast(std::move(x), DType::F32), dim), d);
  const int64_t n = x->shape()[dim];
  return div_scalar(sum_dim(std::move(x), dim), Scalar(n));
}

Prim Backend::prod(Prim x) { return prod_dim(flatten(*this, std::move(x)), 0); }

Prim Backend::max(Prim x) { return max_dim(flatten(*this, std::move(x)), 0); }

Prim Backend::min(Prim x) { return min_dim(flatten(*this, std::move(x)), 0); }

// The values are gathered at argmax's indices rather than taken from max_dim, so the pair always
// agrees (ties, NaN) whatever conventions a backend's two kernels have.
PrimPair Backend::max_dim_with_indices(Prim x, size_t dim) {
  shape_rules::reduce_dim(x->shape(), dim, true, "max_dim_with_indices");
  Prim idx = argmax(x, dim);
  Prim values = gather(std::move(x), dim, idx);
  return {std::move(values), std::move(idx)};
}

PrimPair Backend::min_dim_with_indices(Prim x, size_t dim) {
  shape_rules::reduce_dim(x->shape(), dim, true, "min_dim_with_indices");
  Prim idx = argmin(x, dim);
  Prim values = gather(std::move(x), dim, idx);
  return {std::move(values), std::move(idx)};
}

// any/all test "nonzero" on every dtype (NaN counts as nonzero, as in torch): count the nonzero
// (or zero) elements in i64 and compare the count with 0. An empty dim gives any = false,
// all = true.
Prim Backend::any(Prim x) { return any_dim(flatten(*this, std::move(x)), 0); }

Prim Backend::any_dim(Prim x, size_t dim) {
  shape_rules::check_dim(x->shape(), dim, "any_dim");
  Prim nonzero = cast(not_equal_elem(std::move(x), Scalar(int64_t{0})), DType::I64);
  return greater_elem(sum_dim(std::move(nonzero), dim), Scalar(int64_t{0}));
}

Prim Backend::all(Prim x) { return all_dim(flatten(*this, std::move(x)), 0); }

Prim Backend::all_dim(Prim x, size_t dim) {
  shape_rules::check_dim(x->shape(), dim, "all_dim");
  Prim zero = cast(equal_elem(std::move(x), Scalar(int64_t{0})), DType::I64);
  return equal_elem(sum_dim(std::move(zero), dim), Scalar(int64_t{0}));
}

// sum((x - mean)^2) / max(0, n - correction), like torch.var (a zero divisor gives inf or NaN).
// Half types compute in f32.
Prim Backend::var(Prim x, size_t dim, int64_t correction) {
  shape_rules::check_dim(x->shape(), dim, "var");
  require_float(x, "var");
  const DType d = x->dtype();
  if (is_half(d)) return cast(var(cast(std::move(x), DType::F32), dim, correction), d);
  const int64_t n = x->shape()[dim];
  const Shape shape = x->shape();
  Prim mu = expand(mean_dim(x, dim), shape);
  Prim sq = square(sub(std::move(x), std::move(mu)));
  const double divisor = static_cast<double>(std::max<int64_t>(0, n - correction));
  return div_scalar(sum_dim(std::move(sq), dim), Scalar(divisor));
}

Prim Backend::argsort(Prim x, size_t dim, bool descending, bool stable) {
  return sort(std::move(x), dim, descending, stable).second;
}

// A stable sort (largest first when `largest`) cut to its first k along dim; ties keep the
// lower index first and NaN counts as the largest value, as in sort.
PrimPair Backend::topk(Prim x, int64_t k, size_t dim, bool largest) {
  shape_rules::topk(x->shape(), k, dim);
  const int64_t n = x->shape()[dim];
  const Shape shape = x->shape();
  auto [values, indices] = sort(std::move(x), dim, largest, true);
  if (k == n) return {std::move(values), std::move(indices)};
  const Slices head = head_slices(shape, dim, k);
  return {slice(std::move(values), head), slice(std::move(indices), head)};
}

}  // namespace burn
