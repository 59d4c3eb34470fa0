// Tensor API, boolean group: logical and, or, xor on Bool tensors.
#include "checks.hpp"
#include "dispatch.hpp"

namespace burn::api {
using namespace detail;

H bool_binary(OpId op, H a, const H& c) {
  const char* name = name_of(op);
  Backend& b = binary_checks(a, c, name);
  require_bool(a, name);
  std::optional<Prim> r;
  if (op_info(op).group == OpGroup::boolean) r = dispatch<Prim, Prim, Prim>(b, op, std::move(a.prim), c.prim);
  if (!r) throw ValueError("bool_binary", std::string("op ") + name + " is not a binary bool op");
  return with(a, std::move(*r));
}

}  // namespace burn::api
