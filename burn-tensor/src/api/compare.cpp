// Tensor API, compare group: elementwise comparisons with a tensor or a scalar; results are Bool.
#include "checks.hpp"
#include "dispatch.hpp"

namespace burn::api {
using namespace detail;

H compare(OpId op, H a, const H& c) {
  const char* name = name_of(op);
  Backend& b = binary_checks(a, c, name);
  std::optional<Prim> r;
  if (op_info(op).group == OpGroup::compare) r = dispatch<Prim, Prim, Prim>(b, op, std::move(a.prim), c.prim);
  if (!r) throw ValueError("compare", std::string("op ") + name + " is not a comparison");
  return with(a, std::move(*r));
}

H compare_elem(OpId op, H a, Scalar s) {
  const char* name = name_of(op);
  Backend& b = be(a, name);
  std::optional<Prim> r;
  if (op_info(op).group == OpGroup::compare) r = dispatch<Prim, Prim, Scalar>(b, op, std::move(a.prim), s);
  if (!r) throw ValueError("compare_elem", std::string("op ") + name + " is not a scalar comparison");
  return with(a, std::move(*r));
}

}  // namespace burn::api
