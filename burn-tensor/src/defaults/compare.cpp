// The DEFAULT ops of the compare (the derived comparisons) group: composite bodies built from other
// ops of the table, so a backend that implements only the core ops gets them all.
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

// Whether s converts to dtype without changing its value (float dtypes: always, up to rounding).
bool exact_in(Scalar s, DType dtype) {
  if (is_float(dtype)) return true;
  auto [lo, hi] = int_range(dtype);
  if (s.kind == Scalar::Kind::Float) {
    if (!std::isfinite(s.f) || std::trunc(s.f) != s.f || !fits_int64(s.f)) return false;
    auto v = static_cast<int64_t>(s.f);
    return v >= lo && v <= hi;
  }
  return s.i >= lo && s.i <= hi;
}

using CompareOp = Prim (Backend::*)(Prim, Prim);

// x <op> s. When s is not exactly representable in x's dtype (an int tensor against 2.5, a u8
// tensor against 300, a bool tensor against 2) the comparison runs in f64 so that the answer is
// torch's rather than that of a truncated scalar.
Prim compare_elem(Backend& b, Prim x, Scalar s, CompareOp cmp, const char* op) {
  if (!exact_in(s, x->dtype())) {
    x = b.cast(std::move(x), DType::F64);
    Prim rhs = b.full(ones_shape(x->shape().rank()), Scalar(s.as_double()), DType::F64);
    return (b.*cmp)(std::move(x), std::move(rhs));
  }
  Prim rhs = scalar_like(b, x, s, op);
  return (b.*cmp)(std::move(x), std::move(rhs));
}

}  // namespace

// ---- compare ---------------------------------------------------------------------------------

Prim Backend::not_equal(Prim lhs, Prim rhs) { return bool_not(equal(std::move(lhs), std::move(rhs))); }

Prim Backend::lower(Prim lhs, Prim rhs) { return greater(std::move(rhs), std::move(lhs)); }

Prim Backend::lower_equal(Prim lhs, Prim rhs) { return greater_equal(std::move(rhs), std::move(lhs)); }

Prim Backend::equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::equal, "equal_elem");
}

Prim Backend::not_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::not_equal, "not_equal_elem");
}

Prim Backend::greater_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::greater, "greater_elem");
}

Prim Backend::greater_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::greater_equal, "greater_equal_elem");
}

Prim Backend::lower_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::lower, "lower_elem");
}

Prim Backend::lower_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::lower_equal, "lower_equal_elem");
}

}  // namespace burn
