// Layout ops: reshape, permute, expand, flip and slice make views (no copy, no dispatch); slice_assign,
// cat and repeat_dim copy views into views with the copy kernel. The view arithmetic is burn-gpu's
// (burn/gpu/views.hpp).
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

namespace {

// The view of `x` restricted to `ranges` (one per leading dim), checked by the slice rule.
VkPtr slice_view(const VkPtr& x, const Slices& ranges, const char* op) {
  return make_view(x, gpu::slice_view(view_of(*x), ranges, op));
}

}  // namespace

Prim VulkanBackend::reshape(Prim x, const Shape& shape) {
  const VkPtr t = vk(x, "reshape");
  Shape target = shape_rules::reshape(t->shape(), shape);
  if (target == t->shape()) return x;
  const VkPtr c = contiguous(t, "reshape");
  std::vector<int64_t> strides = contiguous_strides(target);
  return make_view(c, std::move(target), std::move(strides), c->offset());
}

Prim VulkanBackend::permute(Prim x, const Axes& axes) {
  const VkPtr t = vk(x, "permute");
  return make_view(t, gpu::permute_view(view_of(*t), axes));
}

Prim VulkanBackend::expand(Prim x, const Shape& shape) {
  const VkPtr t = vk(x, "expand");
  return make_view(t, gpu::expand_view(view_of(*t), shape));
}

Prim VulkanBackend::flip(Prim x, const Axes& axes) {
  const VkPtr t = vk(x, "flip");
  return make_view(t, gpu::flip_view(view_of(*t), axes));
}

Prim VulkanBackend::slice(Prim x, const Slices& ranges) { return slice_view(vk(x, "slice"), ranges, "slice"); }

Prim VulkanBackend::slice_assign(Prim x, const Slices& ranges, Prim value) {
  const bool reuse = reusable(x, x ? x->shape() : Shape{}, x ? x->dtype() : DType::F32);
  const VkPtr xt = vk(x, "slice_assign");
  const VkPtr v = vk(value, "slice_assign");
  if (xt->dtype() != v->dtype())
    throw DTypeError("slice_assign", "tensor " + std::string(dtype_name(xt->dtype())) + " and value " +
                                         std::string(dtype_name(v->dtype())) + " differ");
  shape_rules::slice_assign(xt->shape(), ranges, v->shape());
  VkPtr out = reuse ? xt : alloc(xt->shape(), xt->dtype());
  if (!reuse) copy_into(*xt, *out, "slice_assign");
  copy_into(*v, *slice_view(out, ranges, "slice_assign"), "slice_assign");
  return out;
}

Prim VulkanBackend::cat(const Prims& xs, size_t dim) {
  std::vector<VkPtr> ts;
  std::vector<const Shape*> shapes;
  for (const Prim& p : xs) {
    ts.push_back(vk(p, "cat"));
    shapes.push_back(&ts.back()->shape());
    if (ts.back()->dtype() != ts[0]->dtype())
      throw DTypeError("cat", "tensors of " + std::string(dtype_name(ts[0]->dtype())) + " and " +
                                  std::string(dtype_name(ts.back()->dtype())) + " cannot be concatenated");
  }
  VkPtr out = alloc(shape_rules::cat(shapes, dim), ts[0]->dtype());
  int64_t at = 0;
  for (const VkPtr& t : ts) {
    const int64_t len = t->shape()[dim];
    if (len > 0 && t->shape().num_elements() > 0)
      copy_into(*t, *make_view(out, t->shape(), out->strides(), at * out->strides()[dim]), "cat");
    at += len;
  }
  return out;
}

Prim VulkanBackend::repeat_dim(Prim x, size_t dim, int64_t times) {
  const VkPtr t = vk(x, "repeat_dim");
  const Shape& s = t->shape();
  const Shape out_shape = shape_rules::repeat_dim(s, dim, times);
  if (times == 1) return x;
  // x seen as [.., times, n, ..] with a stride-0 repeat axis, copied once into the result seen the same way.
  std::vector<int64_t> vdims = s.dims(), vstrides = t->strides();
  vdims.insert(vdims.begin() + static_cast<std::ptrdiff_t>(dim), times);
  vstrides.insert(vstrides.begin() + static_cast<std::ptrdiff_t>(dim), 0);
  VkPtr out = alloc(out_shape, t->dtype());
  if (out->shape().num_elements() == 0) return out;
  const Shape view(vdims);
  copy_into(*make_view(t, view, std::move(vstrides), t->offset()), *make_view(out, view, contiguous_strides(view), 0),
            "repeat_dim");
  return out;
}

}  // namespace burn::vulkan
