// burn-conformance: the calls of the activation (the activations with parameters, softmax and its relatives) group.
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
}

}  // namespace burn::conformance
