// burn-conformance: the calls of the attention module ops.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_attention_calls(CallTable& t) { (void)t; }

}  // namespace burn::conformance
