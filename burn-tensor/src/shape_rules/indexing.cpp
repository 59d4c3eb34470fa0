// Shape rules of the indexing group: gather, scatter_add, select, select_add (mask_where and
// mask_fill broadcast: numeric.cpp).
#include "check.hpp"

namespace burn::shape_rules {
using namespace detail;

namespace {

std::string dim_text(size_t dim) { return str(static_cast<int64_t>(dim)); }

void one_d(const Shape& indices, const char* op) {
  if (indices.rank() != 1) throw ShapeError(op, "indices must be 1-D, got shape " + indices.to_string());
}

}  // namespace

Shape gather(const Shape& x, size_t dim, const Shape& indices, const char* op) {
  check_dim(x, dim, op);
  if (indices.rank() != x.rank())
    throw ShapeError(op,
                     "indices of shape " + indices.to_string() + " must have the rank of the tensor " + x.to_string());
  for (size_t k = 0; k < x.rank(); ++k)
    if (k != dim && indices[k] > x[k])
      throw ShapeError(op, "indices " + indices.to_string() + " exceed tensor " + x.to_string() + " in dim " +
                               dim_text(k) + " (gathering along dim " + dim_text(dim) + ")");
  return indices;
}

Shape scatter_add(const Shape& x, size_t dim, const Shape& indices, const Shape& values, const char* op) {
  check_dim(x, dim, op);
  bool ok = indices.rank() == x.rank() && values.rank() == x.rank();
  for (size_t d = 0; ok && d < x.rank(); ++d) ok = indices[d] <= values[d] && (d == dim || indices[d] <= x[d]);
  if (!ok)
    throw ShapeError(op, "indices " + indices.to_string() + " and values " + values.to_string() +
                             " do not fit tensor " + x.to_string() + " along dim " + dim_text(dim));
  return x;
}

Shape select(const Shape& x, size_t dim, const Shape& indices, const char* op) {
  check_dim(x, dim, op);
  one_d(indices, op);
  Shape out = x;
  out[dim] = indices[0];
  return out;
}

Shape select_add(const Shape& x, size_t dim, const Shape& indices, const Shape& values, const char* op) {
  const Shape want = select(x, dim, indices, op);
  if (values != want)
    throw ShapeError(op, "values of shape " + values.to_string() + " must have shape " + want.to_string() +
                             " (tensor " + x.to_string() + ", " + str(indices[0]) + " indices on dim " + dim_text(dim) +
                             ")");
  return x;
}

}  // namespace burn::shape_rules
