// Tensor API, numeric group: arithmetic with broadcasting (fmod included), scalars, powers, clamps and matmul.
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

Backend& numeric_binary(const H& a, const H& b, const char* op) {
  Backend& be_ = binary_checks(a, b, op);
  require_numeric(a, op);
  return be_;
}

}  // namespace

H add(H a, const H& b) { return with(a, numeric_binary(a, b, "add").add(std::move(a.prim), b.prim)); }

H sub(H a, const H& b) { return with(a, numeric_binary(a, b, "sub").sub(std::move(a.prim), b.prim)); }

H mul(H a, const H& b) { return with(a, numeric_binary(a, b, "mul").mul(std::move(a.prim), b.prim)); }

H div(H a, const H& b) { return with(a, numeric_binary(a, b, "div").div(std::move(a.prim), b.prim)); }

H remainder(H a, const H& b) { return with(a, numeric_binary(a, b, "remainder").remainder(std::move(a.prim), b.prim)); }

H fmod(H a, const H& b) { return with(a, numeric_binary(a, b, "fmod").fmod(std::move(a.prim), b.prim)); }

H maximum(H a, const H& b) { return with(a, numeric_binary(a, b, "max_pair").maximum(std::move(a.prim), b.prim)); }

H minimum(H a, const H& b) { return with(a, numeric_binary(a, b, "min_pair").minimum(std::move(a.prim), b.prim)); }

H powf(H a, const H& b) {
  Backend& be_ = binary_checks(a, b, "powf");
  require_float(a, "powf");
  return with(a, be_.powf(std::move(a.prim), b.prim));
}

H add_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "add_scalar").add_scalar(std::move(a.prim), s)); }

H sub_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "sub_scalar").sub_scalar(std::move(a.prim), s)); }

H mul_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "mul_scalar").mul_scalar(std::move(a.prim), s)); }

H div_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "div_scalar");
  if (is_int(a.prim->dtype()) && s.as_int() == 0) throw ValueError("div_scalar", "integer division by zero");
  return with(a, b.div_scalar(std::move(a.prim), s));
}

H remainder_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "remainder_scalar");
  if (is_int(a.prim->dtype()) && s.as_int() == 0) throw ValueError("remainder_scalar", "integer remainder by zero");
  return with(a, b.remainder_scalar(std::move(a.prim), s));
}

H fmod_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "fmod_scalar");
  if (is_int(a.prim->dtype()) && s.as_int() == 0) throw ValueError("fmod_scalar", "integer fmod by zero");
  return with(a, b.fmod_scalar(std::move(a.prim), s));
}

H rsub_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "rsub_scalar");
  return with(a, b.add_scalar(b.neg(std::move(a.prim)), s));
}

H rdiv_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "rdiv_scalar");
  Prim num = b.full(shape(a), s, a.prim->dtype());
  return with(a, b.div(std::move(num), std::move(a.prim)));
}

H powf_scalar(H a, Scalar s) { return with(a, float_unary(a, "powf_scalar").powf_scalar(std::move(a.prim), s)); }

H powi(H a, const H& e) {
  Backend& b = numeric_unary(a, "powi");
  same_device(a, e, "powi");
  require_index(e, "powi");
  broadcast_shapes(shape(a), shape(e), "powi");
  DType t = a.prim->dtype();
  if (is_float(t)) return with(a, b.powf(std::move(a.prim), b.cast(e.prim, t)));
  Prim r = b.powf(b.cast(std::move(a.prim), DType::F64), b.cast(e.prim, DType::F64));
  return with(a, b.cast(b.round(std::move(r)), t));
}

H powi_scalar(H a, int64_t e) {
  Backend& b = numeric_unary(a, "powi_scalar");
  DType t = a.prim->dtype();
  if (is_float(t)) return with(a, b.powf_scalar(std::move(a.prim), e));
  Prim r = b.powf_scalar(b.cast(std::move(a.prim), DType::F64), e);
  return with(a, b.cast(b.round(std::move(r)), t));
}

H matmul(H a, const H& c) {
  Backend& b = numeric_unary(a, "matmul");
  same_device(a, c, "matmul");
  same_dtype(a, c, "matmul");
  const Shape &sa = shape(a), &sc = shape(c);
  if (sa.rank() != sc.rank())
    throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + " differ in rank");
  if (sa.rank() == 1) {  // dot product, as a [1] tensor
    if (sa[0] != sc[0])
      throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + ": lengths differ");
    Prim r = b.matmul(b.reshape(std::move(a.prim), Shape{1, sa[0]}), b.reshape(c.prim, Shape{sc[0], 1}));
    return with(a, b.reshape(std::move(r), Shape{1}));
  }
  size_t r = sa.rank();
  if (sa[r - 1] != sc[r - 2])
    throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + ": inner dimensions differ (" +
                                   std::to_string(sa[r - 1]) + " vs " + std::to_string(sc[r - 2]) + ")");
  for (size_t i = 0; i + 2 < r; ++i)
    if (sa[i] != sc[i] && sa[i] != 1 && sc[i] != 1)
      throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + ": batch dim " +
                                     std::to_string(i) + " cannot be broadcast");
  return with(a, b.matmul(std::move(a.prim), c.prim));
}

H clamp(H h, Scalar lo, Scalar hi) { return with(h, numeric_unary(h, "clamp").clamp(std::move(h.prim), lo, hi)); }

H clamp_min(H h, Scalar lo) { return with(h, numeric_unary(h, "clamp_min").clamp_min(std::move(h.prim), lo)); }

H clamp_max(H h, Scalar hi) { return with(h, numeric_unary(h, "clamp_max").clamp_max(std::move(h.prim), hi)); }

}  // namespace burn::api
