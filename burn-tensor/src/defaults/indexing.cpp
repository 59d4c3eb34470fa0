// The DEFAULT ops of the indexing (select, select_add, mask_fill) group: composite bodies built from other
// ops of the table, so a backend that implements only the core ops gets them all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace burn {
using namespace detail;

namespace {

void check_index_dtype(const Prim& idx, const char* op) {
  if (idx->dtype() != DType::I64 && idx->dtype() != DType::I32) {
    throw DTypeError(op, "indices must be i64 or i32, got " + std::string(dtype_name(idx->dtype())));
  }
}

}  // namespace

// ---- indexing --------------------------------------------------------------------------------

// index_select as a gather: the 1-D indices become [1, .., n, .., 1] and are expanded (a view)
// to the output shape.
Prim Backend::select(Prim x, size_t dim, Prim indices) {
  check_index_dtype(indices, "select");
  const Shape out = shape_rules::select(x->shape(), dim, indices->shape());
  const int64_t n = out[dim];
  Shape view = ones_shape(out.rank());
  view[dim] = n;
  Prim idx = expand(reshape(std::move(indices), view), out);
  return gather(std::move(x), dim, std::move(idx));
}

// index_add as a scatter_add with the 1-D indices expanded to the values' shape.
Prim Backend::select_add(Prim x, size_t dim, Prim indices, Prim values) {
  check_index_dtype(indices, "select_add");
  check_same_dtype(x, values, "select_add");
  shape_rules::select_add(x->shape(), dim, indices->shape(), values->shape());
  const int64_t n = indices->shape()[0];
  const Shape& want = values->shape();
  Shape view = ones_shape(want.rank());
  view[dim] = n;
  Prim idx = expand(reshape(std::move(indices), view), want);
  return scatter_add(std::move(x), dim, std::move(idx), std::move(values));
}

Prim Backend::mask_fill(Prim x, Prim mask, Scalar value) {
  Prim v = scalar_like(*this, x, value, "mask_fill");
  return mask_where(std::move(x), std::move(mask), std::move(v));
}

}  // namespace burn
