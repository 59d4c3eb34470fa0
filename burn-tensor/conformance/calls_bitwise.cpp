// burn-conformance: the calls of the bitwise group (and, or, xor, shifts with a tensor or a scalar;
// bitwise_not is the generic "unary" call).
#include "call_helpers.hpp"

namespace burn::conformance {

void add_bitwise_calls(CallTable& t) {
  t["bitwise_and"] = BINARY_CALL(bitwise_and);
  t["bitwise_or"] = BINARY_CALL(bitwise_or);
  t["bitwise_xor"] = BINARY_CALL(bitwise_xor);
  t["bitwise_left_shift"] = BINARY_CALL(bitwise_left_shift);
  t["bitwise_right_shift"] = BINARY_CALL(bitwise_right_shift);
  t["bitwise_and_scalar"] = SCALAR_CALL(bitwise_and_scalar);
  t["bitwise_or_scalar"] = SCALAR_CALL(bitwise_or_scalar);
  t["bitwise_xor_scalar"] = SCALAR_CALL(bitwise_xor_scalar);
  t["bitwise_left_shift_scalar"] = SCALAR_CALL(bitwise_left_shift_scalar);
  t["bitwise_right_shift_scalar"] = SCALAR_CALL(bitwise_right_shift_scalar);
}

}  // namespace burn::conformance
