// The DEFAULT ops of the float_math (hypot, asinh/acosh/atanh, recip, square, is_nan/is_inf/is_finite) group: composite
// bodies built from other ops of the table, so a backend that implements only the core ops gets them all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace burn {
using namespace detail;

// ---- float math ------------------------------------------------------------------------------

namespace {

// Past 2^28 the inverse hyperbolic functions are log(2x) to working precision (the next term, 1/(4x^2),
// is below 2^-58 of it) and x^2 would overflow f32 not far above, so the large branch takes that form.
constexpr double kLarge = 268435456.0;  // 2^28

// asinh(a) for a >= 0 (or NaN): log1p(a + a^2 / (1 + sqrt(1 + a^2))) up to 2^28, which has no
// cancellation near 0, and log(a) + ln 2 above. Each branch sees its input clamped to its own range so
// the unused one stays finite (its inf or NaN would otherwise reach the gradient as 0 * inf).
Prim asinh_nonneg(Backend& b, Prim a) {
  Prim as = b.clamp_max(a, Scalar(kLarge));
  Prim sq = b.square(as);
  Prim frac = b.div(sq, b.add_scalar(b.sqrt(b.add_scalar(sq, Scalar(1.0))), Scalar(1.0)));
  Prim small = b.log1p(b.add(std::move(as), std::move(frac)));
  Prim large = b.add_scalar(b.log(b.clamp_min(a, Scalar(kLarge))), Scalar(std::numbers::ln2));
  return b.mask_where(std::move(small), b.greater_elem(std::move(a), Scalar(kLarge)), std::move(large));
}

// 0.5 log1p(2a / (1 - a)) = atanh(a) for a >= 0: log1p keeps small a exact, and 1 - a is exact near 1.
Prim atanh_nonneg(Backend& b, Prim a) {
  Prim ratio = b.div(b.mul_scalar(a, Scalar(2.0)), b.add_scalar(b.neg(a), Scalar(1.0)));
  return b.mul_scalar(b.log1p(std::move(ratio)), Scalar(0.5));
}

// An odd function from its values on [0, inf): f(max(x, 0)) for x >= 0, -f(max(-x, 0)) for x < 0.
// Each half is evaluated at 0 where it is not used, so the gradient at x = 0 is f'(0), not abs's 0.
template <typename F>
Prim odd_from_nonneg(Backend& b, Prim x, F f) {
  Prim pos = f(b, b.clamp_min(x, Scalar(0.0)));
  Prim neg = b.neg(f(b, b.clamp_min(b.neg(x), Scalar(0.0))));
  return b.mask_where(std::move(pos), b.lower_elem(std::move(x), Scalar(0.0)), std::move(neg));
}

}  // namespace

// sqrt(lhs^2 + rhs^2) without overflow or underflow: both operands are divided by s = max(|lhs|, |rhs|)
// first (by 1 where s is 0 or inf). The result does not depend on s, so the gradient through s is zero
// up to rounding and ties in the max need no care. An infinite operand gives inf even beside a NaN, as
// C's hypot and torch.hypot.
Prim Backend::hypot(Prim lhs, Prim rhs) {
  require_float(lhs, "hypot");
  check_same_dtype(lhs, rhs, "hypot");
  Prim s = maximum(abs(lhs), abs(rhs));
  Prim degenerate = bool_or(equal_elem(s, Scalar(0.0)), is_inf(s));
  s = mask_fill(std::move(s), std::move(degenerate), Scalar(1.0));
  Prim sum = add(square(div(lhs, s)), square(div(rhs, s)));
  Prim h = mul(sqrt(std::move(sum)), std::move(s));
  Prim inf = bool_or(is_inf(std::move(lhs)), is_inf(std::move(rhs)));
  return mask_fill(std::move(h), std::move(inf), Scalar(std::numeric_limits<double>::infinity()));
}

Prim Backend::asinh(Prim x) {
  require_float(x, "asinh");
  return odd_from_nonneg(*this, std::move(x), asinh_nonneg);
}

// log1p(t + sqrt(t (t + 2))) with t = x - 1 (exact near 1) up to 2^28, log(x) + ln 2 above. x < 1 gives
// NaN (a negative square root, or log1p below -1), as torch.acosh.
Prim Backend::acosh(Prim x) {
  require_float(x, "acosh");
  Prim t = sub_scalar(clamp_max(x, Scalar(kLarge)), Scalar(1.0));
  Prim root = sqrt(mul(t, add_scalar(t, Scalar(2.0))));
  Prim small = log1p(add(std::move(t), std::move(root)));
  Prim large = add_scalar(log(clamp_min(x, Scalar(kLarge))), Scalar(std::numbers::ln2));
  return mask_where(std::move(small), greater_elem(std::move(x), Scalar(kLarge)), std::move(large));
}

// +-1 give +-inf and |x| > 1 NaN, as torch.atanh.
Prim Backend::atanh(Prim x) {
  require_float(x, "atanh");
  return odd_from_nonneg(*this, std::move(x), atanh_nonneg);
}

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

}  // namespace burn
