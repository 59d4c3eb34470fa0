// burn-conformance: the calls of the activation (the activations with parameters, softmax and its relatives, the
// composite activations) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_activation_calls(CallTable& t) {
  t["leaky_relu"] = UNARY_CALL(leaky_relu, f64(a, "negative_slope"));
  t["softplus"] = UNARY_CALL(softplus, f64(a, "beta"), f64(a, "threshold"));
  t["hard_sigmoid"] = UNARY_CALL(hard_sigmoid, f64(a, "alpha"), f64(a, "beta"));
  t["elu"] = UNARY_CALL(elu, f64(a, "alpha"));
  t["softmax"] = UNARY_CALL(softmax, i64(a, "dim"));
  t["log_softmax"] = UNARY_CALL(log_softmax, i64(a, "dim"));
  t["softmin"] = UNARY_CALL(softmin, i64(a, "dim"));
  t["quiet_softmax"] = UNARY_CALL(quiet_softmax, i64(a, "dim"));
  t["celu"] = UNARY_CALL(celu, f64(a, "alpha"));
  t["glu"] = UNARY_CALL(glu, i64(a, "dim"));
  t["hard_shrink"] = UNARY_CALL(hard_shrink, f64(a, "lambda"));
  t["soft_shrink"] = UNARY_CALL(soft_shrink, f64(a, "lambda"));
  t["hardtanh"] = UNARY_CALL(hardtanh, f64(a, "min"), f64(a, "max"));
  t["threshold"] = UNARY_CALL(threshold, f64(a, "threshold"), f64(a, "value"));
  t["prelu"] = BINARY_CALL(prelu);
  t["hard_swish"] = [](const Device&, Hs& in, const json&) { return one(api::hard_swish(std::move(in.at(0)))); };
  t["relu6"] = [](const Device&, Hs& in, const json&) { return one(api::relu6(std::move(in.at(0)))); };
  t["softsign"] = [](const Device&, Hs& in, const json&) { return one(api::softsign(std::move(in.at(0)))); };
  t["tanhshrink"] = [](const Device&, Hs& in, const json&) { return one(api::tanhshrink(std::move(in.at(0)))); };
}

}  // namespace burn::conformance
