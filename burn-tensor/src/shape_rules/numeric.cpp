// Shape rules of the numeric group: NumPy broadcasting (every binary elementwise op of the numeric,
// compare, boolean, bitwise and float_math groups, and mask_where) and matmul.
#include <algorithm>

#include "check.hpp"

namespace burn::shape_rules {
using namespace detail;

namespace {

std::optional<Shape> broadcast_rule(const Shape& a, const Shape& b, const Check& c) {
  const size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.rank() ? 1 : a[i - (rank - a.rank())];
    const int64_t db = i < rank - b.rank() ? 1 : b[i - (rank - b.rank())];
    if (da != db && da != 1 && db != 1)
      return c.fail<ShapeError>([&] {
        return "shapes " + a.to_string() + " and " + b.to_string() + " cannot be broadcast: dim " +
               str(static_cast<int64_t>(i)) + " is " + str(da) + " vs " + str(db);
      });
    out[i] = da == 1 ? db : da;
  }
  return Shape(std::move(out));
}

std::optional<Shape> matmul_rule(const Shape& a, const Shape& b, const Check& c) {
  const auto both = [&] { return "lhs " + a.to_string() + " and rhs " + b.to_string(); };
  const size_t rank = a.rank();
  if (b.rank() != rank) return c.fail<ShapeError>([&] { return both() + " differ in rank"; });
  if (rank < 2) return c.fail<ShapeError>([&] { return both() + ": expected operands of rank >= 2"; });
  if (b[rank - 2] != a[rank - 1])
    return c.fail<ShapeError>(
        [&] { return both() + ": inner dimensions differ (" + str(a[rank - 1]) + " vs " + str(b[rank - 2]) + ")"; });
  std::vector<int64_t> out(rank);
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (a[d] != b[d] && a[d] != 1 && b[d] != 1)
      return c.fail<ShapeError>([&] {
        return both() + ": batch dimensions are not broadcastable (dim " + str(static_cast<int64_t>(d)) + ": " +
               str(a[d]) + " vs " + str(b[d]) + ")";
      });
    out[d] = a[d] == 1 ? b[d] : a[d];
  }
  out[rank - 2] = a[rank - 2];
  out[rank - 1] = b[rank - 1];
  return Shape(std::move(out));
}

}  // namespace

Shape broadcast(const Shape& a, const Shape& b, const char* op) { return raised(broadcast_rule(a, b, {op, true})); }

Shape broadcast(const Shape& a, const Shape& b, const Shape& c, const char* op) {
  return broadcast(broadcast(a, b, op), c, op);
}

std::optional<Shape> try_broadcast(const Shape& a, const Shape& b) {
  return broadcast_rule(a, b, {"broadcast", false});
}

Axes broadcast_axes(const Shape& in, const Shape& out) {
  Axes axes;
  const size_t lead = out.rank() - in.rank();
  for (size_t i = 0; i < out.rank(); ++i)
    if (i < lead || in[i - lead] != out[i]) axes.push_back(static_cast<int64_t>(i));
  return axes;
}

Shape matmul(const Shape& lhs, const Shape& rhs, const char* op) { return raised(matmul_rule(lhs, rhs, {op, true})); }

std::optional<Shape> try_matmul(const Shape& lhs, const Shape& rhs) { return matmul_rule(lhs, rhs, {"matmul", false}); }

}  // namespace burn::shape_rules
