// burn-conformance: the calls of the attention module ops. Inputs q, k, v and, when attrs "mask" is
// true, a bool mask (true = masked out); attrs "causal" and an optional "scale".
#include "burn/tensor/module.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

void add_attention_calls(CallTable& t) {
  t["attention"] = [](const Device&, Hs& in, const json& a) {
    AttentionOptions o;
    o.causal = a.value("causal", false);
    if (a.contains("scale") && !a.at("scale").is_null()) o.scale = f64(a, "scale");
    api::OptH mask;
    if (a.value("mask", false)) mask = in.at(3);
    return one(api::attention(std::move(in.at(0)), in.at(1), in.at(2), mask, o));
  };
}

}  // namespace burn::conformance
