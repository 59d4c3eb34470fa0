// burn-conformance: the calls of the boolean group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_boolean_calls(CallTable& t) {
  t["bool_binary"] = [](const Device&, Hs& in, const json& a) {
    return one(api::bool_binary(op_id(a), std::move(in.at(0)), in.at(1)));
  };
}

}  // namespace burn::conformance
