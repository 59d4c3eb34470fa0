// Sorting on the device (burn-gpu/kernels/sort.kernel, the opencl plugin's too; the plan is gpu::plan_sort): sort,
// argsort and topk along a dim of any view. Every line is sorted by (value, original index), so the result is stable
// whether or not it was asked for, and NaN sorts as the largest value, as on the cpu backend. Lines are cut into sorted
// runs (on GPUs a workgroup's bitonic network in shared memory, which sorts a line of up to 4096 positions at once; on
// CPU-type devices an invocation's insertion sort of 32), then merged pairwise pass after pass, each
// invocation finding its place on the merge path by binary search. topk writes only the first k.
#include <algorithm>
#include <bit>
#include <optional>

#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "ops/reduce.hpp"

namespace burn::vulkan {

namespace {

constexpr int64_t kRun = gpu::kSortRun;

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
  // Only when a line holds more than one run: runs are read from [0] and merged into [1], then swapped.
  VkPtr scratch[2] = {}, scratch_idx[2] = {};
  Lines lines;
  int64_t keep = 0;
  bool descending = false, want_values = false;

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
    const uint32_t flags = gpu::sort_flags(descending, to_output, want_values);
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

  // Sorted runs in scratch[0] merged pairwise into scratch[1] or the outputs.
  void merge(const gpu::SortMerge& m) const {
    launch(SortPass::merge, 0, 0, 0, m.run, m.units, m.last).run_1d(lines.count * m.units, kSortLineGroup);
  }
};

// Sorts x along dim; the first `keep` (<= n) positions of each line are written (values only when asked).
// Sorted runs (a workgroup's bitonic network on GPUs, an invocation's insertion sort on CPU-type
// devices), then merge passes until one run spans the line.
PrimPair sort_lines(const VulkanBackend& be, const char* op, const Prim& xp, size_t dim, std::optional<int64_t> k,
                    bool descending, bool want_values) {
  const VkPtr x = be.vk(xp, op);
  const DeviceProfile& profile = be.context().profile();
  const gpu::SortPlan plan = gpu::plan_sort(view_of(*x), dim, k, op, "the Vulkan device " + profile.name);
  check_sortable(x->dtype(), profile.features, profile.name, op);
  SortRun r{.be = be,
            .op = op,
            .x = x,
            .values = want_values ? be.alloc(plan.out, x->dtype()) : nullptr,
            .indices = be.alloc(plan.out, DType::I64),
            .lines = plan.lines,
            .keep = plan.keep,
            .descending = descending,
            .want_values = want_values};
  if (plan.out.num_elements() == 0) return {r.values, r.indices};
  const int64_t n = plan.lines.n;
  const bool trees = workgroup_trees(be.context());
  const uint32_t cap = sort_capacity(profile.limits, x->dtype());
  const int64_t first_run = trees ? cap : kRun;
  if (n <= first_run) {
    trees ? r.bitonic(cap, true) : r.runs(true);
    return {r.values, r.indices};
  }
  for (int j = 0; j < 2; ++j) {
    r.scratch[j] = be.alloc(x->shape(), x->dtype());
    r.scratch_idx[j] = be.alloc(x->shape(), DType::I32);
  }
  trees ? r.bitonic(cap, false) : r.runs(false);
  for (const gpu::SortMerge& m : gpu::sort_merges(n, first_run)) {
    r.merge(m);
    std::swap(r.scratch[0], r.scratch[1]);
    std::swap(r.scratch_idx[0], r.scratch_idx[1]);
  }
  return {r.values, r.indices};
}

}  // namespace

PrimPair VulkanBackend::sort(Prim x, size_t dim, bool descending, bool /*stable: always stable*/) {
  return sort_lines(*this, "sort", x, dim, std::nullopt, descending, true);
}

Prim VulkanBackend::argsort(Prim x, size_t dim, bool descending, bool /*stable: always stable*/) {
  return sort_lines(*this, "argsort", x, dim, std::nullopt, descending, false).second;
}

PrimPair VulkanBackend::topk(Prim x, int64_t k, size_t dim, bool largest) {
  return sort_lines(*this, "topk", x, dim, k, largest, true);
}

}  // namespace burn::vulkan
