// burn-conformance: the calls of the float_math (every elementwise unary op of the table through api::unary, atan2) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_float_math_calls(CallTable& t) {
  t["atan2"] = BINARY_CALL(atan2);
  t["unary"] = [](const Device&, Hs& in, const json& a) { return one(api::unary(op_id(a), std::move(in.at(0)))); };
}

}  // namespace burn::conformance
