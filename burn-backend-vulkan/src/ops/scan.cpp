// Scans on the device (burn-gpu/kernels/scan.kernel): cumsum, cumprod, cummax, cummin along a dim of any view, into a
// contiguous tensor. Short or many lines: an invocation per line, in order. Long lines: reduce-then-scan
// (the reduce kernel's block totals, scanned by this same op on [lines, blocks], then every block scanned
// from its prefix: by a workgroup on GPUs, by an invocation on CPU-type devices), so no invocation walks
// a long line. Accumulators as the reductions'
// (f16 in f32, ints wrap in their type as the cpu's scans do).
#include "burn/tensor/error.hpp"
#include "ops/reduce.hpp"

namespace burn::vulkan {

OpId scan_fold(OpId scan) {
  switch (scan) {
    case OpId::cumsum: return OpId::sum_dim;
    case OpId::cumprod: return OpId::prod_dim;
    case OpId::cummax: return OpId::max_dim;
    case OpId::cummin: return OpId::min_dim;
    default: throw Unsupported(op_info(scan).name, "is not a scan of the Vulkan scan kernel");
  }
}

Defines scan_defines(const ReduceSpec& spec, bool blocked, const std::vector<int>& modes, size_t rank, bool index64,
                     const DeviceFeatures& f, const std::string& device) {
  // Y has X's dtype (the tensor's, or the accumulator's when scanning block totals); P the accumulator's.
  Defines d;
  add_operand_defines(d, "X", spec.in, f, device, spec.op);
  add_operand_defines(d, "Y", spec.in, f, device, spec.op);
  add_operand_defines(d, "P", spec.acc, f, device, spec.op);
  add_layout_defines(d, modes, rank, index64, {"X", "Y"});
  d.emplace_back("ACC", spec.acc_glsl);
  d.emplace_back("INIT", spec.init);
  d.emplace_back("STEP(a, b)", spec.step);
  if (blocked) d.emplace_back("BLOCKED", "1");
  return d;
}

namespace {

// y = the inclusive scan of x along dim with `spec`'s fold; y is contiguous, of x's shape.
void scan_into(const VulkanBackend& be, const ReduceSpec& spec, OpId fold, const VkPtr& x, size_t dim, const VkPtr& y) {
  Context& ctx = be.context();
  const Lines l = lines_along(*x, dim, &y->shape());
  if (l.count == 0 || l.n == 0) return;
  const bool blocked = gpu::scan_blocked(l);
  const bool trees = workgroup_trees(ctx);
  VkPtr prefix;
  int64_t chunks = 1;
  if (blocked) {
    const VkPtr totals = reduce_chunks(be, spec, x, dim, chunks);
    prefix = be.alloc(Shape{l.count, chunks}, spec.acc);
    const VkPtr rows = make_view(totals, Shape{l.count, chunks}, {chunks, 1}, 0);
    scan_into(be, reduce_spec(fold, spec.acc, ctx, spec.op), fold, rows, 1, prefix);
  }
  const bool tree_blocks = blocked && trees;
  Dispatch dp(ctx, "scan", spec.op);
  dp.use(scan_defines(spec, tree_blocks, {l.starts.mode(0), l.starts.mode(1)}, l.starts.rank(), l.starts.index64,
                      ctx.profile().features, ctx.profile().name));
  dp.address(*x, false).address(*y, true);
  if (prefix)
    dp.address(*prefix, false);
  else
    dp.push_u64(0);
  dp.layout_block(l.starts);
  dp.push_i64(l.n).push_i64(l.stride).push_i64(l.out_stride).push_i64(l.count).push_i64(chunks);
  dp.push_i64(blocked ? kRowChunk : l.n);
  if (tree_blocks)
    run_groups(dp, l.count * chunks, kReduceGroup);
  else
    dp.run_1d(l.count * chunks, kScanLineGroup);
}

Prim scan(const VulkanBackend& be, OpId op, const Prim& xp, size_t dim) {
  const OpId fold = scan_fold(op);
  const char* name = op_info(op).name;
  const VkPtr x = be.vk(xp, name);
  check_dim(name, x->shape(), dim);
  const ReduceSpec spec = reduce_spec(fold, x->dtype(), be.context(), name);
  VkPtr y = be.alloc(x->shape(), x->dtype());
  scan_into(be, spec, fold, x, dim, y);
  return y;
}

}  // namespace

Prim VulkanBackend::cumsum(Prim x, size_t dim) { return scan(*this, OpId::cumsum, x, dim); }
Prim VulkanBackend::cumprod(Prim x, size_t dim) { return scan(*this, OpId::cumprod, x, dim); }
Prim VulkanBackend::cummax(Prim x, size_t dim) { return scan(*this, OpId::cummax, x, dim); }
Prim VulkanBackend::cummin(Prim x, size_t dim) { return scan(*this, OpId::cummin, x, dim); }

}  // namespace burn::vulkan
