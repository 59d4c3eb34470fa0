// Tensor API, float_math group (hypot, deg2rad/rad2deg), and the one dispatch of every elementwise unary
// op of the table (float_math, numeric, activation, boolean, bitwise), with the dtype check its group asks for.
#include <numbers>
#include <type_traits>

#include "autocast.hpp"
#include "checks.hpp"
#include "dispatch.hpp"

namespace burn::api {
using namespace detail;

H atan2(H a, const H& b0) {
  CastArg b(b0);
  autocast(OpId::atan2, {&a, b.slot()});
  Backend& be_ = binary_checks(a, *b, "atan2");
  require_float(a, "atan2");
  return with(a, be_.atan2(std::move(a.prim), b->prim));
}

H hypot(H a, const H& b0) {
  CastArg b(b0);
  autocast(OpId::hypot, {&a, b.slot()});
  Backend& be_ = binary_checks(a, *b, "hypot");
  require_float(a, "hypot");
  return with(a, be_.hypot(std::move(a.prim), b->prim));
}

// x * (pi / 180) and x * (180 / pi) in x's dtype, as torch.deg2rad / torch.rad2deg on float tensors.
H deg2rad(H h) {
  Backend& b = float_unary(h, "deg2rad");
  return with(h, b.mul_scalar(std::move(h.prim), Scalar(std::numbers::pi / 180.0)));
}

H rad2deg(H h) {
  Backend& b = float_unary(h, "rad2deg");
  return with(h, b.mul_scalar(std::move(h.prim), Scalar(180.0 / std::numbers::pi)));
}

H unary(OpId op, H h) {
  autocast(op, {&h});
  const char* name = name_of(op);
  Backend& b = be(h, name);
  switch (op_info(op).group) {
    case OpGroup::numeric: require_numeric(h, name); break;
    case OpGroup::boolean: require_bool(h, name); break;
    case OpGroup::bitwise: require_int(h, name); break;
    case OpGroup::float_math:
    case OpGroup::activation: require_float(h, name); break;
    default: throw ValueError("unary", std::string("op ") + name + " is not an elementwise unary op");
  }
  std::optional<Prim> r = dispatch<Prim, Prim>(b, op, std::move(h.prim));
  if (!r) throw ValueError("unary", std::string("op ") + name + " is not a unary op");
  return with(h, std::move(*r));
}

}  // namespace burn::api
