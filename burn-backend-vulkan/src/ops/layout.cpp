// Layout ops: reshape, permute, expand, flip and slice make views (no copy, no dispatch); slice_assign,
// cat and repeat_dim copy views into views with the copy kernel.
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

namespace {

std::string axes_string(const Axes& axes) {
  std::string s = "[";
  for (size_t i = 0; i < axes.size(); ++i) s += (i ? ", " : "") + std::to_string(axes[i]);
  return s + "]";
}

size_t check_axis(int64_t axis, size_t rank, const char* op) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw IndexError(op, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

VkPtr slice_view(const VkPtr& x, const Slices& ranges, const char* op) {
  const Shape& shape = x->shape();
  if (ranges.size() > shape.rank())
    throw IndexError(op, std::to_string(ranges.size()) + " ranges for a tensor of shape " + shape.to_string());
  std::vector<int64_t> dims = shape.dims();
  std::vector<int64_t> strides = x->strides();
  int64_t offset = x->offset();
  for (size_t d = 0; d < ranges.size(); ++d) {
    const SliceRange& r = ranges[d];
    if (r.step <= 0)
      throw ValueError(op, "step " + std::to_string(r.step) + " of dim " + std::to_string(d) + " must be positive");
    if (r.start < 0 || r.end < r.start || r.end > dims[d])
      throw IndexError(op, "range " + std::to_string(r.start) + ".." + std::to_string(r.end) + " of dim " +
                               std::to_string(d) + " is out of bounds for shape " + shape.to_string());
    const int64_t len = r.length();
    if (len > 0) offset += r.start * strides[d];
    dims[d] = len;
    if (len > 1) strides[d] *= r.step;
  }
  return make_view(x, Shape(std::move(dims)), std::move(strides), offset);
}

}  // namespace

Prim VulkanBackend::reshape(Prim x, const Shape& shape) {
  const VkPtr t = vk(x, "reshape");
  std::vector<int64_t> dims = shape.dims();
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (dims[i] < 0) {
      throw ShapeError("reshape", "invalid target shape " + shape.to_string());
    } else {
      known = checked_mul(known, dims[i], "reshape");
    }
  }
  const int64_t n = t->shape().num_elements();
  if (infer >= 0) {
    if (known == 0 || n % known != 0)
      throw ShapeError("reshape", "cannot reshape " + t->shape().to_string() + " to " + shape.to_string());
    dims[infer] = n / known;
    known *= dims[infer];
  }
  if (known != n)
    throw ShapeError("reshape", "cannot reshape " + t->shape().to_string() + " (" + std::to_string(n) +
                                    " elements) to " + shape.to_string() + " (" + std::to_string(known) + " elements)");
  Shape target(std::move(dims));
  if (target == t->shape()) return x;
  const VkPtr c = contiguous(t, "reshape");
  std::vector<int64_t> strides = contiguous_strides(target);
  return make_view(c, std::move(target), std::move(strides), c->offset());
}

Prim VulkanBackend::permute(Prim x, const Axes& axes) {
  const VkPtr t = vk(x, "permute");
  const size_t rank = t->shape().rank();
  if (axes.size() != rank)
    throw ShapeError("permute", "axes " + axes_string(axes) + " do not match shape " + t->shape().to_string());
  std::vector<int64_t> dims(rank), strides(rank);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    const size_t a = check_axis(axes[i], rank, "permute");
    if (seen[a]) throw ShapeError("permute", "axes " + axes_string(axes) + " repeat axis " + std::to_string(a));
    seen[a] = true;
    dims[i] = t->shape()[a];
    strides[i] = t->strides()[a];
  }
  return make_view(t, Shape(std::move(dims)), std::move(strides), t->offset());
}

Prim VulkanBackend::expand(Prim x, const Shape& shape) {
  const VkPtr t = vk(x, "expand");
  const Shape& from = t->shape();
  if (shape.rank() < from.rank())
    throw ShapeError("expand", "cannot expand " + from.to_string() + " to the lower rank shape " + shape.to_string());
  const size_t lead = shape.rank() - from.rank();
  std::vector<int64_t> dims(shape.rank()), strides(shape.rank(), 0);
  for (size_t i = 0; i < shape.rank(); ++i) {
    const int64_t want = shape[i];
    if (i < lead) {
      if (want < 0) throw ShapeError("expand", "cannot expand " + from.to_string() + " to " + shape.to_string());
      dims[i] = want;
      continue;
    }
    const int64_t have = from[i - lead];
    if (want == -1 || want == have) {
      dims[i] = have;
      strides[i] = t->strides()[i - lead];
    } else if (have == 1 && want >= 0) {
      dims[i] = want;
    } else {
      throw ShapeError("expand", "cannot expand " + from.to_string() + " to " + shape.to_string() + ": dim " +
                                     std::to_string(i) + " is " + std::to_string(have) + ", not 1");
    }
  }
  return make_view(t, Shape(std::move(dims)), std::move(strides), t->offset());
}

