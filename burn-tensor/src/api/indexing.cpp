// Tensor API: indexing, masking and triangular masks.
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

void check_same_rank(const H& h, const H& idx, const char* op) {
  if (rank(idx) != rank(h))
    throw ShapeError(op, "indices of shape " + shape(idx).to_string() + " must have the rank of the tensor " +
                             shape(h).to_string());
}

void check_index_1d(const H& idx, const char* op) {
  require_index(idx, op);
  if (rank(idx) != 1) throw ShapeError(op, "indices must be 1-D, got shape " + shape(idx).to_string());
}

// Bool mask of shape `s`: true where col - row compares with `diagonal` as `keep` says.
H triangle(const Device& d, const Shape& s, int64_t diagonal, bool lower, const char* op) {
  if (s.rank() < 2) throw ShapeError(op, "needs at least 2 dims, got shape " + s.to_string());
  dev(d, op);
  checked_bytes(s, 1, op);
  int64_t rows = s[s.rank() - 2], cols = s[s.rank() - 1];
  Prim r = d->reshape(d->arange(0, rows, 1, DType::I64), Shape{rows, 1});
  Prim c = d->reshape(d->arange(0, cols, 1, DType::I64), Shape{1, cols});
  Prim diff = d->sub(std::move(c), std::move(r));  // col - row
  // Burn's convention: the mask is true where values are to be masked out.
  Prim mask = lower ? d->greater_elem(std::move(diff), diagonal) : d->lower_elem(std::move(diff), diagonal);
  return expand(H{d, std::move(mask)}, s.dims());
}

}  // namespace

H select(H h, int64_t dim, const H& indices) {
  Backend& b = be(h, "select");
  same_device(h, indices, "select");
  check_index_1d(indices, "select");
  size_t d = normalize_dim(dim, rank(h), "select");
  return with(h, b.select(std::move(h.prim), d, indices.prim));
}

H select_assign(H h, int64_t dim, const H& indices, const H& values) {
  Backend& b = be(h, "select_assign");
  same_device(h, indices, "select_assign");
  same_device(h, values, "select_assign");
  same_dtype(h, values, "select_assign");
  check_index_1d(indices, "select_assign");
  size_t d = normalize_dim(dim, rank(h), "select_assign");
  Shape want = shape(h);
  want[d] = shape(indices)[0];
  if (shape(values) != want)
    throw ShapeError("select_assign", "values of shape " + shape(values).to_string() + " must have shape " +
                                          want.to_string());
  return with(h, b.select_add(std::move(h.prim), d, indices.prim, values.prim));
}

H gather(H h, int64_t dim, const H& indices) {
  Backend& b = be(h, "gather");
  same_device(h, indices, "gather");
  require_index(indices, "gather");
  check_same_rank(h, indices, "gather");
  size_t d = normalize_dim(dim, rank(h), "gather");
  for (size_t k = 0; k < rank(h); ++k)
    if (k != d && shape(indices)[k] > shape(h)[k])
      throw ShapeError("gather", "indices " + shape(indices).to_string() + " exceed tensor " + shape(h).to_string() +
                                     " in dim " + std::to_string(k));
  return with(h, b.gather(std::move(h.prim), d, indices.prim));
}

H scatter_add(H h, int64_t dim, const H& indices, const H& values) {
  Backend& b = be(h, "scatter");
  same_device(h, indices, "scatter");
  same_device(h, values, "scatter");
  same_dtype(h, values, "scatter");
  require_index(indices, "scatter");
  check_same_rank(h, indices, "scatter");
  size_t d = normalize_dim(dim, rank(h), "scatter");
  if (shape(values) != shape(indices))
    throw ShapeError("scatter", "values " + shape(values).to_string() + " and indices " + shape(indices).to_string() +
                                    " must have one shape");
  return with(h, b.scatter_add(std::move(h.prim), d, indices.prim, values.prim));
}

