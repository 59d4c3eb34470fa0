// The error hierarchy: every message is prefixed with the op that raised it.
#include "burn/tensor/error.hpp"

namespace burn {

Error::Error(const std::string& op, const std::string& message)
    : std::runtime_error("[" + op + "] " + message), op_(op) {}

}  // namespace burn
