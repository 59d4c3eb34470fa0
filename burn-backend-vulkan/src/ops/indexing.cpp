// Indexing ops: selecting by a bool mask is elementwise (exprs.cpp); gather, select and embedding run the
// gather kernel, scatter_add, select_add and embedding_backward the scatter kernel (burn-gpu/kernels/indexing.kernel,
// shared with the opencl plugin),
// argwhere three passes of burn-gpu/kernels/argwhere.kernel. Indices are checked on the device: one out of range
// (negative ones too, as on the cpu backend) is a fault raised at the next read, naming the op, the index
// and the dim size.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "burn/gpu/elementwise_ops.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "dispatch.hpp"
#include "ops/elementwise.hpp"
#include "ops/indexing.hpp"

namespace burn::vulkan {

void check_index_dtype(const VulkanTensor& idx, const char* op) {
  if (idx.dtype() != DType::I64 && idx.dtype() != DType::I32)
    throw DTypeError(op, "indices must be i64 or i32, got " + std::string(dtype_name(idx.dtype())));
}

namespace {

// The scatters accumulate: numeric dtypes and i8/u8 (the cpu backend's set), f16 where the device has it.
void check_addable(DType d, const char* op) {
  if (d == DType::Bool)
    throw DTypeError(
        op, "expected a numeric tensor (f32, f64, f16, i64, i32, i8 or u8), got " + std::string(dtype_name(d)));
}

using gpu::bits_dtype;

// Whether offsets into `t`'s whole view may reach 2^31 elements (then the kernel indexes with 64 bits).
bool spans_2g(const VulkanTensor& t) {
  int64_t span = 0;
  for (size_t d = 0; d < t.shape().rank(); ++d)
    if (t.shape()[d] > 1) span += (t.shape()[d] - 1) * (t.strides()[d] < 0 ? -t.strides()[d] : t.strides()[d]);
  return span >= (int64_t{1} << 31) || t.shape().num_elements() >= (int64_t{1} << 31);
}

// The result of a scatter: x itself when the caller gave up its only handle, else a contiguous copy.
VkPtr scatter_target(const VulkanBackend& be, const Prim& x, const char* op) {
  const bool reuse = reusable(x, x->shape(), x->dtype());
  const VkPtr t = be.vk(x, op);
  if (reuse) return t;
  VkPtr out = be.alloc(t->shape(), t->dtype());
  be.copy_into(*t, *out, op);
  return out;
}

std::string dim_what(size_t dim) { return "dim " + std::to_string(dim); }

}  // namespace

VkPtr along_dim(const VkPtr& idx, const Shape& shape, size_t dim) {
  std::vector<int64_t> strides(shape.rank(), 0);
  strides[dim] = idx->strides()[0];
  return make_view(idx, shape, std::move(strides), idx->offset());
}

VkPtr run_gather(const VulkanBackend& be, const VkPtr& x, size_t dim, const VkPtr& idx, const char* op,
                 const std::string& what) {
  Context& ctx = be.context();
  const Shape& is = idx->shape();
  VkPtr out = be.alloc(is, x->dtype());
  const int64_t n = is.num_elements();
  if (n == 0) return out;
  std::vector<int64_t> xst = x->strides();
  xst[dim] = 0;  // the index gives the position along dim
  Layout l = collapse(is, {idx->strides(), xst});
  l.index64 = l.index64 || spans_2g(*x);
  Dispatch dp(ctx, "indexing", op);
  dp.use(gather_defines(x->dtype(), idx->dtype(), {l.mode(0), l.mode(1)}, l.rank(), l.index64, ctx.profile().features,
                        ctx.profile().name, op));
  dp.address(*x, false).address(*idx, false).address(*out, true);
  dp.push_u64(ctx.faults_address());
  dp.push_i64(n).push_i64(x->strides()[dim]).push_i64(x->shape()[dim]);
  dp.layout_block(l);
  dp.push_i32(static_cast<int32_t>(ctx.fault_tag(op, what)));
  dp.run_1d(n);
  return out;
}

void run_scatter(const VulkanBackend& be, const VkPtr& out, size_t dim, const VkPtr& idx, const VkPtr& values,
                 const char* op, const std::string& what) {
  Context& ctx = be.context();
  const Shape& is = idx->shape();
  if (is.num_elements() == 0) return;
  std::vector<int64_t> lines_dims = is.dims();
  lines_dims[dim] = 1;
  const Shape lines(std::move(lines_dims));
  Layout l = collapse(lines, {idx->strides(), values->strides(), out->strides()});
  l.index64 = l.index64 || spans_2g(*out) || spans_2g(*values) || spans_2g(*idx);
  // A line longer than one invocation may loop (lavapipe stops loops at 65535 iterations) is added in
  // parts, one dispatch each, in order: the sums keep the cpu backend's order.
  const int64_t len = is[dim];
  const int64_t part = ctx.profile().limits.max_loop ? static_cast<int64_t>(ctx.profile().limits.max_loop) : len;
  const uint32_t tag = ctx.fault_tag(op, what);
  const Defines defines = scatter_defines(out->dtype(), idx->dtype(), {l.mode(0), l.mode(1), l.mode(2)}, l.rank(),
                                          l.index64, ctx.profile().features, ctx.profile().name, op);
  for (int64_t j = 0; j < len; j += part) {
    Dispatch dp(ctx, "indexing", op);
    dp.use(defines);
    dp.address(*idx, false).address(*values, false).address(*out, true);
    dp.push_u64(ctx.faults_address());
    dp.push_i64(lines.num_elements()).push_i64(j).push_i64(std::min(len, j + part));
    dp.push_i64(idx->strides()[dim]).push_i64(values->strides()[dim]).push_i64(out->strides()[dim]);
    dp.push_i64(out->shape()[dim]);
    dp.layout_block(l);
    dp.push_i32(static_cast<int32_t>(tag));
    dp.run_1d(lines.num_elements(), kScatterGroup);
  }
}

Defines gather_defines(DType dtype, DType index, const std::vector<int>& modes, size_t rank, bool index64,
                       const DeviceFeatures& f, const std::string& device, const char* op) {
  const DType bits = bits_dtype(dtype);
  Defines d{{"GATHER", "1"}};
  add_operand_defines(d, "X", bits, f, device, op);
  add_operand_defines(d, "I", index, f, device, op);
  add_operand_defines(d, "Y", bits, f, device, op);
  add_layout_defines(d, modes, rank, index64, {"I", "X"});
  return d;
}

Defines scatter_defines(DType dtype, DType index, const std::vector<int>& modes, size_t rank, bool index64,
                        const DeviceFeatures& f, const std::string& device, const char* op) {
  check_addable(dtype, op);
  Defines d{{"SCATTER", "1"}};
  add_operand_defines(d, "I", index, f, device, op);
  add_operand_defines(d, "V", dtype, f, device, op);
  add_operand_defines(d, "Y", dtype, f, device, op);
  add_layout_defines(d, modes, rank, index64, {"I", "V", "Y"});
  return d;
}

Defines argwhere_defines(ArgwherePass pass, DType dtype, int x_mode, size_t dims, bool index64, const DeviceFeatures& f,
                         const std::string& device) {
  static constexpr const char* op = "argwhere";
  Defines d{{"PER", std::to_string(kArgwherePer)}};
  if (pass == ArgwherePass::scan) {
    d.emplace_back("SCAN", "1");
    add_operand_defines(d, "C", DType::I64, f, device, op);
    if (index64) d.emplace_back("INDEX64", "1");
    return d;
  }
  d.emplace_back(pass == ArgwherePass::count ? "COUNT" : "WRITE", "1");
  d.emplace_back("DIMS", std::to_string(dims));
  add_operand_defines(d, "X", dtype, f, device, op);
  add_operand_defines(d, "C", DType::I64, f, device, op);
  if (pass == ArgwherePass::write) add_operand_defines(d, "Y", DType::I64, f, device, op);
  add_layout_defines(d, {x_mode}, dims, index64, {"X"});
  return d;
}

Prim VulkanBackend::gather(Prim x, size_t dim, Prim indices) {
  const VkPtr t = vk(x, "gather");
  const VkPtr idx = vk(indices, "gather");
  check_index_dtype(*idx, "gather");
  shape_rules::gather(t->shape(), dim, idx->shape());
  return run_gather(*this, t, dim, idx, "gather", dim_what(dim));
}

Prim VulkanBackend::scatter_add(Prim x, size_t dim, Prim indices, Prim values) {
  if (!x) throw ValueError("scatter_add", "a tensor argument is missing");
  const VkPtr v = vk(values, "scatter_add");
  const VkPtr idx = vk(indices, "scatter_add");
  check_index_dtype(*idx, "scatter_add");
  check_addable(x->dtype(), "scatter_add");
  if (x->dtype() != v->dtype())
    throw DTypeError("scatter_add", "tensor " + std::string(dtype_name(x->dtype())) + " and values " +
                                        std::string(dtype_name(v->dtype())) + " differ");
  const Shape& is = idx->shape();
  shape_rules::scatter_add(x->shape(), dim, is, v->shape());
  glsl_type(x->dtype(), *ctx_, "scatter_add");  // Unsupported for a dtype the device lacks, before copying
  VkPtr out = scatter_target(*this, x, "scatter_add");
  // Values beyond the indices' extent are not scattered: a view of their leading part.
  const VkPtr vv = make_view(v, is, v->strides(), v->offset());
  run_scatter(*this, out, dim, idx, vv, "scatter_add", dim_what(dim));
  return out;
}

Prim VulkanBackend::select(Prim x, size_t dim, Prim indices) {
  const VkPtr t = vk(x, "select");
  const VkPtr idx = vk(indices, "select");
  check_index_dtype(*idx, "select");
  const Shape out = shape_rules::select(t->shape(), dim, idx->shape());
  return run_gather(*this, t, dim, along_dim(idx, out, dim), "select", dim_what(dim));
}

Prim VulkanBackend::select_add(Prim x, size_t dim, Prim indices, Prim values) {
  if (!x) throw ValueError("select_add", "a tensor argument is missing");
  const VkPtr v = vk(values, "select_add");
  const VkPtr idx = vk(indices, "select_add");
  check_index_dtype(*idx, "select_add");
  check_addable(x->dtype(), "select_add");
  if (x->dtype() != v->dtype())
    throw DTypeError("select_add", "tensor " + std::string(dtype_name(x->dtype())) + " and values " +
                                       std::string(dtype_name(v->dtype())) + " differ");
  shape_rules::select_add(x->shape(), dim, idx->shape(), v->shape());
  glsl_type(x->dtype(), *ctx_, "select_add");
  VkPtr out = scatter_target(*this, x, "select_add");
  run_scatter(*this, out, dim, along_dim(idx, v->shape(), dim), v, "select_add", dim_what(dim));
  return out;
}

BURN_GPU_MASK_OPS(VulkanBackend)

Prim VulkanBackend::argwhere(Prim x) {
  const VkPtr t = vk(x, "argwhere");
  glsl_type(t->dtype(), *ctx_, "argwhere");
  const Shape& s = t->shape();
  const int64_t n = s.num_elements();
  const int64_t rank = static_cast<int64_t>(s.rank());
  if (n == 0) return alloc(Shape{0, rank}, DType::I64);
  const gpu::ArgwherePlan plan = gpu::plan_argwhere(view_of(*t), int64_t{kArgwhereGroup} * kArgwherePer);
  const int64_t tiles = plan.tiles;
  const Layout& l = plan.layout;
  // Workgroups of a grid of tiles: up to 65535 x 65535 groups.
  const uint32_t gx = static_cast<uint32_t>(std::min<int64_t>(tiles, 65535));
  const uint32_t gy = static_cast<uint32_t>((tiles + gx - 1) / gx);
  VkPtr counts = alloc(Shape{tiles + 1}, DType::I64);
  // COUNT and WRITE read X through the layout; SCAN touches only the counts (one pipeline for all dtypes
  // and ranks).
  auto pass = [&](ArgwherePass which, const VulkanTensor* y, std::array<uint32_t, 3> groups) {
    const bool scan = which == ArgwherePass::scan;
    Dispatch dp(*ctx_, "argwhere", "argwhere");
    dp.use(argwhere_defines(which, t->dtype(), l.mode(0), s.rank(), l.index64, ctx_->profile().features,
                            ctx_->profile().name));
    if (scan)
      dp.push_u64(0);
    else
      dp.address(*t, false);
    dp.address(*counts, true);
    if (y)
      dp.address(*y, true);
    else
      dp.push_u64(0);
    dp.push_i64(n).push_i64(tiles);
    if (scan)
      dp.push_u64(0);
    else
      dp.layout_block(l);
    dp.run(groups, {kArgwhereGroup, 1, 1});
  };
  pass(ArgwherePass::count, nullptr, {gx, gy, 1});
  pass(ArgwherePass::scan, nullptr, {1, 1, 1});
  // The one value read back: the result's length.
  int64_t total = 0;
  ctx_->read(counts->allocation(), static_cast<uint64_t>(tiles) * sizeof(int64_t), &total, sizeof total);
  VkPtr out = alloc(Shape{total, rank}, DType::I64);
  if (total > 0 && rank > 0) pass(ArgwherePass::write, out.get(), {gx, gy, 1});
  return out;
}

}  // namespace burn::vulkan
