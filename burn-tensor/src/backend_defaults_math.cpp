// Default bodies of the DEFAULT-tier ops of the reduce, float_math and activation groups, composed
// only from other ops of `this`; a backend overrides one only to be faster. Values follow PyTorch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {
namespace {

void check_dim(const Prim& x, size_t dim, const char* op) {
  if (dim >= x->shape().rank()) {
    throw IndexError(op, "dim " + std::to_string(dim) + " out of range for shape " + x->shape().to_string());
  }
}

void require_float(const Prim& x, const char* op) {
  if (!is_float(x->dtype())) {
    throw DTypeError(op, "needs a float tensor, got " + std::string(dtype_name(x->dtype())));
  }
}

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
  check_dim(x, dim, "mean_dim");
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
  check_dim(x, dim, "max_dim_with_indices");
  Prim idx = argmax(x, dim);
  Prim values = gather(std::move(x), dim, idx);
  return {std::move(values), std::move(idx)};
}

PrimPair Backend::min_dim_with_indices(Prim x, size_t dim) {
  check_dim(x, dim, "min_dim_with_indices");
  Prim idx = argmin(x, dim);
  Prim values = gather(std::move(x), dim, idx);
  return {std::move(values), std::move(idx)};
}

// any/all test "nonzero" on every dtype (NaN counts as nonzero, as in torch): count the nonzero
// (or zero) elements in i64 and compare the count with 0. An empty dim gives any = false,
// all = true.
Prim Backend::any(Prim x) { return any_dim(flatten(*this, std::move(x)), 0); }

Prim Backend::any_dim(Prim x, size_t dim) {
  check_dim(x, dim, "any_dim");
  Prim nonzero = cast(not_equal_elem(std::move(x), Scalar(int64_t{0})), DType::I64);
  return greater_elem(sum_dim(std::move(nonzero), dim), Scalar(int64_t{0}));
}

Prim Backend::all(Prim x) { return all_dim(flatten(*this, std::move(x)), 0); }

Prim Backend::all_dim(Prim x, size_t dim) {
  check_dim(x, dim, "all_dim");
  Prim zero = cast(equal_elem(std::move(x), Scalar(int64_t{0})), DType::I64);
  return equal_elem(sum_dim(std::move(zero), dim), Scalar(int64_t{0}));
}

// sum((x - mean)^2) / max(0, n - correction), like torch.var (a zero divisor gives inf or NaN).
// Half types compute in f32.
Prim Backend::var(Prim x, size_t dim, int64_t correction) {
  check_dim(x, dim, "var");
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
  check_dim(x, dim, "topk");
  const int64_t n = x->shape()[dim];
  if (k < 0 || k > n) {
    throw IndexError("topk", "k = " + std::to_string(k) + " out of range for dim " + std::to_string(dim) +
                                 " of size " + std::to_string(n) + " (shape " + x->shape().to_string() + ")");
  }
  const Shape shape = x->shape();
  auto [values, indices] = sort(std::move(x), dim, largest, true);
  if (k == n) return {std::move(values), std::move(indices)};
  const Slices head = head_slices(shape, dim, k);
  return {slice(std::move(values), head), slice(std::move(indices), head)};
}

// ---- float math ------------------------------------------------------------------------------

// Float only: torch.reciprocal of an int tensor is a float tensor, which this op cannot return.
Prim Backend::recip(Prim x) {
  require_float(x, "recip");
  Prim one = full(Shape(std::vector<int64_t>(x->shape().rank(), 1)), Scalar(1.0), x->dtype());
  return div(std::move(one), std::move(x));
}

Prim Backend::square(Prim x) {
  Prim y = x;
  return mul(std::move(x), std::move(y));
}

// NaN is the one value not equal to itself; int and bool tensors are never NaN or infinite.
Prim Backend::is_nan(Prim x) {
  if (!is_float(x->dtype())) return full(x->shape(), Scalar(false), DType::Bool);
  Prim y = x;
  return not_equal(std::move(x), std::move(y));
}

Prim Backend::is_inf(Prim x) {
  if (!is_float(x->dtype())) return full(x->shape(), Scalar(false), DType::Bool);
  return equal_elem(abs(std::move(x)), Scalar(std::numeric_limits<double>::infinity()));
}

// |x| < inf is false for both inf and NaN.
Prim Backend::is_finite(Prim x) {
  if (!is_float(x->dtype())) return full(x->shape(), Scalar(true), DType::Bool);
  return lower_elem(abs(std::move(x)), Scalar(std::numeric_limits<double>::infinity()));
}

// ---- activations -----------------------------------------------------------------------------

// Only x < 0 is replaced, so NaN and -0.0 pass through as in torch.relu.
Prim Backend::relu(Prim x) {
  Prim negative = lower_elem(x, Scalar(int64_t{0}));
  return mask_fill(std::move(x), std::move(negative), Scalar(int64_t{0}));
}

