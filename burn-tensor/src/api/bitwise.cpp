// Tensor API, bitwise group: and, or, xor and the shifts of Int tensors (i64, i32, i8, u8), with a tensor
// (NumPy broadcasting, one dtype) or a scalar; bitwise_not goes through api::unary.
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

Backend& int_binary(const H& a, const H& b, const char* op) {
  Backend& be_ = binary_checks(a, b, op);
  require_int(a, op);
  return be_;
}

// The scalar as a [1, .., 1] tensor of a's dtype (converted as C++ converts integers, so 300 is 44 in
// i8, as torch wraps it). A float scalar is refused: torch has no float bitwise ops either.
Prim scalar_operand(Backend& b, const H& a, Scalar s, const char* op) {
  require_int(a, op);
  if (s.kind == Scalar::Kind::Float) throw DTypeError(op, "the scalar must be an integer, got " + s.to_string());
  return b.full(Shape(std::vector<int64_t>(rank(a), 1)), Scalar(s.i), a.prim->dtype());
}

}  // namespace

H bitwise_and(H a, const H& b) {
  return with(a, int_binary(a, b, "bitwise_and").bitwise_and(std::move(a.prim), b.prim));
}

H bitwise_or(H a, const H& b) { return with(a, int_binary(a, b, "bitwise_or").bitwise_or(std::move(a.prim), b.prim)); }

H bitwise_xor(H a, const H& b) {
  return with(a, int_binary(a, b, "bitwise_xor").bitwise_xor(std::move(a.prim), b.prim));
}

H bitwise_left_shift(H a, const H& b) {
  return with(a, int_binary(a, b, "bitwise_left_shift").bitwise_left_shift(std::move(a.prim), b.prim));
}

H bitwise_right_shift(H a, const H& b) {
  return with(a, int_binary(a, b, "bitwise_right_shift").bitwise_right_shift(std::move(a.prim), b.prim));
}

H bitwise_and_scalar(H a, Scalar s) {
  Backend& b = be(a, "bitwise_and_scalar");
  Prim r = scalar_operand(b, a, s, "bitwise_and_scalar");
  return with(a, b.bitwise_and(std::move(a.prim), std::move(r)));
}

H bitwise_or_scalar(H a, Scalar s) {
  Backend& b = be(a, "bitwise_or_scalar");
  Prim r = scalar_operand(b, a, s, "bitwise_or_scalar");
  return with(a, b.bitwise_or(std::move(a.prim), std::move(r)));
}

H bitwise_xor_scalar(H a, Scalar s) {
  Backend& b = be(a, "bitwise_xor_scalar");
  Prim r = scalar_operand(b, a, s, "bitwise_xor_scalar");
  return with(a, b.bitwise_xor(std::move(a.prim), std::move(r)));
}

H bitwise_left_shift_scalar(H a, Scalar s) {
  Backend& b = be(a, "bitwise_left_shift_scalar");
  Prim r = scalar_operand(b, a, s, "bitwise_left_shift_scalar");
  return with(a, b.bitwise_left_shift(std::move(a.prim), std::move(r)));
}

H bitwise_right_shift_scalar(H a, Scalar s) {
  Backend& b = be(a, "bitwise_right_shift_scalar");
  Prim r = scalar_operand(b, a, s, "bitwise_right_shift_scalar");
  return with(a, b.bitwise_right_shift(std::move(a.prim), std::move(r)));
}

}  // namespace burn::api