H mask_where(H h, const H& mask, const H& value) {
  Backend& b = be(h, "mask_where");
  same_device(h, mask, "mask_where");
  same_device(h, value, "mask_where");
  require_bool(mask, "mask_where");
  same_dtype(h, value, "mask_where");
  Shape out = broadcast_shapes(broadcast_shapes(shape(h), shape(mask), "mask_where"), shape(value), "mask_where");
  if (out != shape(h))
    throw ShapeError("mask_where", "mask " + shape(mask).to_string() + " and value " + shape(value).to_string() +
                                       " must broadcast to the tensor's shape " + shape(h).to_string());
  return with(h, b.mask_where(std::move(h.prim), mask.prim, value.prim));
}

H mask_fill(H h, const H& mask, Scalar value) {
  Backend& b = be(h, "mask_fill");
  same_device(h, mask, "mask_fill");
  require_bool(mask, "mask_fill");
  if (broadcast_shapes(shape(h), shape(mask), "mask_fill") != shape(h))
    throw ShapeError("mask_fill", "mask " + shape(mask).to_string() + " must broadcast to the tensor's shape " +
                                      shape(h).to_string());
  return with(h, b.mask_fill(std::move(h.prim), mask.prim, value));
}

H argwhere(const H& h) { return with(h, be(h, "argwhere").argwhere(h.prim)); }

Hs nonzero(const H& h) {
  H where = argwhere(h);
  Hs out;
  for (size_t d = 0; d < rank(h); ++d) {
    std::vector<Slice> col{Slice::all(), Slice::at(static_cast<int64_t>(d))};
    out.push_back(reshape(slice(where, col), {-1}));
  }
  return out;
}

H one_hot(const H& h, int64_t num_classes, DType t) {
  Backend& b = be(h, "one_hot");
  if (!is_int(h.prim->dtype())) throw DTypeError("one_hot", "expected an int tensor, got " + dt(h.prim->dtype()));
  if (num_classes == 0 || num_classes < -1)
    throw ValueError("one_hot", "num_classes must be positive (or -1 to infer it), got " + std::to_string(num_classes));
  int64_t n = shape(h).num_elements();
  if (n > 0) {
    int64_t lo = b.into_data(b.min(h.prim)).convert(DType::I64).to_vec<int64_t>()[0];
    int64_t hi = b.into_data(b.max(h.prim)).convert(DType::I64).to_vec<int64_t>()[0];
    if (num_classes == -1) num_classes = checked_add(hi, 1, "one_hot");
    if (lo < 0 || hi >= num_classes)
      throw IndexError("one_hot", "class values must be in [0, " + std::to_string(num_classes) + "), found " +
                                      std::to_string(lo < 0 ? lo : hi));
  } else if (num_classes == -1) {
    throw ValueError("one_hot", "cannot infer num_classes from an empty tensor");
  }
  if (num_classes <= 0) throw ValueError("one_hot", "num_classes must be positive, got " + std::to_string(num_classes));
  std::vector<int64_t> out = shape(h).dims();
  out.push_back(num_classes);
  checked_bytes(Shape(out), dtype_size(t), "one_hot");
  H x = unsqueeze_dims(cast(h, DType::I64), {-1});
  std::vector<int64_t> cls_shape(rank(x), 1);
  cls_shape.back() = num_classes;
  Prim classes = b.reshape(b.arange(0, num_classes, 1, DType::I64), Shape(cls_shape));
  return with(h, b.cast(b.equal(std::move(x.prim), std::move(classes)), t));
}

H tril_mask(const Device& d, const Shape& s, int64_t diagonal) { return triangle(d, s, diagonal, true, "tril_mask"); }
H triu_mask(const Device& d, const Shape& s, int64_t diagonal) { return triangle(d, s, diagonal, false, "triu_mask"); }

H tril(H h, int64_t diagonal) {
  H mask = tril_mask(h.device, shape(h), diagonal);
  return mask_fill(std::move(h), mask, 0);
}

H triu(H h, int64_t diagonal) {
  H mask = triu_mask(h.device, shape(h), diagonal);
  return mask_fill(std::move(h), mask, 0);
}

}  // namespace burn::api
