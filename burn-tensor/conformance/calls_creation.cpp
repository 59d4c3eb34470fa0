// burn-conformance: the calls of the creation (empty, full, cast, random, arange, eye) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_creation_calls(CallTable& t) {
  t["identity"] = [](const Device&, Hs& in, const json&) { return one(std::move(in.at(0))); };
  t["empty"] = [](const Device& d, Hs&, const json& a) { return one(api::empty(d, shape_from_json(a.at("shape")), dtype(a))); };
  t["full"] = [](const Device& d, Hs&, const json& a) {
    return one(api::full(d, shape_from_json(a.at("shape")), scalar(a, "value"), dtype(a)));
  };
  t["cast"] = UNARY_CALL(cast, dtype(a));
  t["random"] = [](const Device& d, Hs&, const json& a) {
    return one(api::random(d, shape_from_json(a.at("shape")), distribution(a), dtype(a)));
  };
  t["arange"] = [](const Device& d, Hs&, const json& a) {
    return one(api::arange(d, i64(a, "start"), i64(a, "end"), i64(a, "step"), dtype(a)));
  };
  t["eye"] = [](const Device& d, Hs&, const json& a) { return one(api::eye(d, i64(a, "n"), i64(a, "m"), dtype(a))); };
}

}  // namespace burn::conformance
