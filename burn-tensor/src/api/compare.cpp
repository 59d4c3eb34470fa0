// Tensor API, compare group: elementwise comparisons with a tensor or a scalar; results are Bool.
#include "checks.hpp"

namespace burn::api {
using namespace detail;

H compare(OpId op, H a, const H& c) {
  const char* name = name_of(op);
  Backend& b = binary_checks(a, c, name);
  Prim x = std::move(a.prim);
  switch (op) {
#define BURN_CMP_CASE(n) case OpId::n: return with(a, b.n(std::move(x), c.prim));
    BURN_CMP_CASE(equal) BURN_CMP_CASE(not_equal) BURN_CMP_CASE(greater) BURN_CMP_CASE(greater_equal)
    BURN_CMP_CASE(lower) BURN_CMP_CASE(lower_equal)
#undef BURN_CMP_CASE
    default: throw ValueError("compare", std::string("op ") + name + " is not a comparison");
  }
}

H compare_elem(OpId op, H a, Scalar s) {
  const char* name = name_of(op);
  Backend& b = be(a, name);
  Prim x = std::move(a.prim);
  switch (op) {
#define BURN_CMP_CASE(n) case OpId::n: return with(a, b.n(std::move(x), s));
    BURN_CMP_CASE(equal_elem) BURN_CMP_CASE(not_equal_elem) BURN_CMP_CASE(greater_elem)
    BURN_CMP_CASE(greater_equal_elem) BURN_CMP_CASE(lower_elem) BURN_CMP_CASE(lower_equal_elem)
#undef BURN_CMP_CASE
    default: throw ValueError("compare_elem", std::string("op ") + name + " is not a scalar comparison");
  }
}

}  // namespace burn::api
