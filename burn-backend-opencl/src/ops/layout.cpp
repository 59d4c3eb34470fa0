// Layout ops: reshape, permute, expand, flip and slice make views (no copy, no launch); slice_assign
// copies views into views with the copy kernel. The same view arithmetic as the vulkan plugin's
// src/ops/layout.cpp (to be shared through burn-gpu, README "Open").
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

namespace {

// The view of `x` restricted to `ranges` (one per leading dim), checked by the slice rule.
ClPtr slice_view(const ClPtr& x, const Slices& ranges, const char* op) {
  Shape region = shape_rules::slice(x->shape(), ranges, op);
  std::vector<int64_t> strides = x->strides();
  int64_t offset = x->offset();
  for (size_t d = 0; d < ranges.size(); ++d) {
    const int64_t len = region[d];
    if (len > 0) offset += ranges[d].start * strides[d];
    if (len > 1) strides[d] *= ranges[d].step;  // with one element the stride never steps: no overflow
  }
  return make_view(x, std::move(region), std::move(strides), offset);
}

}  // namespace

Prim OpenClBackend::reshape(Prim x, const Shape& shape) {
  const ClPtr t = cl(x, "reshape");
  Shape target = shape_rules::reshape(t->shape(), shape);
  if (target == t->shape()) return x;
  const ClPtr c = contiguous(t, "reshape");
  std::vector<int64_t> strides = contiguous_strides(target);
  return make_view(c, std::move(target), std::move(strides), c->offset());
}

Prim OpenClBackend::permute(Prim x, const Axes& axes) {
  const ClPtr t = cl(x, "permute");
  Shape dims = shape_rules::permute(t->shape(), axes);
  const Axes norm = shape_rules::normalize_axes(axes, axes.size(), "permute");
  std::vector<int64_t> strides(norm.size());
  for (size_t i = 0; i < norm.size(); ++i) strides[i] = t->strides()[static_cast<size_t>(norm[i])];
  return make_view(t, std::move(dims), std::move(strides), t->offset());
}

Prim OpenClBackend::expand(Prim x, const Shape& shape) {
  const ClPtr t = cl(x, "expand");
  Shape dims = shape_rules::expand(t->shape(), shape);
  const size_t lead = dims.rank() - t->shape().rank();
  std::vector<int64_t> strides(dims.rank(), 0);  // stride 0: every index of a stretched dim reads one element
  for (size_t i = lead; i < dims.rank(); ++i)
    if (dims[i] == t->shape()[i - lead]) strides[i] = t->strides()[i - lead];
  return make_view(t, std::move(dims), std::move(strides), t->offset());
}

Prim OpenClBackend::flip(Prim x, const Axes& axes) {
  const ClPtr t = cl(x, "flip");
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

Prim OpenClBackend::slice(Prim x, const Slices& ranges) { return slice_view(cl(x, "slice"), ranges, "slice"); }

Prim OpenClBackend::slice_assign(Prim x, const Slices& ranges, Prim value) {
  const bool reuse = reusable(x, x ? x->shape() : Shape{}, x ? x->dtype() : DType::F32);
  const ClPtr xt = cl(x, "slice_assign");
  const ClPtr v = cl(value, "slice_assign");
  if (xt->dtype() != v->dtype())
    throw DTypeError("slice_assign", "tensor " + std::string(dtype_name(xt->dtype())) + " and value " +
                                         std::string(dtype_name(v->dtype())) + " differ");
  shape_rules::slice_assign(xt->shape(), ranges, v->shape());
  ClPtr out = reuse ? xt : alloc(xt->shape(), xt->dtype(), "slice_assign");
  if (!reuse) copy_into(*xt, *out, "slice_assign");
  copy_into(*v, *slice_view(out, ranges, "slice_assign"), "slice_assign");
  return out;
}

}  // namespace burn::opencl