Prim Backend::leaky_relu(Prim x, double negative_slope) {
  require_float(x, "leaky_relu");
  Prim negative = lower_elem(x, Scalar(int64_t{0}));
  Prim scaled = mul_scalar(x, Scalar(negative_slope));
  return mask_where(std::move(x), std::move(negative), std::move(scaled));
}

// x * 0.5 * (1 + erf(x / sqrt(2))), torch's exact GELU.
Prim Backend::gelu(Prim x) {
  require_float(x, "gelu");
  Prim cdf = add_scalar(erf(mul_scalar(x, Scalar(std::numbers::sqrt2 / 2.0))), Scalar(1.0));
  return mul(mul_scalar(std::move(x), Scalar(0.5)), std::move(cdf));
}

// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), torch's approximate = "tanh".
Prim Backend::gelu_tanh(Prim x) {
  require_float(x, "gelu_tanh");
  // 0.5 * (1 + tanh(z)) == sigmoid(2z); the stable sigmoid keeps large negative x at -0 where
  // 1 + tanh(z) would cancel to a few ulps of tanh's error.
  const double k_beta = std::numbers::sqrt2 * (2.0 / std::sqrt(std::numbers::pi)) * 0.5;  // sqrt(2/pi)
  Prim cube = mul(square(x), x);
  Prim inner = mul_scalar(add(x, mul_scalar(std::move(cube), Scalar(0.044715))), Scalar(2.0 * k_beta));
  return mul(std::move(x), sigmoid(std::move(inner)));
}

// Stable: with e = exp(-|x|) and s = 1 / (1 + e), sigmoid is s for x >= 0 and e * s for x < 0,
// so exp never overflows and tiny results for large negative x keep their precision.
Prim Backend::sigmoid(Prim x) {
  require_float(x, "sigmoid");
  Prim e = exp(neg(abs(x)));
  Prim s = recip(add_scalar(e, Scalar(1.0)));
  Prim small = mul(std::move(e), s);
  Prim negative = lower_elem(std::move(x), Scalar(int64_t{0}));
  return mask_where(std::move(s), std::move(negative), std::move(small));
}

// min(x, 0) - log1p(exp(-|x|)): no overflow for either sign.
Prim Backend::log_sigmoid(Prim x) {
  require_float(x, "log_sigmoid");
  Prim tail = log1p(exp(neg(abs(x))));
  return sub(clamp_max(std::move(x), Scalar(0.0)), std::move(tail));
}

Prim Backend::silu(Prim x) {
  require_float(x, "silu");
  Prim s = sigmoid(x);
  return mul(std::move(x), std::move(s));
}

// x * tanh(softplus(x)) with torch's softplus defaults (beta 1, threshold 20).
Prim Backend::mish(Prim x) {
  require_float(x, "mish");
  Prim t = tanh(softplus(x, 1.0, 20.0));
  return mul(std::move(x), std::move(t));
}

// torch: x where beta * x > threshold (linear regime), else log1p(exp(beta * x)) / beta.
Prim Backend::softplus(Prim x, double beta, double threshold) {
  require_float(x, "softplus");
  Prim bx = mul_scalar(x, Scalar(beta));
  Prim linear = greater_elem(bx, Scalar(threshold));
  Prim soft = div_scalar(log1p(exp(std::move(bx))), Scalar(beta));
  return mask_where(std::move(soft), std::move(linear), std::move(x));
}

Prim Backend::hard_sigmoid(Prim x, double alpha, double beta) {
  require_float(x, "hard_sigmoid");
  return clamp(add_scalar(mul_scalar(std::move(x), Scalar(alpha)), Scalar(beta)), Scalar(0.0), Scalar(1.0));
}

// torch: x for x > 0, else alpha * (exp(x) - 1); NaN takes the second branch and stays NaN.
Prim Backend::elu(Prim x, double alpha) {
  require_float(x, "elu");
  Prim positive = greater_elem(x, Scalar(int64_t{0}));
  Prim negative = mul_scalar(sub_scalar(exp(x), Scalar(1.0)), Scalar(alpha));
  return mask_where(std::move(negative), std::move(positive), std::move(x));
}

// torch's constants (Klambauer et al.).
Prim Backend::selu(Prim x) {
  require_float(x, "selu");
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return mul_scalar(elu(std::move(x), kAlpha), Scalar(kScale));
}

// Subtracting the max first keeps exp in range; a row of all -inf gives NaN, as in torch.
Prim Backend::softmax(Prim x, size_t dim) {
  check_dim(x, dim, "softmax");
  require_float(x, "softmax");
  Prim m = max_dim(x, dim);
  Prim e = exp(sub(std::move(x), std::move(m)));
  Prim total = sum_dim(e, dim);
  return div(std::move(e), std::move(total));
}

Prim Backend::log_softmax(Prim x, size_t dim) {
  check_dim(x, dim, "log_softmax");
  require_float(x, "log_softmax");
  Prim m = max_dim(x, dim);
  Prim shifted = sub(std::move(x), std::move(m));
  Prim lse = log(sum_dim(exp(shifted), dim));
  return sub(std::move(shifted), std::move(lse));
}

}  // namespace burn
