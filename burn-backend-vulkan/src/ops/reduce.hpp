// What the reduce family's op files (reduce.cpp, scan.cpp, sort.cpp) share: a tensor seen as lines
// along a dim, the folds' specs, the kernel-mode choice, the reduce kernel's chunk pass (scans reduce
// their blocks with it) and the define builders of the three kernels, which the compile-everything test
// (kernel_variants.cpp) calls too. Private to the plugin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "burn/gpu/reduce.hpp"
#include "dispatch.hpp"
#include "runtime/compiler.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

// Elements per workgroup of the reduce kernel's row pass and of the scan kernel's blocks, shared with the
// opencl plugin (burn/gpu/reduce.hpp).
inline constexpr int64_t kRowChunk = gpu::kReduceRowChunk;
inline constexpr uint32_t kReduceGroup = gpu::kReduceGroup;
// Invocations per workgroup of the scan kernel's line passes, and of the sort kernel's passes (bitonic
// networks; runs and merges).
inline constexpr uint32_t kScanLineGroup = 64;
inline constexpr uint32_t kSortGroup = 256;
inline constexpr uint32_t kSortLineGroup = 64;

// Whether reductions, scans and sorts use workgroups with shared memory (GPUs) or an invocation per
// chunk, block or run (CPU-type devices, where a workgroup's barriers cost more than they save: on
// lavapipe a row sum runs 5-10x faster that way). BURN_VULKAN_REDUCE=tree or =lines forces one.
bool workgroup_trees(const Context& ctx);

// The lines helpers are burn-gpu's (burn/gpu/views.hpp), shared with the opencl plugin.
using gpu::check_dim;
using gpu::Lines;
using gpu::with_dim;
// x's lines along dim (gpu::lines_along of its view).
inline Lines lines_along(const VulkanTensor& x, size_t dim, const Shape* out = nullptr) {
  return gpu::lines_along(view_of(x), dim, out);
}

// The dtype of a reduction's partial states (its accumulator): f16 folds in f32; the mean of i32 in i64.
DType accumulator_dtype(OpId op, DType dtype);

// One reduction on one dtype: burn-gpu/kernels/reduce.kernel's defines and the dtypes of its result and partial states.
// Plain folds one accumulator (ACC: INIT, LIFT(v) of an element, STEP(a, b), FINISH(a)), Arg a value
// and its index (BETTER(v, w)), Var a count, mean and M2. scan.kernel folds with the same defines.
enum class ReduceKind { Plain, Arg, Var };
struct ReduceSpec {
  const char* op;  // the op named in errors
  ReduceKind kind = ReduceKind::Plain;
  DType in{}, out{}, acc{};
  std::string acc_glsl, init, step, lift, finish, better, subgroup;
};
// The spec of `fold` (a reduce op: sum, prod, max_dim, argmax, var, ...) on `dtype` for a device with
// `features` named `device`; errors name `op`: DTypeError for a dtype the op does not take, Unsupported
// for one the device lacks.
ReduceSpec reduce_spec(OpId fold, DType dtype, const DeviceFeatures& features, const std::string& device,
                       const char* op);
inline ReduceSpec reduce_spec(OpId fold, DType dtype, const Context& ctx, const char* op) {
  return reduce_spec(fold, dtype, ctx.profile().features, ctx.profile().name, op);
}

// The fold a scan applies: sum_dim for cumsum, prod_dim for cumprod, max_dim for cummax, min_dim for
// cummin; Unsupported for any other op.
OpId scan_fold(OpId scan);

// Which pass of a reduction a launch of burn-gpu/kernels/reduce.kernel is: FIRST reads the tensor (else
// partial states), LAST writes the result (else partial states), ROW runs a workgroup per chunk (else an
// invocation per chunk); `values`: an arg reduction's last pass writes the values too.
struct ReducePassKind {
  bool first = true, last = true, row = false, values = true;
};
// Every define of burn-gpu/kernels/reduce.kernel for one pass of `spec` (the launcher and the
// compile-everything test): the lines' starts over X in layout mode `x_mode` (0, 1, 2) over `rank` dims,
// 32- or 64-bit indices (the reduced dims' rank is an argument).
Defines reduce_pass_defines(const ReduceSpec& spec, const ReducePassKind& pass, int x_mode, size_t rank, bool index64,
                            const DeviceFeatures& features, const std::string& device);

// Every define of burn-gpu/kernels/scan.kernel for `spec`'s fold over lines of X into Y (layout modes of X and Y
// over `rank` dims): BLOCKED for a workgroup per block (GPUs), else an invocation per line or block.
Defines scan_defines(const ReduceSpec& spec, bool blocked, const std::vector<int>& modes, size_t rank, bool index64,
                     const DeviceFeatures& features, const std::string& device);

// The passes of burn-gpu/kernels/sort.kernel: a workgroup's bitonic network in shared memory, an invocation's
// insertion sort of a run, a merge of sorted runs.
enum class SortPass { bitonic, runs, merge };
// Positions a workgroup sorts in shared memory (SORT_CAP): a power of two, keys in their compute type
// plus an int index each within the device's shared memory, at most 4096.
uint32_t sort_capacity(const DeviceLimits& limits, DType dtype);
// DTypeError naming `op` for a dtype a comparison sort does not take (bool, i8, u8), Unsupported for one
// the device lacks.
void check_sortable(DType dtype, const DeviceFeatures& features, const std::string& device, const char* op);
// Every define of burn-gpu/kernels/sort.kernel for one pass over `dtype` (`cap`: SORT_CAP of a bitonic pass), the
// lines' starts over X and Y in layout `modes` over `rank` dims; check_sortable's errors.
Defines sort_defines(DType dtype, SortPass pass, uint32_t cap, const std::vector<int>& modes, size_t rank, bool index64,
                     const DeviceFeatures& features, const std::string& device, const char* op);

// A workgroup of `local` invocations per item: a grid of up to 65535 x 65535 workgroups, kernels loop
// over the rest (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x, stepping by the grid).
void run_groups(Dispatch& dp, int64_t groups, uint32_t local);
// Partial states of spec's fold (a plain one: sum, prod, max, min) over chunks of kRowChunk elements of
// x's lines along dim: [lines * chunks] in spec.acc, chunk c of line j at j * chunks + c.
VkPtr reduce_chunks(const VulkanBackend& be, const ReduceSpec& spec, const VkPtr& x, size_t dim, int64_t& chunks);

}  // namespace burn::vulkan
