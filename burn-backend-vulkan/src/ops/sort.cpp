// Sorting on the device (kernels/sort.comp): sort, argsort and topk along a dim of any view. Every line is
// sorted by (value, original index), so the result is stable whether or not it was asked for, and NaN
// sorts as the largest value, as on the cpu backend. Lines are cut into sorted runs (on GPUs a
// workgroup's bitonic network in shared memory, which sorts a line of up to 4096 positions at once; on
// CPU-type devices an invocation's insertion sort of 32), then merged pairwise pass after pass, each
// invocation finding its place on the merge path by binary search. topk writes only the first k.
#include <algorithm>
#include <bit>

#include "burn/tensor/error.hpp"
#include "ops/reduce.hpp"

namespace burn::vulkan {

namespace {

constexpr int64_t kRun = 32;        // RUNS: positions an invocation sorts (the kernel's RUN_MAX)
constexpr int64_t kMergeOut = 256;  // MERGE: output positions per invocation (the kernel's MERGE_OUT)

const char* pass_define(SortPass pass) {
  switch (pass) {
    case SortPass::bitonic: return "BITONIC";
    case SortPass::runs: return "RUNS";
    case SortPass::merge: return "MERGE";
  }
  return "MERGE";
}

}  // namespace

uint32_t sort_capacity(const DeviceLimits& limits, DType dtype) {
  const uint32_t key = (dtype == DType::F64 || dtype == DType::I64) ? 8 : 4;
  uint32_t cap = 4096;
  while (cap > 2 * kSortGroup && cap * (key + 4) > limits.max_shared_memory) cap /= 2;
  return cap;
}

void check_sortable(DType dtype, const DeviceFeatures& f, const std::string& device, const char* op) {
  reduce_spec(OpId::max_dim, dtype, f, device, op);  // the dtypes a comparison takes
}

Defines sort_defines(DType dtype, SortPass pass, uint32_t cap, const std::vector<int>& modes, size_t rank, bool index64,
                     const DeviceFeatures& f, const std::string& device, const char* op) {
  check_sortable(dtype, f, device, op);
  // Keys in X's dtype (values Y, scratch S and T), indices as I64 (YI) and as int in the scratch (SI, TI).
  Defines d;
  add_operand_defines(d, "X", dtype, f, device, op);
  add_operand_defines(d, "Y", dtype, f, device, op);
  add_operand_defines(d, "YI", DType::I64, f, device, op);
  add_operand_defines(d, "S", dtype, f, device, op);
  add_operand_defines(d, "SI", DType::I32, f, device, op);
  add_operand_defines(d, "T", dtype, f, device, op);
  add_operand_defines(d, "TI", DType::I32, f, device, op);
  add_layout_defines(d, modes, rank, index64, {"X", "Y"});
  d.emplace_back(pass_define(pass), "1");
  if (pass == SortPass::bitonic) d.emplace_back("SORT_CAP", std::to_string(cap));
  return d;
}

namespace {

struct SortRun {
  const VulkanBackend& be;
  const char* op;
  VkPtr x, values, indices;
  VkPtr scratch[2], scratch_idx[2];  // runs are read from [0] and merged into [1], then swapped
  Lines lines;
  int64_t keep = 0;
  bool descending = false;

  // One pass: `units` work items per line; writes the outputs when `to_output`, else scratch[0].
  Dispatch launch(SortPass pass, uint32_t cap, uint32_t seg, uint32_t used, int64_t run, int64_t units,
                  bool to_output) const {
    Context& ctx = be.context();
    Dispatch dp(ctx, "sort", op);
    dp.use(sort_defines(x->dtype(), pass, cap, {lines.starts.mode(0), lines.starts.mode(1)}, lines.starts.rank(),
                        lines.starts.index64, ctx.profile().features, ctx.profile().name, op));
    // Absent outputs and scratch (values not wanted, one run per line) get address 0.
    for (const VkPtr* t : {&x, &values, &indices, &scratch[0], &scratch_idx[0], &scratch[1], &scratch_idx[1]}) {
      if (*t)
        dp.address(**t, t != &x);
      else
        dp.push_u64(0);
    }
    dp.layout_block(lines.starts);
    dp.push_i64(lines.n).push_i64(lines.stride).push_i64(lines.out_stride).push_i64(lines.count).push_i64(keep);
    const uint32_t flags = (descending ? 1u : 0u) | (to_output ? 2u : 0u);
    for (uint32_t v : {seg, used, static_cast<uint32_t>(run), static_cast<uint32_t>(units), flags})
      dp.push_bytes(&v, 4, 4);
    return dp;
  }

