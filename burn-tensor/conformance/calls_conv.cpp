// burn-conformance: the calls of the conv module ops.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_conv_calls(CallTable& t) { (void)t; }

}  // namespace burn::conformance
