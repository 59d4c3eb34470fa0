// The non-template core of the tensor API. Tensor<D, K> forwards here so that the public template
// stays thin and compile times stay low; these functions do the checking and call the backend.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "burn/tensor/device.hpp"

namespace burn {

enum class Kind : uint8_t { Float, Int, Bool };

// A tensor without its static rank and kind: the device it lives on and the backend's primitive.
struct TensorHandle {
  Device device;  // none for a default-constructed tensor
  Prim prim;
};

// One dim of a slice, Python style: [start, end) with a step; negative start/end count from the end;
// a missing bound means the whole side; a negative step walks the range backwards (NumPy).
struct Slice {
  std::optional<int64_t> start, end;
  int64_t step = 1;
  bool index = false;  // made by at(): the bound is checked (IndexError) instead of clamped
  static Slice all() { return {}; }
  static Slice range(int64_t start, int64_t end, int64_t step = 1) { return {start, end, step}; }
  static Slice from(int64_t start, int64_t step = 1) { return {start, std::nullopt, step}; }
  static Slice to(int64_t end) { return {std::nullopt, end, 1}; }
  // A single index, keeping the dim (size 1); -1 is the last element. (INT64_MAX, out of range for
  // any dim, must not overflow i + 1 before the range check refuses it.)
  static Slice at(int64_t i) {
    return {i, i == -1 || i == INT64_MAX ? std::nullopt : std::optional<int64_t>(i + 1), 1, true};
  }
};

enum class PadMode : uint8_t { Constant, Reflect, Replicate };

// meshgrid's output layout: Matrix is torch's indexing="ij", Cartesian is "xy" (first two dims swapped).
enum class GridIndexing : uint8_t { Matrix, Cartesian };

// How scatter_nd combines an update with the value it lands on (ONNX ScatterND's reduction).
enum class ScatterReduction : uint8_t { None, Add };

namespace api {

using H = TensorHandle;
using Hs = std::vector<TensorHandle>;

// Checks that a handle matches a static rank and kind; ShapeError / DTypeError naming `op`.
BURN_TENSOR_API void check_tensor(const H& h, size_t rank, Kind kind, const char* op);
BURN_TENSOR_API Kind kind_of(DType d);
BURN_TENSOR_API DType default_dtype(Kind k);
// ValueError naming `op`: the tensor is empty (default-constructed or moved-from).
[[noreturn]] BURN_TENSOR_API void throw_empty_tensor(const char* op);

// creation
BURN_TENSOR_API H empty(const Device& d, const Shape& s, DType dt);
BURN_TENSOR_API H full(const Device& d, const Shape& s, Scalar v, DType dt);
BURN_TENSOR_API H from_data(const Device& d, const TensorData& data, Kind kind);
BURN_TENSOR_API H arange(const Device& d, int64_t start, int64_t end, int64_t step, DType dt);
BURN_TENSOR_API H eye(const Device& d, int64_t n, int64_t m, DType dt);
BURN_TENSOR_API H random(const Device& d, const Shape& s, const Distribution& dist, DType dt);
BURN_TENSOR_API TensorData into_data(const H& h);
BURN_TENSOR_API H to_device(const H& h, const Device& d);
BURN_TENSOR_API H cast(H h, DType dt);
BURN_TENSOR_API std::string to_string(const H& h);
// [..shape, rank]: each element's own coordinates (Burn's cartesian_grid); dt an int dtype.
BURN_TENSOR_API H cartesian_grid(const Device& d, const Shape& s, DType dt);
// One tensor per 1-D input, each expanded to the grid's shape (torch.meshgrid).
BURN_TENSOR_API Hs meshgrid(const Hs& hs, GridIndexing indexing);
// num_samples class indices per row of a 1-D or 2-D weight tensor, drawn with the device's generator
// (torch.multinomial); zero-weight classes are never drawn.
BURN_TENSOR_API H categorical(const H& weights, int64_t num_samples, bool replacement);

// layout
BURN_TENSOR_API H reshape(H h, const std::vector<int64_t>& dims);  // one -1 allowed
BURN_TENSOR_API H permute(H h, const std::vector<int64_t>& axes);  // negative axes allowed
BURN_TENSOR_API H swap_dims(H h, int64_t a, int64_t b);
BURN_TENSOR_API H flatten(H h, int64_t start, int64_t end);
BURN_TENSOR_API H squeeze_dims(H h, const std::vector<int64_t>& dims);    // empty: every size-1 dim
BURN_TENSOR_API H unsqueeze_dims(H h, const std::vector<int64_t>& dims);  // positions in the output
BURN_TENSOR_API H expand(H h, const std::vector<int64_t>& dims);          // -1 keeps a dim; may add leading dims
BURN_TENSOR_API H flip(H h, const std::vector<int64_t>& axes);
BURN_TENSOR_API H roll(H h, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims);
BURN_TENSOR_API H repeat(H h, const std::vector<int64_t>& sizes);
BURN_TENSOR_API H narrow(H h, int64_t dim, int64_t start, int64_t length);
BURN_TENSOR_API Hs chunk(H h, int64_t chunks, int64_t dim);
BURN_TENSOR_API Hs split(H h, int64_t size, int64_t dim);
BURN_TENSOR_API Hs split_with_sizes(H h, const std::vector<int64_t>& sizes, int64_t dim);
BURN_TENSOR_API H cat(const Hs& hs, int64_t dim);
BURN_TENSOR_API H stack(const Hs& hs, int64_t dim);
BURN_TENSOR_API H slice(H h, const std::vector<Slice>& slices);
BURN_TENSOR_API H slice_assign(H h, const std::vector<Slice>& slices, const H& value);
BURN_TENSOR_API H slice_fill(H h, const std::vector<Slice>& slices, Scalar value);
// pads: (left, right) pairs starting from the LAST dim, as torch.nn.functional.pad.
BURN_TENSOR_API H pad(H h, const std::vector<int64_t>& pads, PadMode mode, Scalar value);
// Windows of `size` every `step` along dim, as a new last dim (torch.Tensor.unfold); conv's im2col
// unfold (module.hpp) takes UnfoldOptions instead.
BURN_TENSOR_API H unfold(H h, int64_t dim, int64_t size, int64_t step);
BURN_TENSOR_API H movedim(H h, const std::vector<int64_t>& source, const std::vector<int64_t>& destination);
BURN_TENSOR_API Hs iter_dim(const H& h, int64_t dim);  // the slices along dim, each keeping it (size 1)

// indexing
BURN_TENSOR_API H select(H h, int64_t dim, const H& indices);
BURN_TENSOR_API H select_assign(H h, int64_t dim, const H& indices, const H& values);
BURN_TENSOR_API H gather(H h, int64_t dim, const H& indices);
BURN_TENSOR_API H scatter_add(H h, int64_t dim, const H& indices, const H& values);
BURN_TENSOR_API H mask_where(H h, const H& mask, const H& value);
BURN_TENSOR_API H mask_fill(H h, const H& mask, Scalar value);
BURN_TENSOR_API H argwhere(const H& h);
BURN_TENSOR_API Hs nonzero(const H& h);
BURN_TENSOR_API H one_hot(const H& h, int64_t num_classes, DType dt);
BURN_TENSOR_API H tril(H h, int64_t diagonal);
BURN_TENSOR_API H triu(H h, int64_t diagonal);
BURN_TENSOR_API H tril_mask(const Device& d, const Shape& s, int64_t diagonal);
BURN_TENSOR_API H triu_mask(const Device& d, const Shape& s, int64_t diagonal);
// Elements at flat (row-major) indices, negative from the end; the result has the indices' shape.
BURN_TENSOR_API H take(const H& h, const H& indices);
// ONNX GatherND / ScatterND with batch_dims = 0: the last dim of indices (k) indexes the first k dims.
BURN_TENSOR_API H gather_nd(const H& h, const H& indices);
BURN_TENSOR_API H scatter_nd(H h, const H& indices, const H& updates, ScatterReduction reduction);
// The elements where the (broadcast) mask is true, as a 1-D tensor (torch.masked_select).
BURN_TENSOR_API H mask_select(const H& h, const H& mask);

// numeric
BURN_TENSOR_API H add(H a, const H& b);
BURN_TENSOR_API H sub(H a, const H& b);
BURN_TENSOR_API H mul(H a, const H& b);
BURN_TENSOR_API H div(H a, const H& b);
BURN_TENSOR_API H remainder(H a, const H& b);
BURN_TENSOR_API H fmod(H a, const H& b);  // C's fmod: the sign of a (remainder takes b's)
BURN_TENSOR_API H powf(H a, const H& b);
BURN_TENSOR_API H atan2(H a, const H& b);
BURN_TENSOR_API H hypot(H a, const H& b);
BURN_TENSOR_API H maximum(H a, const H& b);
BURN_TENSOR_API H minimum(H a, const H& b);
BURN_TENSOR_API H add_scalar(H a, Scalar b);
BURN_TENSOR_API H sub_scalar(H a, Scalar b);
BURN_TENSOR_API H rsub_scalar(H a, Scalar b);  // b - a
BURN_TENSOR_API H mul_scalar(H a, Scalar b);
BURN_TENSOR_API H div_scalar(H a, Scalar b);
BURN_TENSOR_API H rdiv_scalar(H a, Scalar b);  // b / a
BURN_TENSOR_API H remainder_scalar(H a, Scalar b);
BURN_TENSOR_API H fmod_scalar(H a, Scalar b);
BURN_TENSOR_API H powf_scalar(H a, Scalar b);
BURN_TENSOR_API H powi(H a, const H& b);
BURN_TENSOR_API H powi_scalar(H a, int64_t b);
BURN_TENSOR_API H matmul(H a, const H& b);
BURN_TENSOR_API H clamp(H h, Scalar lo, Scalar hi);
BURN_TENSOR_API H clamp_min(H h, Scalar lo);
BURN_TENSOR_API H clamp_max(H h, Scalar hi);
// torch.einsum: "ij,jk->ik", implicit output, repeated subscripts (diagonals), "..." broadcasting.
BURN_TENSOR_API H einsum(std::string_view equation, const Hs& operands);
BURN_TENSOR_API H cross(H a, const H& b, int64_t dim);  // torch.linalg.cross; dim has size 3
BURN_TENSOR_API H dot(H a, const H& b);                 // 1-D operands -> [1]

// unary ops by id: the float math, abs/neg/sign, bitwise_not and the parameterless activations
BURN_TENSOR_API H unary(OpId op, H h);
BURN_TENSOR_API H deg2rad(H h);
BURN_TENSOR_API H rad2deg(H h);

// reductions
BURN_TENSOR_API H reduce_all(OpId op, H h);               // sum, mean, prod, max, min, any, all -> [1]
BURN_TENSOR_API H reduce_dim(OpId op, H h, int64_t dim);  // *_dim, argmax, argmin, cum*, keeps dim
BURN_TENSOR_API std::pair<H, H> reduce_dim_with_indices(OpId op, H h, int64_t dim);  // max/min
BURN_TENSOR_API H var(H h, int64_t dim, int64_t correction);
BURN_TENSOR_API std::pair<H, H> var_mean(H h, int64_t dim, int64_t correction);
BURN_TENSOR_API std::pair<H, H> sort_with_indices(H h, int64_t dim, bool descending, bool stable);
BURN_TENSOR_API H argsort(H h, int64_t dim, bool descending, bool stable);
BURN_TENSOR_API std::pair<H, H> topk_with_indices(H h, int64_t k, int64_t dim, bool largest);
BURN_TENSOR_API H max_abs(H h);                   // max(|x|) -> [1]
BURN_TENSOR_API H max_abs_dim(H h, int64_t dim);  // keeps dim
// The lower median (torch.median): of every element -> [1], or along dim (kept) with its index; NaN
// wins, with the index of the first NaN.
BURN_TENSOR_API H median(H h);
BURN_TENSOR_API std::pair<H, H> median_dim(H h, int64_t dim);
// torch.cov: rows are variables, columns observations; optional per-observation integer frequency
// weights and float weights. A 1-D input is one variable -> [1].
BURN_TENSOR_API H cov(H h, int64_t correction, const std::optional<H>& fweights, const std::optional<H>& aweights);

// comparison and bool (op is one of the compare/boolean ops of the table)
BURN_TENSOR_API H compare(OpId op, H a, const H& b);
BURN_TENSOR_API H compare_elem(OpId op, H a, Scalar b);
BURN_TENSOR_API H bool_binary(OpId op, H a, const H& b);
// torch.isclose / torch.allclose: |a - b| <= atol + rtol * |b|, or a == b (infinities), or both NaN when
// equal_nan; broadcasting; Bool result / true for every element (true for empty tensors).
BURN_TENSOR_API H is_close(H a, const H& b, double rtol, double atol, bool equal_nan);
BURN_TENSOR_API bool all_close(const H& a, const H& b, double rtol, double atol, bool equal_nan);

// bitwise, on Int tensors (i64, i32, i8, u8); bitwise_not is unary(OpId::bitwise_not, h). Scalars are
// converted to the tensor's dtype (wrapping); shifts follow burn/tensor/detail/bitwise.hpp.
BURN_TENSOR_API H bitwise_and(H a, const H& b);
BURN_TENSOR_API H bitwise_or(H a, const H& b);
BURN_TENSOR_API H bitwise_xor(H a, const H& b);
BURN_TENSOR_API H bitwise_left_shift(H a, const H& b);
BURN_TENSOR_API H bitwise_right_shift(H a, const H& b);
BURN_TENSOR_API H bitwise_and_scalar(H a, Scalar b);
BURN_TENSOR_API H bitwise_or_scalar(H a, Scalar b);
BURN_TENSOR_API H bitwise_xor_scalar(H a, Scalar b);
BURN_TENSOR_API H bitwise_left_shift_scalar(H a, Scalar b);
BURN_TENSOR_API H bitwise_right_shift_scalar(H a, Scalar b);

// parameterised activations
BURN_TENSOR_API H leaky_relu(H h, double negative_slope);
BURN_TENSOR_API H softplus(H h, double beta, double threshold);
BURN_TENSOR_API H hard_sigmoid(H h, double alpha, double beta);
BURN_TENSOR_API H elu(H h, double alpha);
BURN_TENSOR_API H softmax(H h, int64_t dim);
BURN_TENSOR_API H log_softmax(H h, int64_t dim);
BURN_TENSOR_API H softmin(H h, int64_t dim);
BURN_TENSOR_API H celu(H h, double alpha);
BURN_TENSOR_API H glu(H h, int64_t dim);  // a * sigmoid(b) for the halves a, b of dim
BURN_TENSOR_API H hard_shrink(H h, double lambda);
BURN_TENSOR_API H soft_shrink(H h, double lambda);
BURN_TENSOR_API H hard_swish(H h);
BURN_TENSOR_API H hardtanh(H h, double min, double max);
BURN_TENSOR_API H relu6(H h);
BURN_TENSOR_API H prelu(H h, const H& weight);  // weight: [1] or [channels], channels = dim 1
BURN_TENSOR_API H softsign(H h);
BURN_TENSOR_API H tanhshrink(H h);
BURN_TENSOR_API H threshold(H h, double threshold, double value);  // value where x <= threshold
BURN_TENSOR_API H quiet_softmax(H h, int64_t dim);                 // exp(x) / (1 + sum exp(x)), stabilised by the max

}  // namespace api
}  // namespace burn
