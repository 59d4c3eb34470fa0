// The view arithmetic of the GPU backends' layout ops (permute, expand, flip, slice) and the plan of an
// elementwise launch (dtype checks, broadcast shape, buffer reuse, operand layout), over shapes and
// strides only: each plugin turns the result into its own tensor type and launch. Shared so the vulkan
// and opencl plugins cannot drift apart.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "burn/gpu/exprs.hpp"
#include "burn/gpu/layout.hpp"
#include "burn/tensor/backend.hpp"

namespace burn::gpu {

// A strided view over a buffer: shape, strides in elements (negative when flipped, 0 when broadcast) and
// the element offset of index 0.
struct View {
  Shape shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

// The views of the layout ops, each checked by its shape rule (errors name `op` where it is given).
View slice_view(const View& x, const Slices& ranges, const char* op);
View permute_view(const View& x, const Axes& axes);
View expand_view(const View& x, const Shape& shape);
View flip_view(const View& x, const Axes& axes);
// The elements a view's offsets span from index 0: 1 + its farthest offset (for the index width).
int64_t view_extent(const View& x);

// IndexError naming the op when dim is not a dim of shape.
void check_dim(const char* op, const Shape& shape, size_t dim);
// shape with dim set to size.
Shape with_dim(const Shape& shape, size_t dim, int64_t size);

// A view seen as lines along `dim` (reductions, scans, sorts): line j starts at OFFSET(X, j) (and
// OFFSET(Y, j) for an output given to lines_along), its element k is `stride` further per step.
struct Lines {
  Layout starts;           // the lines' starts, by line index (operands X and, when given, Y)
  int64_t count = 0;       // number of lines
  int64_t n = 0;           // elements per line
  int64_t stride = 0;      // X's stride along the line
  int64_t out_stride = 0;  // Y's stride along the line
};
// x's lines along dim; `out`, when given, is a contiguous output whose lines are laid out alike (its dim
// may have another length).
Lines lines_along(const View& x, size_t dim, const Shape* out = nullptr);

// A line sort (sort, argsort, topk; burn-gpu/kernels/sort.kernel): sorted runs (an invocation's insertion
// sort of kSortRun positions, or a workgroup's bitonic network), then pairwise merges, each invocation
// writing kSortMergeOut positions, until one run spans the line. Without k the whole line is kept (topk
// keeps k, an IndexError outside [0, n]); lines of 2^31 positions or more are Unsupported (the kernel's indices are
// 32-bit).
inline constexpr int64_t kSortRun = 32;        // the kernel's RUN_MAX
inline constexpr int64_t kSortMergeOut = 256;  // the kernel's MERGE_OUT
struct SortPlan {
  Shape out;    // the results' shape: x's with `keep` along dim
  Lines lines;  // x's lines and the results' (empty when the results are)
  int64_t keep = 0;
};
SortPlan plan_sort(const View& x, size_t dim, std::optional<int64_t> k, const char* op, const std::string& device);
// One merge pass: runs of `run` positions merged into runs of 2 run, `units` invocations per line; the
// last writes the outputs.
struct SortMerge {
  int64_t run = 0, units = 0;
  bool last = false;
};
std::vector<SortMerge> sort_merges(int64_t n, int64_t first_run);
// The kernel's `flags`: 1 descending, 2 the pass writes the outputs, 4 the values are wanted.
uint32_t sort_flags(bool descending, bool to_output, bool values);

// argwhere (burn-gpu/kernels/argwhere.kernel) over tiles of `tile` elements: the view's own shape and
// strides as its layout (not collapsed: the write pass takes the coordinates from the shape).
struct ArgwherePlan {
  int64_t n = 0, tiles = 0;
  Layout layout;
};
ArgwherePlan plan_argwhere(const View& x, int64_t tile);

// A contiguous shape seen as [rows, n, inner] around `dim` (softmax; IndexError naming op for a dim out of
// range). by_rows: a workgroup per row (inner == 1 and rows of kRowsMin or more), else an invocation per
// lane (row, i), so that neighbouring invocations read neighbouring elements.
struct AroundDim {
  int64_t rows = 1, n = 0, inner = 1;
  bool by_rows = false;
  static constexpr int64_t kRowsMin = 128;
};
AroundDim around_dim(const Shape& shape, size_t dim, const char* op);

// x's elements as one view in memory order, for folds that do not depend on the order: size-1 dims
// dropped, flipped dims turned forward, dims sorted by stride (a permuted tensor is one contiguous line).
View memory_order(const View& x);

// The dtype whose buffer moves an element's bits unchanged (gathers copy, they do not compute): i32 for
// f32, i64 for f64 (no float64 feature needed for a copy), u8 for i8 and bool; f16 and bf16 stay.
DType bits_dtype(DType dtype);

// Elements each invocation of the elementwise and copy kernels takes per pass (their ITEMS define): several
// loads in flight per invocation, which a GPU's memory needs to run at its bandwidth. Hosts launch
// items_invocations(n) invocations.
inline constexpr int64_t kItemsPerInvocation = 4;
inline int64_t items_invocations(int64_t n) { return (n + kItemsPerInvocation - 1) / kItemsPerInvocation; }

// One elementwise op over its inputs: the expression for the inputs' dtype, the broadcast result shape,
// the input whose buffer takes the result (-1: a new one) and the scalars' dtype.
struct ElementwisePlan {
  Expr expr;
  DType dtype{};         // the operands' dtype (the bool operand of mask ops aside)
  DType scalar_dtype{};  // the dtype s0 and s1 are decoded in
  Shape shape;
  int64_t n = 0;
  int reuse = -1;
};
// The plan of `op` over `inputs`: ValueError for a missing input, Unsupported naming the op, dtype and
// `device` (e.g. "OpenCL device pthread-...") when the table has no entry, DTypeError for an operand of
// another dtype, the shape rules' errors. `reusable(p, shape, dtype)` says whether p's buffer may take
// the result (the plugin's ownership check).
ElementwisePlan plan_elementwise(OpId op, std::initializer_list<Prim> inputs, const std::string& device,
                                 const std::function<bool(const Prim&, const Shape&, DType)>& reusable,
                                 Bf16 bf16 = Bf16::storage);

// The collapsed layout of views (shape, strides) broadcast to `shape`, one operand each, in order.
Layout broadcast_layout(const Shape& shape, const std::vector<View>& operands);

// Whether burn-gpu/kernels/matmul.kernel (and the vulkan plugin's matmul_coop.comp) index with 64 bits for
// these operands (lhs [..., M, K], rhs [..., K, N], read in place, their offsets counted) and a result of
// `c_elements`: C, or an element of A or B, at 2^31 or more. The launchers and the fused executors ask it, so a
// fused epilogue's layout block and the kernel agree.
bool gemm_index64(const View& lhs, const View& rhs, int64_t c_elements);

}  // namespace burn::gpu
