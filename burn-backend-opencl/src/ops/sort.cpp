// Sorting on the device (burn-gpu/kernels/sort.kernel, the vulkan plugin's kernel too; the plan is
// gpu::plan_sort): sort, argsort and topk along a dim of any view. Every line is sorted by (value,
// original index), so the result is stable whether or not it was asked for, and NaN sorts as the largest
// value, as on the cpu backend. As the vulkan plugin on CPU-type devices: an invocation sorts runs of 32
// positions by insertion, then runs are merged pairwise pass after pass, each invocation finding its place
// on the merge path by binary search. topk writes only the first k. The kernel's bitonic pass (a
// work-group's network in local memory, the vulkan plugin's on GPUs) is not launched here yet.
#include <optional>
#include <utility>

#include "burn/gpu/views.hpp"
#include "launch.hpp"
#include "ops/reduce.hpp"

namespace burn::opencl {

namespace {

struct SortRun {
  const OpenClBackend& be;
  const char* op;
  ClPtr x, values, indices;
  // Only when a line holds more than one run: runs are read from [0] and merged into [1], then swapped.
  ClPtr scratch[2] = {}, scratch_idx[2] = {};
  gpu::Lines lines;
  int64_t keep = 0;
  bool descending = false;

  // One pass (RUNS or MERGE) of `units` work items per line, runs of `run` positions.
  void launch(const char* pass, int64_t run, int64_t units, bool to_output) const {
    Context& ctx = be.context();
    const DeviceProfile& p = ctx.profile();
    Launch lc(ctx, "sort", op);
    // Keys in X's dtype (values Y, scratch S and T), indices as I64 (YI) and as int in the scratch (SI, TI).
    gpu::Defines d{{pass, "1"}};
    for (const char* name : {"X", "Y", "S", "T"}) add_operand_defines(d, name, x->dtype(), p, op);
    add_operand_defines(d, "YI", DType::I64, p, op);
    for (const char* name : {"SI", "TI"}) add_operand_defines(d, name, DType::I32, p, op);
    lc.use(d);
    lc.layout_args({lines.starts.mode(0), lines.starts.mode(1)}, lines.starts.rank(), lines.starts.index64, {"X", "Y"});
    lc.buffer(*x, false);
    // Absent outputs and scratch (values not wanted, one run per line) are null buffers.
    for (const ClPtr* t : {&values, &indices, &scratch[0], &scratch_idx[0], &scratch[1], &scratch_idx[1]}) {
      if (*t)
        lc.buffer(**t, true);
      else
        lc.no_tensor();
    }
    lc.layout_block(lines.starts);
    lc.i64(lines.n).i64(lines.stride).i64(lines.out_stride).i64(lines.count).i64(keep);
    lc.u32(0).u32(0).u32(static_cast<uint32_t>(run)).u32(static_cast<uint32_t>(units));
    lc.u32(gpu::sort_flags(descending, to_output, values != nullptr));
    lc.run_1d(lines.count * units);
  }
};

PrimPair sort_lines(const OpenClBackend& be, const char* op, const Prim& xp, size_t dim, std::optional<int64_t> k,
                    bool descending, bool want_values) {
  const ClPtr x = be.cl(xp, op);
  const DeviceProfile& profile = be.context().profile();
  const gpu::SortPlan plan = gpu::plan_sort(view_of(*x), dim, k, op, "the OpenCL device " + profile.name);
  reduce_spec(OpId::max_dim, x->dtype(), profile, op);  // the dtypes a comparison takes
  SortRun r{.be = be,
            .op = op,
            .x = x,
            .values = want_values ? be.alloc(plan.out, x->dtype(), op) : nullptr,
            .indices = be.alloc(plan.out, DType::I64, op),
            .lines = plan.lines,
            .keep = plan.keep,
            .descending = descending};
  if (plan.out.num_elements() == 0) return {r.values, r.indices};
  const int64_t n = plan.lines.n;
  const int64_t run_units = (n + gpu::kSortRun - 1) / gpu::kSortRun;
  if (n <= gpu::kSortRun) {
    r.launch("RUNS", gpu::kSortRun, run_units, true);
    return {r.values, r.indices};
  }
  for (int j = 0; j < 2; ++j) {
    r.scratch[j] = be.alloc(x->shape(), x->dtype(), op);
    r.scratch_idx[j] = be.alloc(x->shape(), DType::I32, op);
  }
  r.launch("RUNS", gpu::kSortRun, run_units, false);
  for (const gpu::SortMerge& m : gpu::sort_merges(n, gpu::kSortRun)) {
    r.launch("MERGE", m.run, m.units, m.last);
    std::swap(r.scratch[0], r.scratch[1]);
    std::swap(r.scratch_idx[0], r.scratch_idx[1]);
  }
  return {r.values, r.indices};
}

}  // namespace

PrimPair OpenClBackend::sort(Prim x, size_t dim, bool descending, bool /*stable: always stable*/) {
  return sort_lines(*this, "sort", x, dim, std::nullopt, descending, true);
}

Prim OpenClBackend::argsort(Prim x, size_t dim, bool descending, bool /*stable: always stable*/) {
  return sort_lines(*this, "argsort", x, dim, std::nullopt, descending, false).second;
}

PrimPair OpenClBackend::topk(Prim x, int64_t k, size_t dim, bool largest) {
  return sort_lines(*this, "topk", x, dim, k, largest, true);
}

}  // namespace burn::opencl
