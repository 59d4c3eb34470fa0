// Tensor API: indexing, masking and triangular masks.
#include <algorithm>

#include "burn/tensor/shape_rules.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

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

int64_t read_i64(const H& h) { return into_data(h).convert(DType::I64).to_vec<int64_t>()[0]; }

// The row-major flat positions [M] of the k-tuples in indices [..., k] over the first k dims of
// `s` (gather_nd / scatter_nd); negative entries count from the end. One host read checks bounds.
H linear_index(const H& indices, const Shape& s, int64_t k, const char* op) {
  const Device& dev = indices.device;
  const int64_t m = shape(indices).num_elements() / k;
  H idx = reshape(cast(indices, DType::I64), {m, k});
  std::vector<int64_t> dims(s.begin(), s.begin() + k), strides(static_cast<size_t>(k), 1);
  for (int64_t j = k - 1; j > 0; --j) strides[j - 1] = strides[j] * dims[j];
  H sizes = from_data(dev, TensorData::from_vector(dims, Shape{1, k}), Kind::Int);
  H negative = cast(compare_elem(OpId::lower_elem, idx, int64_t{0}), DType::I64);
  idx = add(std::move(idx), mul(negative, sizes));
  if (m > 0) {
    H bad = bool_binary(OpId::bool_or, compare_elem(OpId::lower_elem, idx, int64_t{0}),
                        compare(OpId::greater_equal, idx, sizes));
    if (read_i64(reduce_all(OpId::any, bad)) != 0) {
      // Name the first offending entry, as written by the caller.
      std::vector<int64_t> raw = into_data(indices).convert(DType::I64).to_vec<int64_t>();
      for (size_t i = 0; i < raw.size(); ++i) {
        int64_t n = dims[i % static_cast<size_t>(k)];
        if (raw[i] < -n || raw[i] >= n)
          throw IndexError(op, "index " + std::to_string(raw[i]) + " (entry " + std::to_string(i % k) + " of tuple " +
                                   std::to_string(i / k) + ") is out of range for dim " + std::to_string(i % k) +
                                   " of size " + std::to_string(n) + " in " + s.to_string());
      }
    }
  }
  H st = from_data(dev, TensorData::from_vector(strides, Shape{1, k}), Kind::Int);
  return reshape(reduce_dim(OpId::sum_dim, mul(std::move(idx), st), 1), {m});
}

// k = indices.shape[-1] must be in [1, rank]; returns it with the output / update shape
// indices.shape[:-1] + s[k:] ([1] when that is empty: tensors have rank >= 1).
std::pair<int64_t, Shape> nd_shapes(const H& h, const H& indices, const char* op) {
  require_index(indices, op);
  const Shape& s = shape(h);
  const Shape& is = shape(indices);
  if (is.rank() == 0) throw ShapeError(op, "indices must have a last dim holding the index tuples, got a 0-d tensor");
  const int64_t k = is[is.rank() - 1];
  if (k < 1 || k > static_cast<int64_t>(s.rank()))
    throw ShapeError(op, "the last dim of indices " + is.to_string() + " must be in [1, " + std::to_string(s.rank()) +
                             "] (the tensor's rank), got " + std::to_string(k));
  std::vector<int64_t> out(is.begin(), is.end() - 1);
  out.insert(out.end(), s.begin() + k, s.end());
  if (out.empty()) out.push_back(1);
  return {k, Shape(std::move(out))};
}

// [prod(s[:k]), prod(s[k:])]: one row per k-tuple position.
std::vector<int64_t> rows_of(const Shape& s, int64_t k) {
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < s.rank(); ++i) (static_cast<int64_t>(i) < k ? outer : inner) *= s[i];
  return {outer, inner};
}

}  // namespace

H select(H h, int64_t dim, const H& indices) {
  Backend& b = be(h, "select");
  same_device(h, indices, "select");
  require_index(indices, "select");
  size_t d = normalize_dim(dim, rank(h), "select");
  shape_rules::select(shape(h), d, shape(indices));
  return with(h, b.select(std::move(h.prim), d, indices.prim));
}

H select_assign(H h, int64_t dim, const H& indices, const H& values) {
  Backend& b = be(h, "select_assign");
  same_device(h, indices, "select_assign");
  same_device(h, values, "select_assign");
  same_dtype(h, values, "select_assign");
  require_index(indices, "select_assign");
  size_t d = normalize_dim(dim, rank(h), "select_assign");
  shape_rules::select_add(shape(h), d, shape(indices), shape(values), "select_assign");
  return with(h, b.select_add(std::move(h.prim), d, indices.prim, values.prim));
}

H gather(H h, int64_t dim, const H& indices) {
  Backend& b = be(h, "gather");
  same_device(h, indices, "gather");
  require_index(indices, "gather");
  size_t d = normalize_dim(dim, rank(h), "gather");
  shape_rules::gather(shape(h), d, shape(indices));
  return with(h, b.gather(std::move(h.prim), d, indices.prim));
}

