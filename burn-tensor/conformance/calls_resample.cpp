// burn-conformance: the calls of the resample module ops.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_resample_calls(CallTable& t) { (void)t; }

}  // namespace burn::conformance
