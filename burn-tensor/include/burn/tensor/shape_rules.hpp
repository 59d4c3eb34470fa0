// The output-shape rule of every op, written once: the tensor API, the default bodies, fusion and
// every backend compute a result's shape (and check the shapes of the arguments) only through these
// functions, so a new backend allocates its outputs without retyping any rule.
//
// A rule takes shapes (never tensors: no device or dtype), checks them and returns the result's shape,
// throwing the house errors (ShapeError, IndexError, ValueError) as "[op] ..." with the values at
// fault; `op` names the op in the message (a backward op passes its own name). Dims arrive normalised
// (size_t, in range of the op's contract): the tensor API maps negative dims and Python slices first.
// Where a caller must decide without an error (fusion, before recording a call), a try_ variant
// answers std::nullopt instead: the same rule, which then builds no message and throws nothing.
// The quant group's rules also come on Prims, checking dtypes too: its backend ops' contracts, written once.
// Definitions live in src/shape_rules/<group>.cpp, one file per op family of the op table.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "burn/tensor/export.hpp"
#include "burn/tensor/module_options.hpp"
#include "burn/tensor/primitive.hpp"
#include "burn/tensor/shape.hpp"

namespace burn::shape_rules {

// ---- shared checks ----

// IndexError naming `op` unless dim < x.rank().
BURN_TENSOR_API void check_dim(const Shape& x, size_t dim, const char* op);
// The shape of an op that keeps x's shape and works along `dim` (softmax, cumsum, sort, argsort).
BURN_TENSOR_API Shape along_dim(const Shape& x, size_t dim, const char* op);
// Axes of a tensor of rank `rank` with negative ones counted from the end: IndexError naming `op` for
// one out of range or named twice (normalize_dim, shape.hpp, does one dim).
BURN_TENSOR_API Axes normalize_axes(const Axes& axes, size_t rank, const char* op);

// ---- layout ----

// reshape: one -1 dim is inferred; the element count must match and the result be countable.
BURN_TENSOR_API Shape reshape(const Shape& x, const Shape& target, const char* op = "reshape");
BURN_TENSOR_API std::optional<Shape> try_reshape(const Shape& x, const Shape& target);
// permute: `axes` must name every dim once (normalize_axes' rules).
BURN_TENSOR_API Shape permute(const Shape& x, const Axes& axes, const char* op = "permute");
// The permutation that undoes `axes` (each of 0..n-1 once, negative ones from the end):
// permute(permute(x, axes), inverse) == x.
BURN_TENSOR_API Axes inverse_permutation(const Axes& axes, const char* op = "permute");
// flip: axes as normalize_axes takes them; x's shape.
BURN_TENSOR_API Shape flip(const Shape& x, const Axes& axes, const char* op = "flip");
// expand: `target` may add leading dims; a dim of x stretches only from 1; -1 keeps x's dim.
BURN_TENSOR_API Shape expand(const Shape& x, const Shape& target, const char* op = "expand");
// slice: one normalised range (0 <= start <= end <= dim, step > 0) per leading dim; the region's shape.
BURN_TENSOR_API Shape slice(const Shape& x, const Slices& ranges, const char* op = "slice");
// slice_assign: `value` broadcasts to the region; x's shape.
BURN_TENSOR_API Shape slice_assign(const Shape& x, const Slices& ranges, const Shape& value,
                                   const char* op = "slice_assign");
// cat: at least one input; the inputs agree on every dim but `dim`, whose lengths add up.
BURN_TENSOR_API Shape cat(std::span<const Shape* const> xs, size_t dim, const char* op = "cat");
// repeat_dim: x tiled `times` (>= 0) along dim.
BURN_TENSOR_API Shape repeat_dim(const Shape& x, size_t dim, int64_t times, const char* op = "repeat_dim");

// ---- indexing ----

// gather: indices of x's rank, no larger than x outside dim; the indices' shape.
BURN_TENSOR_API Shape gather(const Shape& x, size_t dim, const Shape& indices, const char* op = "gather");
// scatter_add: indices no larger than values, nor than x outside dim; x's shape.
BURN_TENSOR_API Shape scatter_add(const Shape& x, size_t dim, const Shape& indices, const Shape& values,
                                  const char* op = "scatter_add");
// select: 1-D indices of length n; x with dim n long.
BURN_TENSOR_API Shape select(const Shape& x, size_t dim, const Shape& indices, const char* op = "select");
// select_add: 1-D indices, values of select's shape; x's shape.
BURN_TENSOR_API Shape select_add(const Shape& x, size_t dim, const Shape& indices, const Shape& values,
                                 const char* op = "select_add");

// ---- elementwise (numeric, compare, boolean, bitwise, float_math) ----

// NumPy broadcasting of two or three operands (binary ops; mask_where's x, mask and value).
BURN_TENSOR_API Shape broadcast(const Shape& a, const Shape& b, const char* op);
BURN_TENSOR_API Shape broadcast(const Shape& a, const Shape& b, const Shape& c, const char* op);
BURN_TENSOR_API std::optional<Shape> try_broadcast(const Shape& a, const Shape& b);
// The dims of `out` along which `in` was broadcast to it (leading dims it lacks, and its 1s that
// stretched): what a gradient of `out`'s shape sums over to get back to `in`.
BURN_TENSOR_API Axes broadcast_axes(const Shape& in, const Shape& out);
// matmul: operands of one rank >= 2, lhs [..., m, k] and rhs [..., k, n] with broadcast batch dims.
BURN_TENSOR_API Shape matmul(const Shape& lhs, const Shape& rhs, const char* op = "matmul");
BURN_TENSOR_API std::optional<Shape> try_matmul(const Shape& lhs, const Shape& rhs);

// ---- reduce ----

// A reduction over `dim`, kept with size 1. `nonempty`: the reduction has no value for an empty lane
// (max_dim, argmax, mean_dim in the api, ...), a ValueError.
BURN_TENSOR_API Shape reduce_dim(const Shape& x, size_t dim, bool nonempty, const char* op);
BURN_TENSOR_API std::optional<Shape> try_reduce_dim(const Shape& x, size_t dim, bool nonempty);
// A reduction of every element: [1]. `nonempty` as above (max, min, mean in the api).
BURN_TENSOR_API Shape reduce_all(const Shape& x, bool nonempty, const char* op);
// topk: 0 <= k <= x[dim]; x with dim k long.
BURN_TENSOR_API Shape topk(const Shape& x, int64_t k, size_t dim, const char* op = "topk");

// ---- conv (NC<spatial> layout) ----
// The module-op rules normalise their options in place first: a per-spatial-dim list that is empty
// takes the default, one value stands for every dim, padding_end defaults to padding (PoolOptions:
// stride to the kernel); options already normalised are left as they are. `bias` may be null.

// conv: x [N, C, in...] (1 to 3 spatial dims), weight [Cout, C / groups, k...]; [N, Cout, out...].
BURN_TENSOR_API Shape conv(const Shape& x, const Shape& weight, const Shape* bias, ConvOptions& options,
                           const char* op = "conv");
BURN_TENSOR_API std::optional<Shape> try_conv(const Shape& x, const Shape& weight, const Shape* bias,
                                              ConvOptions& options);
// conv_transpose: weight [C, Cout / groups, k...]; [N, Cout, out...].
BURN_TENSOR_API Shape conv_transpose(const Shape& x, const Shape& weight, const Shape* bias,
                                     ConvTransposeOptions& options, const char* op = "conv_transpose");
BURN_TENSOR_API std::optional<Shape> try_conv_transpose(const Shape& x, const Shape& weight, const Shape* bias,
                                                        ConvTransposeOptions& options);
// deform_conv2d: x [N, C, H, W], offset [N, 2 * offset_groups * kh * kw, Ho, Wo], mask (or null)
// [N, offset_groups * kh * kw, Ho, Wo]; [N, Cout, Ho, Wo].
BURN_TENSOR_API Shape deform_conv2d(const Shape& x, const Shape& offset, const Shape& weight, const Shape* mask,
                                    const Shape* bias, DeformConvOptions& options, const char* op = "deform_conv2d");
// The blocks per spatial dim that unfold's kernel takes from [H, W] (fold: from its output_size).
BURN_TENSOR_API std::vector<int64_t> unfold_blocks(const std::vector<int64_t>& spatial, UnfoldOptions& options,
                                                   const char* op = "unfold");
// unfold (im2col): x [N, C, H, W]; [N, C * kh * kw, L] with L = the product of the blocks. kernel is required.
BURN_TENSOR_API Shape unfold(const Shape& x, UnfoldOptions& options, const char* op = "unfold");
// fold (col2im): cols [N, C * kh * kw, L] with L the blocks of output_size [H, W]; [N, C, H, W].
BURN_TENSOR_API Shape fold(const Shape& cols, const std::vector<int64_t>& output_size, UnfoldOptions& options,
                           const char* op = "fold");

// ---- pool ----

// max_pool (`max`: dilation allowed) and avg_pool: x [N, C, in...] with no empty dim; [N, C, out...].
// PyTorch's lengths, ceil_mode included; padding at most half the (dilated) kernel.
BURN_TENSOR_API Shape pool(const Shape& x, PoolOptions& options, bool max, const char* op);
// The output length of a pool along one spatial dim (normalised options).
BURN_TENSOR_API int64_t pool_out_len(int64_t in, int64_t kernel, int64_t stride, int64_t padding, int64_t padding_end,
                                     int64_t dilation, bool ceil_mode);
// adaptive_avg_pool / adaptive_max_pool: x with no empty dim, one positive size per spatial dim.
BURN_TENSOR_API Shape adaptive_pool(const Shape& x, const std::vector<int64_t>& output_size, const char* op);

// ---- resample ----

// interpolate: one positive size per spatial dim (cubic: 1 or 2 spatial dims, else Unsupported).
BURN_TENSOR_API Shape interpolate(const Shape& x, const std::vector<int64_t>& output_size,
                                  const InterpolateOptions& options, const char* op = "interpolate");
// pixel_shuffle: (*, C * r^2, H, W) -> (*, C, H * r, W * r); pixel_unshuffle the reverse.
BURN_TENSOR_API Shape pixel_shuffle(const Shape& x, int64_t factor, const char* op = "pixel_shuffle");
BURN_TENSOR_API Shape pixel_unshuffle(const Shape& x, int64_t factor, const char* op = "pixel_unshuffle");
// grid_sample_2d: x [N, C, H, W] with a non-empty plane, grid [N, Ho, Wo, 2]; [N, C, Ho, Wo].
BURN_TENSOR_API Shape grid_sample_2d(const Shape& x, const Shape& grid, const char* op = "grid_sample_2d");

// ---- embedding ----

// embedding: weight [V, E], indices of any shape; indices' shape + [E].
BURN_TENSOR_API Shape embedding(const Shape& weight, const Shape& indices, const char* op = "embedding");

// ---- norm: the output has x's shape; these give the parameters' shape ----

// layer_norm / rms_norm: the trailing normalized_dims (>= 1, <= rank) dims of x.
BURN_TENSOR_API Shape layer_norm_params(const Shape& x, size_t normalized_dims, const char* op = "layer_norm");
BURN_TENSOR_API std::optional<Shape> try_layer_norm_params(const Shape& x, size_t normalized_dims);
// group_norm: x [N, C, ...], num_groups > 0 dividing C; [C].
BURN_TENSOR_API Shape group_norm_params(const Shape& x, int64_t num_groups, const char* op = "group_norm");
// batch_norm: x [N, C, ...]; [C].
BURN_TENSOR_API Shape batch_norm_params(const Shape& x, const char* op = "batch_norm");

// ---- attention ----

// attention: query [B, H, Lq, E], key [B, H, Lk, E] (Lk > 0), value [B, H, Lk, Ev], mask (or null)
// broadcasting to [B, H, Lq, Lk]; [B, H, Lq, Ev].
BURN_TENSOR_API Shape attention(const Shape& query, const Shape& key, const Shape& value, const Shape* mask,
                                const char* op = "attention");
// A mask of rank < 4 as the rank-4 shape it broadcasts from (leading 1s), which backends read by strides.
BURN_TENSOR_API Shape attention_mask_4d(const Shape& mask);

// ---- quant ----

// quantized_linear: x [..., K] (rank >= 1, K >= 1), w [K, N], scales [1] or [N], zero points (or null) of the
// scales' shape, bias (or null) [N]; [..., N].
BURN_TENSOR_API Shape quantized_linear(const Shape& x, const Shape& w, const Shape& scales, const Shape* zero_points,
                                       const Shape* bias, const char* op = "quantized_linear");
// matmul_integer: a [..., M, K] (rank >= 2, K >= 1), b [K, N], a's zero points (or null) [1] or [M], b's (or
// null) [1] or [N]; [..., M, N].
BURN_TENSOR_API Shape matmul_integer(const Shape& a, const Shape& b, const Shape* a_zero_points,
                                     const Shape* b_zero_points, const char* op = "matmul_integer");
// The backend ops' contracts on their operands (null for an absent optional one), checked once for the default
// bodies and the plugins: the rules above, and the dtypes the backend op takes (DTypeError): quantized_linear's x
// f32, f16 or bf16, weight values i8, scales f32, zero points i32, bias of x's dtype; matmul_integer's a and b u8
// or i8, zero points i32.
BURN_TENSOR_API Shape quantized_linear(const Prim& x, const Prim& w_values, const Prim& w_scales,
                                       const Prim& w_zero_points, const Prim& bias,
                                       const char* op = "quantized_linear");
BURN_TENSOR_API Shape matmul_integer(const Prim& a, const Prim& b, const Prim& a_zero_points, const Prim& b_zero_points,
                                     const char* op = "matmul_integer");

}  // namespace burn::shape_rules
