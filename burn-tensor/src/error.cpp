// The error hierarchy: every message is prefixed with the op that raised it.
#include "burn/tensor/error.hpp"

namespace burn {

Error::Error(const std::string& op, const std::string& message)
    : std::runtime_error("[" + op + "] " + message), op_(op) {}

namespace {
// Set on every api entry: a plain pointer to a string literal, so the store stays cheap.
thread_local const char* tl_current_op = "";
}  // namespace

const char* current_op() noexcept { return tl_current_op; }
void set_current_op(const char* op) noexcept { tl_current_op = op ? op : ""; }

}  // namespace burn
