// Layout ops: reshape, permute, expand, flip and slice make views (no copy, no launch); slice_assign
// copies views into views with the copy kernel. The view arithmetic is burn-gpu's (burn/gpu/views.hpp).
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

namespace {

// The view of `x` restricted to `ranges` (one per leading dim), checked by the slice rule.
ClPtr slice_view(const ClPtr& x, const Slices& ranges, const char* op) {
  return make_view(x, gpu::slice_view(view_of(*x), ranges, op));
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
  return make_view(t, gpu::permute_view(view_of(*t), axes));
}

Prim OpenClBackend::expand(Prim x, const Shape& shape) {
  const ClPtr t = cl(x, "expand");
  return make_view(t, gpu::expand_view(view_of(*t), shape));
}

Prim OpenClBackend::flip(Prim x, const Axes& axes) {
  const ClPtr t = cl(x, "flip");
  return make_view(t, gpu::flip_view(view_of(*t), axes));
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
