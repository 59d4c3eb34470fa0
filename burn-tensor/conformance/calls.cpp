// burn-conformance: the "call" table, one entry per burn::api function a fixture case can name, filled
// by one add_<group>_calls function per op group and per api family (calls_<group>.cpp).
#include "call_helpers.hpp"
#include "conformance.hpp"

namespace burn::conformance {

const std::map<std::string, CallFn>& call_table() {
  static const CallTable table = [] {
    CallTable t;
#define BURN_G_ADD(g) add_##g##_calls(t);
    BURN_OP_GROUPS(BURN_G_ADD)
    BURN_API_FAMILIES(BURN_G_ADD)
#undef BURN_G_ADD
    return t;
  }();
  return table;
}

}  // namespace burn::conformance
