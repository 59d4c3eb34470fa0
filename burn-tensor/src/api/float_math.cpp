// Tensor API, float_math group, and the one dispatch of every elementwise unary op of the table
// (float_math, numeric, activation, boolean), with the dtype check its group asks for.
#include "checks.hpp"
#include "dispatch.hpp"

namespace burn::api {
using namespace detail;

H atan2(H a, const H& b) {
  Backend& be_ = binary_checks(a, b, "atan2");
  require_float(a, "atan2");
  return with(a, be_.atan2(std::move(a.prim), b.prim));
}

H unary(OpId op, H h) {
  const char* name = name_of(op);
  Backend& b = be(h, name);
  switch (op_info(op).group) {
    case OpGroup::numeric: require_numeric(h, name); break;
    case OpGroup::boolean: require_bool(h, name); break;
    case OpGroup::float_math: case OpGroup::activation: require_float(h, name); break;
    default: throw ValueError("unary", std::string("op ") + name + " is not an elementwise unary op");
  }
  std::optional<Prim> r = dispatch<Prim, Prim>(b, op, std::move(h.prim));
  if (!r) throw ValueError("unary", std::string("op ") + name + " is not a unary op");
  return with(h, std::move(*r));
}

}  // namespace burn::api
