// The DEFAULT ops of the boolean (xor) group: composite bodies built from other
// ops of the table, so a backend that implements only the core ops gets them all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace burn {
using namespace detail;

// ---- boolean ---------------------------------------------------------------------------------

Prim Backend::bool_xor(Prim lhs, Prim rhs) { return not_equal(std::move(lhs), std::move(rhs)); }

}  // namespace burn
