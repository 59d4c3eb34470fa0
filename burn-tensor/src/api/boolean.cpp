// Tensor API, boolean group: logical and, or, xor on Bool tensors.
#include "checks.hpp"

namespace burn::api {
using namespace detail;

H bool_binary(OpId op, H a, const H& c) {
  const char* name = name_of(op);
  Backend& b = binary_checks(a, c, name);
  require_bool(a, name);
  Prim x = std::move(a.prim);
  switch (op) {
    case OpId::bool_and: return with(a, b.bool_and(std::move(x), c.prim));
    case OpId::bool_or: return with(a, b.bool_or(std::move(x), c.prim));
    case OpId::bool_xor: return with(a, b.bool_xor(std::move(x), c.prim));
    default: throw ValueError("bool_binary", std::string("op ") + name + " is not a bool op");
  }
}

}  // namespace burn::api
