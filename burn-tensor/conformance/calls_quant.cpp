// burn-conformance: the calls of the quant group. quantized_linear's inputs are x, the weight's values and
// scales, then the zero points and the bias when attrs "zero_points" / "bias" flag them; matmul_integer's are a and
// b, then a's and b's zero points when attrs "a_zero_points" / "b_zero_points" flag them.
#include "burn/tensor/quant.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

void add_quant_calls(CallTable& t) {
  t["quantized_linear"] = [](const Device&, Hs& in, const json& a) {
    size_t next = 3;
    const std::optional<H> zp = take(in, next, opt_flag(a, "zero_points"));
    const std::optional<H> bias = take(in, next, opt_flag(a, "bias"));
    return one(api::quantized_linear(in.at(0), in.at(1), in.at(2), zp, bias));
  };
  t["matmul_integer"] = [](const Device&, Hs& in, const json& a) {
    size_t next = 2;
    const std::optional<H> za = take(in, next, opt_flag(a, "a_zero_points"));
    const std::optional<H> zb = take(in, next, opt_flag(a, "b_zero_points"));
    return one(api::matmul_integer(in.at(0), in.at(1), za, zb));
  };
}

}  // namespace burn::conformance
