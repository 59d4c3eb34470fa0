// Indexing ops: mask_where and mask_fill are elementwise expressions (burn/gpu/elementwise_ops.hpp);
// gather and select run the gather kernel, scatter_add and select_add the scatter kernel
// (burn-gpu/kernels/indexing.kernel, shared with the vulkan plugin). Indices are checked on the device:
// one out of range (negative ones too, as on the cpu backend) is a fault raised at the next read, naming
// the op, the index and the dim size. argwhere runs the three passes of burn-gpu/kernels/argwhere.kernel.
#include <string>
#include <string_view>
#include <vector>

#include "burn/gpu/elementwise_ops.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "launch.hpp"
#include "ops/elementwise.hpp"

namespace burn::opencl {

namespace {

void check_index_dtype(const OpenClTensor& idx, const char* op) {
  if (idx.dtype() != DType::I64 && idx.dtype() != DType::I32)
    throw DTypeError(op, "indices must be i64 or i32, got " + std::string(dtype_name(idx.dtype())));
}

// The scatters accumulate: numeric dtypes and i8/u8 (the cpu backend's set).
void check_addable(DType d, const char* op) {
  if (d == DType::Bool)
    throw DTypeError(op, "expected a numeric tensor (f32, f64, i64, i32, i8 or u8), got " + std::string(dtype_name(d)));
}

// Whether offsets into `t`'s whole view may reach 2^31 elements (then the kernel indexes with 64 bits).
bool spans_2g(const OpenClTensor& t) {
  int64_t span = 0;
  for (size_t d = 0; d < t.shape().rank(); ++d)
    if (t.shape()[d] > 1) span += (t.shape()[d] - 1) * (t.strides()[d] < 0 ? -t.strides()[d] : t.strides()[d]);
  return span >= (int64_t{1} << 31) || t.shape().num_elements() >= (int64_t{1} << 31);
}

// The result of a scatter: x itself when the caller gave up its only handle, else a contiguous copy.
ClPtr scatter_target(const OpenClBackend& be, const Prim& x, const char* op) {
  const bool reuse = reusable(x, x->shape(), x->dtype());
  const ClPtr t = be.cl(x, op);
  if (reuse) return t;
  ClPtr out = be.alloc(t->shape(), t->dtype(), op);
  be.copy_into(*t, *out, op);
  return out;
}

std::string dim_what(size_t dim) { return "dim " + std::to_string(dim); }

// A 1-D index tensor seen along `dim` of `shape` (stride 0 elsewhere): select's indices as gather's.
ClPtr along_dim(const ClPtr& idx, const Shape& shape, size_t dim) {
  std::vector<int64_t> strides(shape.rank(), 0);
  strides[dim] = idx->strides()[0];
  return make_view(idx, shape, std::move(strides), idx->offset());
}

ClPtr run_gather(const OpenClBackend& be, const ClPtr& x, size_t dim, const ClPtr& idx, const char* op,
                 const std::string& what) {
  Context& ctx = be.context();
  const Shape& is = idx->shape();
  cl_type(x->dtype(), ctx.profile(), op);  // Unsupported for a dtype the device lacks
  ClPtr out = be.alloc(is, x->dtype(), op);
  const int64_t n = is.num_elements();
  if (n == 0) return out;
  std::vector<int64_t> xst = x->strides();
  xst[dim] = 0;  // the index gives the position along dim
  gpu::Layout l = gpu::collapse(is, {idx->strides(), xst});
  l.index64 = l.index64 || spans_2g(*x);
  Launch lc(ctx, "indexing", op);
  lc.define("GATHER");
  lc.bits("X", *x, false).tensor("I", *idx, false).bits("Y", *out, true);  // the gather moves bits
  lc.faults(true);
  lc.i64(n).i64(x->strides()[dim]).i64(x->shape()[dim]);
  lc.layout(l, {"I", "X"});
  lc.u32(ctx.fault_tag(op, what.c_str()));
  lc.run_1d(n);
  return out;
}

void run_scatter(const OpenClBackend& be, const ClPtr& out, size_t dim, const ClPtr& idx, const ClPtr& values,
                 const char* op, const std::string& what) {
  Context& ctx = be.context();
  const Shape& is = idx->shape();
  if (is.num_elements() == 0) return;
  std::vector<int64_t> lines_dims = is.dims();
  lines_dims[dim] = 1;
  const Shape lines(std::move(lines_dims));
  gpu::Layout l = gpu::collapse(lines, {idx->strides(), values->strides(), out->strides()});
  l.index64 = l.index64 || spans_2g(*out) || spans_2g(*values) || spans_2g(*idx);
  Launch lc(ctx, "indexing", op);
  lc.define("SCATTER");
  lc.tensor("I", *idx, false).tensor("V", *values, false).tensor("Y", *out, true);
  lc.faults(true);
  lc.i64(lines.num_elements()).i64(0).i64(is[dim]);
  lc.i64(idx->strides()[dim]).i64(values->strides()[dim]).i64(out->strides()[dim]).i64(out->shape()[dim]);
  lc.layout(l, {"I", "V", "Y"});
  lc.u32(ctx.fault_tag(op, what.c_str()));
  lc.run_1d(lines.num_elements());
}

}  // namespace

Prim OpenClBackend::gather(Prim x, size_t dim, Prim indices) {
  const ClPtr t = cl(x, "gather");
  const ClPtr idx = cl(indices, "gather");
  check_index_dtype(*idx, "gather");
  shape_rules::gather(t->shape(), dim, idx->shape());
  return run_gather(*this, t, dim, idx, "gather", dim_what(dim));
}

Prim OpenClBackend::scatter_add(Prim x, size_t dim, Prim indices, Prim values) {
  if (!x) throw ValueError("scatter_add", "a tensor argument is missing");
  const ClPtr v = cl(values, "scatter_add");
  const ClPtr idx = cl(indices, "scatter_add");
  check_index_dtype(*idx, "scatter_add");
  check_addable(x->dtype(), "scatter_add");
  if (x->dtype() != v->dtype())
    throw DTypeError("scatter_add", "tensor " + std::string(dtype_name(x->dtype())) + " and values " +
                                        std::string(dtype_name(v->dtype())) + " differ");
  // Values added to one element in turn (duplicate indices) are summed in f32 and rounded once, as the cpu
  // backend's f16 and bf16 ops.
  if (x->dtype() == DType::F16 || x->dtype() == DType::BF16) {
    const DType h = x->dtype();
    return cast(
        scatter_add(cast(std::move(x), DType::F32), dim, std::move(indices), cast(std::move(values), DType::F32)), h);
  }
  const Shape& is = idx->shape();
  shape_rules::scatter_add(x->shape(), dim, is, v->shape());
  cl_type(x->dtype(), ctx_->profile(), "scatter_add");  // Unsupported before copying
  ClPtr out = scatter_target(*this, x, "scatter_add");
  // Values beyond the indices' extent are not scattered: a view of their leading part.
  const ClPtr vv = make_view(v, is, v->strides(), v->offset());
  run_scatter(*this, out, dim, idx, vv, "scatter_add", dim_what(dim));
  return out;
}

Prim OpenClBackend::select(Prim x, size_t dim, Prim indices) {
  const ClPtr t = cl(x, "select");
  const ClPtr idx = cl(indices, "select");
  check_index_dtype(*idx, "select");
  const Shape out = shape_rules::select(t->shape(), dim, idx->shape());
  return run_gather(*this, t, dim, along_dim(idx, out, dim), "select", dim_what(dim));
}

Prim OpenClBackend::select_add(Prim x, size_t dim, Prim indices, Prim values) {
  if (!x) throw ValueError("select_add", "a tensor argument is missing");
  const ClPtr v = cl(values, "select_add");
  const ClPtr idx = cl(indices, "select_add");
  check_index_dtype(*idx, "select_add");
  check_addable(x->dtype(), "select_add");
  if (x->dtype() != v->dtype())
    throw DTypeError("select_add", "tensor " + std::string(dtype_name(x->dtype())) + " and values " +
                                       std::string(dtype_name(v->dtype())) + " differ");
  // Values added to one element in turn (duplicate indices) are summed in f32 and rounded once, as the cpu
  // backend's f16 and bf16 ops.
  if (x->dtype() == DType::F16 || x->dtype() == DType::BF16) {
    const DType h = x->dtype();
    return cast(
        select_add(cast(std::move(x), DType::F32), dim, std::move(indices), cast(std::move(values), DType::F32)), h);
  }
  shape_rules::select_add(x->shape(), dim, idx->shape(), v->shape());
  cl_type(x->dtype(), ctx_->profile(), "select_add");
  ClPtr out = scatter_target(*this, x, "select_add");
  run_scatter(*this, out, dim, along_dim(idx, v->shape(), dim), v, "select_add", dim_what(dim));
  return out;
}

BURN_GPU_MASK_OPS(OpenClBackend)

namespace {
// argwhere's work-groups: kArgwhereGroup work-items of kArgwherePer elements each per tile (smaller than the
// vulkan plugin's 256: the scan's barriers cost more than they save on a CPU-type device).
constexpr size_t kArgwhereGroup = 64;
constexpr int64_t kArgwherePer = 4;
}  // namespace

Prim OpenClBackend::argwhere(Prim x) {
  static constexpr const char* op = "argwhere";
  const ClPtr t = cl(x, op);
  cl_type(t->dtype(), ctx_->profile(), op);
  const Shape& s = t->shape();
  const int64_t rank = static_cast<int64_t>(s.rank());
  if (s.num_elements() == 0) return alloc(Shape{0, rank}, DType::I64, op);
  const gpu::ArgwherePlan plan = gpu::plan_argwhere(view_of(*t), static_cast<int64_t>(kArgwhereGroup) * kArgwherePer);
  ClPtr counts = alloc(Shape{plan.tiles + 1}, DType::I64, op);
  // COUNT and WRITE read X through its layout; SCAN touches only the counts.
  auto pass = [&](const char* which, const OpenClTensor* y, int64_t groups) {
    Launch lc(*ctx_, "argwhere", op);
    lc.define(which).define("PER", std::to_string(kArgwherePer));
    const bool scan = std::string_view(which) == "SCAN";
    if (scan) {
      if (plan.layout.index64) lc.define("INDEX64");
      lc.no_tensor();
    } else {
      // The layout keeps every dim of X (not collapsed), so its rank (an argument) is the coordinates' count.
      lc.define("DIMS", "RANK");
      lc.tensor("X", *t, false);
    }
    lc.tensor("C", *counts, true);
    if (y)
      lc.tensor("Y", *y, true);
    else
      lc.no_tensor();
    lc.i64(plan.n).i64(plan.tiles);
    if (scan)
      lc.no_index();
    else
      lc.layout(plan.layout, {"X"});
    lc.run_groups(groups, kArgwhereGroup);
  };
  pass("COUNT", nullptr, plan.tiles);
  pass("SCAN", nullptr, 1);
  // The one value read back: the result's length.
  int64_t total = 0;
  ctx_->read(counts->allocation(), static_cast<size_t>(plan.tiles) * sizeof(int64_t), &total, sizeof total, op);
  ClPtr out = alloc(Shape{total, rank}, DType::I64, op);
  if (total > 0 && rank > 0) pass("WRITE", out.get(), plan.tiles);
  return out;
}

}  // namespace burn::opencl
