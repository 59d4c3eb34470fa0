// Shape rules of the reduce group: reductions over a dim (kept with size 1) and over everything ([1]),
// and topk (sort, argsort and the scans keep x's shape: along_dim).
#include "check.hpp"

namespace burn::shape_rules {
using namespace detail;

namespace {

std::optional<Shape> reduce_dim_rule(const Shape& x, size_t dim, bool nonempty, const Check& c) {
  if (!dim_in_range(x, dim, c)) return std::nullopt;
  if (nonempty && x[dim] == 0)
    return c.fail<ValueError>(
        [&] { return "cannot reduce dim " + str(static_cast<int64_t>(dim)) + " of size 0 in shape " + x.to_string(); });
  Shape out = x;
  out[dim] = 1;
  return out;
}

}  // namespace

Shape reduce_dim(const Shape& x, size_t dim, bool nonempty, const char* op) {
  return raised(reduce_dim_rule(x, dim, nonempty, {op, true}));
}

std::optional<Shape> try_reduce_dim(const Shape& x, size_t dim, bool nonempty) {
  return reduce_dim_rule(x, dim, nonempty, {"reduce", false});
}

Shape reduce_all(const Shape& x, bool nonempty, const char* op) {
  if (nonempty && x.num_elements() == 0)
    throw ValueError(op, "cannot reduce an empty tensor of shape " + x.to_string());
  return Shape{1};
}

Shape topk(const Shape& x, int64_t k, size_t dim, const char* op) {
  check_dim(x, dim, op);
  const int64_t n = x[dim];
  if (k < 0 || k > n)
    throw IndexError(op, "k = " + str(k) + " is out of range for dim " + str(static_cast<int64_t>(dim)) + " of size " +
                             str(n) + " (shape " + x.to_string() + ")");
  Shape out = x;
  out[dim] = k;
  return out;
}

}  // namespace burn::shape_rules
