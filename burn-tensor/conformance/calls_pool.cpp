// burn-conformance: the calls of the pool module ops.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_pool_calls(CallTable& t) { (void)t; }

}  // namespace burn::conformance