Prim VulkanBackend::flip(Prim x, const Axes& axes) {
  const VkPtr t = vk(x, "flip");
  const size_t rank = t->shape().rank();
  std::vector<int64_t> strides = t->strides();
  std::vector<bool> seen(rank, false);
  int64_t offset = t->offset();
  for (int64_t axis : axes) {
    const size_t a = check_axis(axis, rank, "flip");
    if (seen[a]) throw ShapeError("flip", "axes " + axes_string(axes) + " repeat axis " + std::to_string(a));
    seen[a] = true;
    const int64_t n = t->shape()[a];
    if (n > 1) offset += (n - 1) * strides[a];
    strides[a] = -strides[a];
  }
  return make_view(t, t->shape(), std::move(strides), offset);
}

Prim VulkanBackend::slice(Prim x, const Slices& ranges) { return slice_view(vk(x, "slice"), ranges, "slice"); }

Prim VulkanBackend::slice_assign(Prim x, const Slices& ranges, Prim value) {
  const bool reuse = reusable(x, x ? x->shape() : Shape{}, x ? x->dtype() : DType::F32);
  const VkPtr xt = vk(x, "slice_assign");
  const VkPtr v = vk(value, "slice_assign");
  if (xt->dtype() != v->dtype())
    throw DTypeError("slice_assign", "tensor " + std::string(dtype_name(xt->dtype())) + " and value " +
                                         std::string(dtype_name(v->dtype())) + " differ");
  VkPtr out = reuse ? xt : alloc(xt->shape(), xt->dtype());
  if (!reuse) copy_into(*xt, *out, "slice_assign");
  const VkPtr region = slice_view(out, ranges, "slice_assign");
  const Shape& rs = region->shape();
  const Shape& vs = v->shape();
  bool ok = vs.rank() <= rs.rank();
  for (size_t i = 0; ok && i < vs.rank(); ++i) {
    const int64_t vd = vs[vs.rank() - 1 - i], rd = rs[rs.rank() - 1 - i];
    ok = vd == rd || vd == 1;
  }
  if (!ok)
    throw ShapeError("slice_assign", "value " + vs.to_string() + " does not broadcast to the region " + rs.to_string());
  copy_into(*v, *region, "slice_assign");
  return out;
}

Prim VulkanBackend::cat(const Prims& xs, size_t dim) {
  if (xs.empty()) throw ValueError("cat", "needs at least one tensor");
  std::vector<VkPtr> ts;
  for (const Prim& p : xs) ts.push_back(vk(p, "cat"));
  const Shape& first = ts[0]->shape();
  const DType dtype = ts[0]->dtype();
  if (dim >= first.rank())
    throw IndexError("cat", "dim " + std::to_string(dim) + " is out of range for shape " + first.to_string());
  std::vector<int64_t> dims = first.dims();
  dims[dim] = 0;
  for (const VkPtr& t : ts) {
    if (t->dtype() != dtype)
      throw DTypeError("cat", "tensors of " + std::string(dtype_name(dtype)) + " and " +
                                  std::string(dtype_name(t->dtype())) + " cannot be concatenated");
    bool ok = t->shape().rank() == first.rank();
    for (size_t d = 0; ok && d < first.rank(); ++d) ok = d == dim || t->shape()[d] == first[d];
    if (!ok)
      throw ShapeError("cat", "shapes " + first.to_string() + " and " + t->shape().to_string() +
                                  " differ outside dim " + std::to_string(dim));
    dims[dim] += t->shape()[dim];
  }
  VkPtr out = alloc(Shape(dims), dtype);
  int64_t at = 0;
  for (const VkPtr& t : ts) {
    const int64_t len = t->shape()[dim];
    if (len > 0 && t->shape().num_elements() > 0) {
      const VkPtr slab = make_view(out, t->shape(), out->strides(), at * out->strides()[dim]);
      copy_into(*t, *slab, "cat");
    }
    at += len;
  }
  return out;
}

Prim VulkanBackend::repeat_dim(Prim x, size_t dim, int64_t times) {
  const VkPtr t = vk(x, "repeat_dim");
  const Shape& s = t->shape();
  if (dim >= s.rank())
    throw IndexError("repeat_dim", "dim " + std::to_string(dim) + " is out of range for shape " + s.to_string());
  if (times < 0) throw ValueError("repeat_dim", "times " + std::to_string(times) + " must not be negative");
  if (times == 1) return x;
  // x seen as [.., times, n, ..] with a stride-0 repeat axis, copied once into the result seen the same way.
  std::vector<int64_t> vdims = s.dims(), vstrides = t->strides();
  vdims.insert(vdims.begin() + static_cast<std::ptrdiff_t>(dim), times);
  vstrides.insert(vstrides.begin() + static_cast<std::ptrdiff_t>(dim), 0);
  std::vector<int64_t> odims = s.dims();
  odims[dim] = checked_mul(odims[dim], times, "repeat_dim");
  VkPtr out = alloc(Shape(odims), t->dtype());
  if (out->shape().num_elements() == 0) return out;
  const Shape view(vdims);
  copy_into(*make_view(t, view, std::move(vstrides), t->offset()), *make_view(out, view, contiguous_strides(view), 0),
            "repeat_dim");
  return out;
}

}  // namespace burn::vulkan
