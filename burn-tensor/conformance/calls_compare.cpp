// burn-conformance: the calls of the compare group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_compare_calls(CallTable& t) {
  t["compare"] = [](const Device&, Hs& in, const json& a) { return one(api::compare(op_id(a), std::move(in.at(0)), in.at(1))); };
  t["compare_elem"] = [](const Device&, Hs& in, const json& a) {
    return one(api::compare_elem(op_id(a), std::move(in.at(0)), scalar(a, "scalar")));
  };
}

}  // namespace burn::conformance