H scatter_add(H h, int64_t dim, const H& indices, const H& values) {
  Backend& b = be(h, "scatter");
  same_device(h, indices, "scatter");
  same_device(h, values, "scatter");
  same_dtype(h, values, "scatter");
  require_index(indices, "scatter");
  size_t d = normalize_dim(dim, rank(h), "scatter");
  shape_rules::scatter_add(shape(h), d, shape(indices), shape(values), "scatter");
  // Stricter than the op (torch's scatter_add_ reads a prefix of larger values): one shape.
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
  const Shape out = shape_rules::broadcast(shape(h), shape(mask), shape(value), "mask_where");
  if (out != shape(h))
    throw ShapeError("mask_where", "mask " + shape(mask).to_string() + " and value " + shape(value).to_string() +
                                       " must broadcast to the tensor's shape " + shape(h).to_string());
  return with(h, b.mask_where(std::move(h.prim), mask.prim, value.prim));
}

H mask_fill(H h, const H& mask, Scalar value) {
  Backend& b = be(h, "mask_fill");
  same_device(h, mask, "mask_fill");
  require_bool(mask, "mask_fill");
  if (shape_rules::broadcast(shape(h), shape(mask), "mask_fill") != shape(h))
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

H take(const H& h, const H& indices) {
  be(h, "take");
  same_device(h, indices, "take");
  require_index(indices, "take");
  const int64_t n = shape(h).num_elements();
  H idx = reshape(cast(indices, DType::I64), {-1});
  if (shape(idx)[0] > 0) {
    const int64_t lo = read_i64(reduce_all(OpId::min, idx)), hi = read_i64(reduce_all(OpId::max, idx));
    if (lo < -n || hi >= n)
      throw IndexError("take", "index " + std::to_string(lo < -n ? lo : hi) + " is out of range for a tensor of " +
                                   std::to_string(n) + " elements (shape " + shape(h).to_string() + ")");
    if (lo < 0) idx = add(idx, mul_scalar(cast(compare_elem(OpId::lower_elem, idx, int64_t{0}), DType::I64), n));
  }
  return reshape(select(reshape(h, {-1}), 0, idx), shape(indices).dims());
}

H gather_nd(const H& h, const H& indices) {
  be(h, "gather_nd");
  same_device(h, indices, "gather_nd");
  auto [k, out] = nd_shapes(h, indices, "gather_nd");
  H lin = linear_index(indices, shape(h), k, "gather_nd");
  return reshape(select(reshape(h, rows_of(shape(h), k)), 0, lin), out.dims());
}

H scatter_nd(H h, const H& indices, const H& updates, ScatterReduction reduction) {
  const char* op = "scatter_nd";
  be(h, op);
  same_device(h, indices, op);
  same_device(h, updates, op);
  same_dtype(h, updates, op);
  auto [k, want] = nd_shapes(h, indices, op);
  if (shape(updates) != want)
    throw ShapeError(op, "updates of shape " + shape(updates).to_string() + " must have shape " + want.to_string() +
                             " (indices.shape[:-1] + data.shape[k:]) for data " + shape(h).to_string() +
                             " and indices " + shape(indices).to_string());
  const DType t = h.prim->dtype();
  if (is_bool(t)) {
    if (reduction == ScatterReduction::Add) throw DTypeError(op, "reduction add needs a float or int tensor, got bool");
    // Bool rows are replaced, never added: carry them as integers through the index_add below.
    return cast(scatter_nd(cast(std::move(h), DType::I64), indices, cast(updates, DType::I64), reduction), t);
  }
  const Shape s = shape(h);
  const std::vector<int64_t> rows = rows_of(s, k);
  H lin = linear_index(indices, s, k, op);
  const int64_t m = shape(lin)[0];
  H x = reshape(std::move(h), rows);
  if (reduction == ScatterReduction::None && m > 0) {
    // Replacement: clear the target rows, then add. Two updates of one row have no defined winner
    // (ONNX), so they are refused instead of summed.
    H hits = select_assign(full(x.device, Shape{rows[0]}, int64_t{0}, DType::I64), 0, lin,
                           full(x.device, Shape{m}, int64_t{1}, DType::I64));
    if (read_i64(reduce_all(OpId::max, hits)) > 1) {
      std::vector<int64_t> c = into_data(hits).to_vec<int64_t>();
      int64_t at = std::max_element(c.begin(), c.end()) - c.begin();
      std::string tuple;
      for (int64_t j = k - 1, r = at; j >= 0; --j) {
        tuple = std::to_string(r % s[j]) + (tuple.empty() ? "" : ", ") + tuple;
        r /= s[j];
      }
      throw ValueError(op, "index (" + tuple + ") appears " + std::to_string(c[at]) +
                               " times; reduction none needs distinct indices (use add to sum them)");
    }
    x = mask_fill(std::move(x), reshape(compare_elem(OpId::greater_elem, hits, int64_t{0}), {rows[0], 1}), 0);
  }
  return reshape(select_assign(std::move(x), 0, lin, reshape(updates, {m, rows[1]})), s.dims());
}

H mask_select(const H& h, const H& mask) {
  be(h, "mask_select");
  same_device(h, mask, "mask_select");
  require_bool(mask, "mask_select");
  const Shape s = shape_rules::broadcast(shape(h), shape(mask), "mask_select");
  H where = argwhere(reshape(expand(mask, s.dims()), {-1}));  // [K, 1], row-major order
  return select(reshape(expand(h, s.dims()), {-1}), 0, reshape(where, {-1}));
}

}  // namespace burn::api
