// CPU layout ops: reshape, permute, expand, flip and slice make views (no copy); slice_assign, cat and
// repeat_dim copy with memcpy-sized rows where the layout allows.
#include <cstring>
#include <string>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"

namespace burn::cpu {

namespace {

// The view of `x` restricted to `ranges` (one per leading dim), checked by the slice rule.
CpuPtr slice_view(const CpuPtr& x, const Slices& ranges, const char* op) {
  Shape region = shape_rules::slice(x->shape(), ranges, op);
  std::vector<int64_t> strides = x->strides();
  int64_t offset = x->offset();
  for (size_t d = 0; d < ranges.size(); ++d) {
    const int64_t len = region[d];
    if (len > 0) offset += ranges[d].start * strides[d];
    // With one element the stride is never stepped; a huge step must not overflow it.
    if (len > 1) strides[d] *= ranges[d].step;
  }
  return make_view(x, std::move(region), std::move(strides), offset);
}

}  // namespace

Prim CpuBackend::reshape(Prim x, const Shape& shape) {
  CpuPtr t = as_cpu(x, "reshape");
  Shape target = shape_rules::reshape(t->shape(), shape);
  if (target == t->shape()) return x;
  // A strided input is copied once; the result is then a view of the contiguous copy.
  CpuPtr c = contiguous(t);
  std::vector<int64_t> strides = contiguous_strides(target);
  return make_view(c, std::move(target), std::move(strides), c->offset());
}

Prim CpuBackend::permute(Prim x, const Axes& axes) {
  CpuPtr t = as_cpu(x, "permute");
  Shape dims = shape_rules::permute(t->shape(), axes);
  const Axes norm = shape_rules::normalize_axes(axes, axes.size(), "permute");
  std::vector<int64_t> strides(norm.size());
  for (size_t i = 0; i < norm.size(); ++i) strides[i] = t->strides()[static_cast<size_t>(norm[i])];
  return make_view(t, std::move(dims), std::move(strides), t->offset());
}

Prim CpuBackend::expand(Prim x, const Shape& shape) {
  CpuPtr t = as_cpu(x, "expand");
  Shape dims = shape_rules::expand(t->shape(), shape);
  const size_t lead = dims.rank() - t->shape().rank();
  std::vector<int64_t> strides(dims.rank(), 0);  // stride 0: every index of a stretched dim reads one element
  for (size_t i = lead; i < dims.rank(); ++i)
    if (dims[i] == t->shape()[i - lead]) strides[i] = t->strides()[i - lead];
  return make_view(t, std::move(dims), std::move(strides), t->offset());
}

Prim CpuBackend::flip(Prim x, const Axes& axes) {
  CpuPtr t = as_cpu(x, "flip");
  std::vector<int64_t> strides = t->strides();
  int64_t offset = t->offset();
  for (int64_t axis : shape_rules::normalize_axes(axes, t->shape().rank(), "flip")) {
    const auto a = static_cast<size_t>(axis);
    const int64_t n = t->shape()[a];
    if (n > 1) offset += (n - 1) * strides[a];  // start at the last element and walk backwards
    strides[a] = -strides[a];
  }
  return make_view(t, t->shape(), std::move(strides), offset);
}

Prim CpuBackend::slice(Prim x, const Slices& ranges) { return slice_view(as_cpu(x, "slice"), ranges, "slice"); }

Prim CpuBackend::slice_assign(Prim x, const Slices& ranges, Prim value) {
  const CpuTensor* xt = as_cpu(x, "slice_assign").get();
  const CpuPtr v = as_cpu(value, "slice_assign");
  if (xt->dtype() != v->dtype())
    throw DTypeError("slice_assign", "tensor " + std::string(dtype_name(xt->dtype())) + " and value " +
                                         std::string(dtype_name(v->dtype())) + " differ");
  // Write in place when the caller handed over its only handle; otherwise into a copy.
  CpuPtr out;
  if (reusable(x, xt->shape(), xt->dtype())) {
    out = std::static_pointer_cast<CpuTensor>(x);
  } else {
    out = alloc(xt->shape(), xt->dtype());
    copy_strided(*xt, *out);
  }
  shape_rules::slice_assign(xt->shape(), ranges, v->shape());
  CpuPtr region = slice_view(out, ranges, "slice_assign");
  copy_view(*v, *region);
  return out;
}

Prim CpuBackend::cat(const Prims& xs, size_t dim) {
  std::vector<CpuPtr> ts;
  std::vector<const Shape*> shapes;
  ts.reserve(xs.size());
  for (const Prim& p : xs) {
    ts.push_back(as_cpu(p, "cat"));
    shapes.push_back(&ts.back()->shape());
    if (ts.back()->dtype() != ts[0]->dtype())
      throw DTypeError("cat", "tensors of " + std::string(dtype_name(ts[0]->dtype())) + " and " +
                                  std::string(dtype_name(ts.back()->dtype())) + " cannot be concatenated");
  }
  const Shape dims = shape_rules::cat(shapes, dim);
  const DType dtype = ts[0]->dtype();
  CpuPtr out = alloc(dims, dtype);
  const std::vector<int64_t>& ost = out->strides();
  int64_t at = 0;
  // Each input is copied into its slab of the output: rows of the coalesced layout become memcpys.
  for (const CpuPtr& t : ts) {
    const int64_t len = t->shape()[dim];
    if (len > 0 && t->shape().num_elements() > 0) {
      CpuTensor dst(t->shape(), dtype, out->storage(), ost, at * ost[dim]);
      copy_view(*t, dst);
    }
    at += len;
  }
  return out;
}

Prim CpuBackend::repeat_dim(Prim x, size_t dim, int64_t times) {
  CpuPtr t = as_cpu(x, "repeat_dim");
  const Shape& s = t->shape();
  const Shape out_shape = shape_rules::repeat_dim(s, dim, times);
  if (times == 1) return x;
  // View x as [.., times, n, ..] with a stride-0 repeat axis, then one strided copy materialises it.
  std::vector<int64_t> vdims = s.dims(), vstrides = t->strides();
  vdims.insert(vdims.begin() + static_cast<std::ptrdiff_t>(dim), times);
  vstrides.insert(vstrides.begin() + static_cast<std::ptrdiff_t>(dim), 0);
  CpuTensor src(Shape(vdims), t->dtype(), t->storage(), vstrides, t->offset());
  CpuPtr out = alloc(out_shape, t->dtype());
  CpuTensor dst(Shape(vdims), t->dtype(), out->storage(), contiguous_strides(Shape(vdims)), 0);
  copy_view(src, dst);
  return out;
}

}  // namespace burn::cpu
