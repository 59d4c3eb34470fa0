// Private helpers shared by the DEFAULT op bodies of defaults/<group>.cpp: argument checks with tagged
// errors and scalar conversions.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn::detail {

inline std::string num(double v) {
  // Shortest form that reads back exactly keeps messages readable ("0.1", not "0.100000").
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

inline Shape ones_shape(size_t rank) { return Shape(std::vector<int64_t>(rank, 1)); }

inline void check_same_dtype(const Prim& a, const Prim& b, const char* op) {
  if (a->dtype() != b->dtype()) {
    throw DTypeError(op, "lhs " + std::string(dtype_name(a->dtype())) + " and rhs " +
                             std::string(dtype_name(b->dtype())) + ": dtypes differ");
  }
}

// Representable range of an integer dtype (Bool as 0..1).
inline std::pair<int64_t, int64_t> int_range(DType d) {
  switch (d) {
    case DType::I32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::I8: return {-128, 127};
    case DType::U8: return {0, 255};
    case DType::Bool: return {0, 1};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

inline bool fits_int64(double v) { return v >= -9223372036854775808.0 && v < 9223372036854775808.0; }

// A scalar operand converted to x's dtype. For int tensors a float scalar is truncated toward zero
// (Burn's elem conversion) rather than promoting the result to float as torch does: the op's
// result keeps x's dtype. Int tensors with int scalars match torch exactly.
inline Scalar scalar_as(Scalar s, DType dtype, const char* op) {
  if (is_float(dtype)) return Scalar(s.as_double());
  if (is_bool(dtype)) return Scalar(s.as_bool());
  if (s.kind == Scalar::Kind::Float && !(std::isfinite(s.f) && fits_int64(s.f))) {
    throw ValueError(op, "scalar " + num(s.f) + " cannot be converted to " + std::string(dtype_name(dtype)));
  }
  return Scalar(s.as_int());
}

// A tensor of x's rank with every dim 1 holding s in x's dtype: broadcasts against x.
inline Prim scalar_like(Backend& b, const Prim& x, Scalar s, const char* op) {
  return b.full(ones_shape(x->shape().rank()), scalar_as(s, x->dtype(), op), x->dtype());
}

// x broadcast (view) to `shape`, adding leading dims of size 1 first when its rank is smaller.
inline Prim broadcast_to(Backend& b, Prim x, const Shape& shape) {
  if (x->shape() == shape) return x;
  if (x->shape().rank() < shape.rank()) {
    std::vector<int64_t> dims(shape.rank() - x->shape().rank(), 1);
    dims.insert(dims.end(), x->shape().begin(), x->shape().end());
    x = b.reshape(std::move(x), Shape(std::move(dims)));
  }
  return b.expand(std::move(x), shape);
}

inline void require_float(const Prim& x, const char* op) {
  if (!is_float(x->dtype())) {
    throw DTypeError(op, "needs a float tensor, got " + std::string(dtype_name(x->dtype())));
  }
}

}  // namespace burn::detail
