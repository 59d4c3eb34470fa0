// The DEFAULT ops of the numeric (scalar forms, fmod, maximum/minimum, neg, sign, clamps) group: composite bodies built
// from other ops of the table, so a backend that implements only the core ops gets them all.
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

// ---- numeric ---------------------------------------------------------------------------------

// The scalar becomes a [1, .., 1] tensor of x's dtype (see scalar_as for int tensors) that the
// binary op broadcasts.
Prim Backend::add_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "add_scalar");
  return add(std::move(lhs), std::move(r));
}

Prim Backend::sub_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "sub_scalar");
  return sub(std::move(lhs), std::move(r));
}

Prim Backend::mul_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "mul_scalar");
  return mul(std::move(lhs), std::move(r));
}

Prim Backend::div_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "div_scalar");
  return div(std::move(lhs), std::move(r));
}

Prim Backend::remainder_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "remainder_scalar");
  return remainder(std::move(lhs), std::move(r));
}

// C's fmod, the remainder of truncating division with the sign of the dividend (torch.fmod).
// Ints: lhs - div(lhs, rhs) * rhs, exact (div truncates and throws on a zero divisor; wrapping keeps
// INT_MIN fmod -1 at 0). Floats: from torch's remainder r (sign of the divisor), fmod is r where r is 0
// or lhs and rhs have one sign, else r - rhs. r (= fmod + rhs, rounded) and that subtraction can each
// round, so where the signs differ a float result is within one ulp of |rhs| of C's fmod (absolute, not
// relative: a tiny result keeps only that absolute accuracy); where they agree it is exact. Backends
// with a fmod kernel (cpu) are exact. An infinite divisor gives the finite dividend itself (r - rhs
// would be inf - inf).
Prim Backend::fmod(Prim lhs, Prim rhs) {
  check_same_dtype(lhs, rhs, "fmod");
  if (is_bool(lhs->dtype())) throw DTypeError("fmod", "not defined for bool tensors");
  if (!is_float(lhs->dtype())) {
    Prim q = div(lhs, rhs);
    return sub(std::move(lhs), mul(std::move(q), std::move(rhs)));
  }
  Prim r = remainder(lhs, rhs);
  Prim signs_differ = bool_xor(lower_elem(lhs, Scalar(0.0)), lower_elem(rhs, Scalar(0.0)));
  Prim fix = bool_and(not_equal_elem(r, Scalar(0.0)), std::move(signs_differ));
  Prim shifted = sub(r, rhs);
  Prim out = mask_where(std::move(r), std::move(fix), std::move(shifted));
  Prim keep = bool_and(is_inf(std::move(rhs)), is_finite(lhs));
  return mask_where(std::move(out), std::move(keep), broadcast_to(*this, std::move(lhs), out->shape()));
}

Prim Backend::fmod_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "fmod_scalar");
  return fmod(std::move(lhs), std::move(r));
}

Prim Backend::powf_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "powf_scalar");
  return powf(std::move(lhs), std::move(r));
}

// torch.maximum: rhs where rhs > lhs or rhs is NaN, else lhs; so NaN from either side wins.
Prim Backend::maximum(Prim lhs, Prim rhs) {
  check_same_dtype(lhs, rhs, "maximum");
  Shape out = shape_rules::broadcast(lhs->shape(), rhs->shape(), "maximum");
  lhs = broadcast_to(*this, std::move(lhs), out);
  Prim take = greater(rhs, lhs);
  if (is_float(rhs->dtype())) take = bool_or(std::move(take), not_equal(rhs, rhs));
  return mask_where(std::move(lhs), std::move(take), std::move(rhs));
}

Prim Backend::minimum(Prim lhs, Prim rhs) {
  check_same_dtype(lhs, rhs, "minimum");
  Shape out = shape_rules::broadcast(lhs->shape(), rhs->shape(), "minimum");
  lhs = broadcast_to(*this, std::move(lhs), out);
  Prim take = lower(rhs, lhs);
  if (is_float(rhs->dtype())) take = bool_or(std::move(take), not_equal(rhs, rhs));
  return mask_where(std::move(lhs), std::move(take), std::move(rhs));
}

// Floats: x * -1 (gives -0 for 0, as torch). Ints: 0 - x (wraps for unsigned, as torch).
Prim Backend::neg(Prim x) {
  if (is_bool(x->dtype())) throw DTypeError("neg", "not defined for bool tensors; use bool_not");
  if (is_float(x->dtype())) return mul_scalar(std::move(x), Scalar(-1.0));
  Prim zero = scalar_like(*this, x, Scalar(int64_t{0}), "neg");
  return sub(std::move(zero), std::move(x));
}

// (x > 0) - (x < 0) in x's dtype: torch's formula, so sign(NaN) = 0 and sign(-0.0) = 0 as in torch.
Prim Backend::sign(Prim x) {
  if (is_bool(x->dtype())) return x;
  const DType d = x->dtype();
  Prim pos = cast(greater_elem(x, Scalar(int64_t{0})), d);
  Prim neg_part = cast(lower_elem(std::move(x), Scalar(int64_t{0})), d);
  return sub(std::move(pos), std::move(neg_part));
}

// min(max(x, min), max) like torch: when min > max every element becomes max; NaN stays NaN.
Prim Backend::clamp(Prim x, Scalar min, Scalar max) { return clamp_max(clamp_min(std::move(x), min), max); }

Prim Backend::clamp_min(Prim x, Scalar min) {
  Prim below_min = lower_elem(x, min);
  return mask_fill(std::move(x), std::move(below_min), min);
}

Prim Backend::clamp_max(Prim x, Scalar max) {
  Prim above_max = greater_elem(x, max);
  return mask_fill(std::move(x), std::move(above_max), max);
}

}  // namespace burn
