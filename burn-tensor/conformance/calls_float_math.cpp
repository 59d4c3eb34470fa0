// burn-conformance: the calls of the float_math (every elementwise unary op of the table through api::unary, atan2,
// hypot, deg2rad/rad2deg) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_float_math_calls(CallTable& t) {
  t["atan2"] = BINARY_CALL(atan2);
  t["hypot"] = BINARY_CALL(hypot);
  t["deg2rad"] = [](const Device&, Hs& in, const json&) { return one(api::deg2rad(std::move(in.at(0)))); };
  t["rad2deg"] = [](const Device&, Hs& in, const json&) { return one(api::rad2deg(std::move(in.at(0)))); };
  t["unary"] = [](const Device&, Hs& in, const json& a) { return one(api::unary(op_id(a), std::move(in.at(0)))); };
}

}  // namespace burn::conformance