  // Blocks of min(2^m >= n, cap) positions sorted in shared memory.
  void bitonic(uint32_t cap, bool to_output) const {
    const int64_t seg = std::min<int64_t>(static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(lines.n))), cap);
    const int64_t per_line = (lines.n + seg - 1) / seg, blocks = lines.count * per_line;
    // A power of two: the kernel's block arithmetic is shifts (blocks past the last line are skipped).
    const int64_t used =
        std::min<int64_t>(cap, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(blocks * seg))));
    Dispatch dp =
        launch(SortPass::bitonic, cap, static_cast<uint32_t>(seg), static_cast<uint32_t>(used), 0, per_line, to_output);
    run_groups(dp, (blocks + used / seg - 1) / (used / seg), kSortGroup);
  }

  // Runs of kRun positions sorted by an invocation each.
  void runs(bool to_output) const {
    const int64_t per_line = (lines.n + kRun - 1) / kRun;
    launch(SortPass::runs, 0, 0, 0, kRun, per_line, to_output).run_1d(lines.count * per_line, kSortLineGroup);
  }

  // Sorted runs of `run` positions in scratch[0] merged pairwise into scratch[1] or the outputs.
  void merge(int64_t run, bool to_output) const {
    const int64_t out = std::min(kMergeOut, 2 * run);
    const int64_t per_line = (lines.n + out - 1) / out;
    launch(SortPass::merge, 0, 0, 0, run, per_line, to_output).run_1d(lines.count * per_line, kSortLineGroup);
  }
};

// Sorts x along dim; the first `keep` (<= n) positions of each line are written (values only when asked).
// Sorted runs (a workgroup's bitonic network on GPUs, an invocation's insertion sort on CPU-type
// devices), then merge passes until one run spans the line.
PrimPair sort_lines(const VulkanBackend& be, const char* op, const Prim& xp, size_t dim, int64_t keep, bool descending,
                    bool want_values) {
  const VkPtr x = be.vk(xp, op);
  check_dim(op, x->shape(), dim);
  check_sortable(x->dtype(), be.context().profile().features, be.context().profile().name, op);
  const int64_t n = x->shape()[dim];
  if (keep < 0) keep = n;
  const Shape out = with_dim(x->shape(), dim, keep);
  SortRun r{be, op, x, want_values ? be.alloc(out, x->dtype()) : nullptr, be.alloc(out, DType::I64)};
  if (out.num_elements() == 0) return {r.values, r.indices};
  if (n >= (int64_t{1} << 31))
    throw Unsupported(op, "lines of 2^31 elements or more (" + std::to_string(n) + ") on the Vulkan backend");
  r.lines = lines_along(*x, dim, &out);
  r.keep = keep;
  r.descending = descending;
  const bool trees = workgroup_trees(be.context());
  const uint32_t cap = sort_capacity(be.context().profile().limits, x->dtype());
  const int64_t first_run = trees ? cap : kRun;
  if (n <= first_run) {
    trees ? r.bitonic(cap, true) : r.runs(true);
    return {r.values, r.indices};
  }
  for (int k = 0; k < 2; ++k) {
    r.scratch[k] = be.alloc(x->shape(), x->dtype());
    r.scratch_idx[k] = be.alloc(x->shape(), DType::I32);
  }
  trees ? r.bitonic(cap, false) : r.runs(false);
  for (int64_t run = first_run; run < n; run *= 2) {
    r.merge(run, 2 * run >= n);
    std::swap(r.scratch[0], r.scratch[1]);
    std::swap(r.scratch_idx[0], r.scratch_idx[1]);
  }
  return {r.values, r.indices};
}

}  // namespace

PrimPair VulkanBackend::sort(Prim x, size_t dim, bool descending, bool /*stable: always stable*/) {
  return sort_lines(*this, "sort", x, dim, -1, descending, true);
}

Prim VulkanBackend::argsort(Prim x, size_t dim, bool descending, bool /*stable: always stable*/) {
  return sort_lines(*this, "argsort", x, dim, -1, descending, false).second;
}

PrimPair VulkanBackend::topk(Prim x, int64_t k, size_t dim, bool largest) {
  const VkPtr t = vk(x, "topk");
  check_dim("topk", t->shape(), dim);
  const int64_t n = t->shape()[dim];
  if (k < 0 || k > n)
    throw IndexError("topk", "k " + std::to_string(k) + " is out of range for dim " + std::to_string(dim) +
                                 " of size " + std::to_string(n));
  return sort_lines(*this, "topk", x, dim, k, largest, true);
}

}  // namespace burn::vulkan
