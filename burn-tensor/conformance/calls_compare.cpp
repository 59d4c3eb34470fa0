// burn-conformance: the calls of the compare group (comparisons, is_close, all_close).
#include "call_helpers.hpp"

namespace burn::conformance {

void add_compare_calls(CallTable& t) {
  t["compare"] = [](const Device&, Hs& in, const json& a) {
    return one(api::compare(op_id(a), std::move(in.at(0)), in.at(1)));
  };
  t["compare_elem"] = [](const Device&, Hs& in, const json& a) {
    return one(api::compare_elem(op_id(a), std::move(in.at(0)), scalar(a, "scalar")));
  };
  t["is_close"] = [](const Device&, Hs& in, const json& a) {
    return one(api::is_close(std::move(in.at(0)), in.at(1), f64(a, "rtol"), f64(a, "atol"), flag(a, "equal_nan")));
  };
  // all_close returns a C++ bool: the call hands it back as a Bool tensor of shape [1].
  t["all_close"] = [](const Device& d, Hs& in, const json& a) {
    const bool r = api::all_close(in.at(0), in.at(1), f64(a, "rtol"), f64(a, "atol"), flag(a, "equal_nan"));
    return one(api::full(d, Shape{1}, Scalar(r), DType::Bool));
  };
}

}  // namespace burn::conformance
