// The DEFAULT ops of the float_math (recip, square, is_nan/is_inf/is_finite) group: composite bodies built from other
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

}  // namespace burn
