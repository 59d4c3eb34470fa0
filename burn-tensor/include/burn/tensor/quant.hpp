// Quantized tensors, as Burn has them: a QuantScheme (value type, mode, level, scale dtype) and a QTensor that
// keeps the integer values, their scales and zero points together. quantize() and QTensor::dequantize() are
// compositions of tensor ops, so they run on every backend; quantized_linear() and matmul_integer() are the ops of
// the table with an integer fast path (the cpu plugin's int8 GEMM). DType stays the numeric set: a QTensor is not a
// Tensor, and turns into one only through dequantize() (explicit: docs/decisions.md, "quantized tensors").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "burn/tensor/tensor.hpp"

namespace burn {

// The integer type of the stored values: int8 (an I8 tensor of the logical shape) or int4 (two values per
// byte of a 1-D U8 tensor, in row-major order, the first of each pair in the low nibble).
enum class QuantValue : uint8_t { Q8, Q4 };
// Symmetric: x = q * scale, q in [-127, 127] (int4: [-7, 7]); affine: x = (q - zero_point) * scale,
// q in [-128, 127] (int4: [-8, 7]), the range [min(x, 0), max(x, 0)] mapped onto it.
enum class QuantMode : uint8_t { Symmetric, Affine };
// One scale for the tensor, one per index of an axis, or one per block of `block_size` elements along the last
// axis.
enum class QuantLevel : uint8_t { Tensor, Channel, Block };

struct BURN_TENSOR_API QuantScheme {
  QuantValue value = QuantValue::Q8;
  QuantMode mode = QuantMode::Symmetric;
  QuantLevel level = QuantLevel::Tensor;
  int64_t axis = 0;                // Channel: the axis with its own scales (negative counts from the end)
  int64_t block_size = 0;          // Block: elements per block along the last axis (must divide it)
  DType scale_dtype = DType::F32;  // F32, F16 or BF16

  static QuantScheme per_tensor(QuantValue value = QuantValue::Q8, QuantMode mode = QuantMode::Symmetric) {
    return {value, mode, QuantLevel::Tensor, 0, 0, DType::F32};
  }
  static QuantScheme per_channel(int64_t axis, QuantValue value = QuantValue::Q8,
                                 QuantMode mode = QuantMode::Symmetric) {
    return {value, mode, QuantLevel::Channel, axis, 0, DType::F32};
  }
  static QuantScheme per_block(int64_t block_size, QuantValue value = QuantValue::Q8,
                               QuantMode mode = QuantMode::Symmetric) {
    return {value, mode, QuantLevel::Block, 0, block_size, DType::F32};
  }
  QuantScheme with_scale_dtype(DType d) const {
    QuantScheme s = *this;
    s.scale_dtype = d;
    return s;
  }

  // The integer range of the values: [-127, 127] / [-7, 7] symmetric, [-128, 127] / [-8, 7] affine.
  int64_t qmin() const;
  int64_t qmax() const;
  // "q8 symmetric per-channel(axis 1) scales f32".
  std::string to_string() const;
  // ValueError naming `op` for a combination that cannot be (block size < 1, a scale dtype that is not a float,
  // ...) or that a tensor of `shape` cannot take (axis out of range, a block size that does not divide the last
  // dim, a rank-0 or empty shape).
  void validate(const Shape& shape, const char* op) const;
  // The shape of the scales (and zero points) for a tensor of `shape`: [1] per tensor, [shape[axis]] per
  // channel, `shape` with its last dim divided by block_size per block.
  Shape scales_shape(const Shape& shape) const;

  bool operator==(const QuantScheme&) const = default;
};

class BURN_TENSOR_API QTensor {
 public:
  QTensor() = default;
  // Assembles a quantized tensor from its parts, checked against each other: DTypeError for a values tensor
  // that is not I8 (Q8) / U8 (Q4), scales not of scheme.scale_dtype, zero points not I32; ShapeError for
  // sizes that do not match `shape` and the scheme; ValueError for zero points given to a symmetric scheme
  // or missing from an affine one; DeviceError for parts on different devices. The values are not read.
  QTensor(TensorHandle values, TensorHandle scales, std::optional<TensorHandle> zero_points, QuantScheme scheme,
          Shape shape);

  const TensorHandle& values() const { return values_; }
  const TensorHandle& scales() const { return scales_; }
  const std::optional<TensorHandle>& zero_points() const { return zero_points_; }
  const QuantScheme& scheme() const { return scheme_; }
  const Shape& shape() const { return shape_; }
  const Device& device() const { return values_.device; }
  bool empty() const { return !values_.prim; }

  // The float tensor (q - zero_point) * scale of `shape`, in `dtype` (a float dtype), computed in f32.
  TensorHandle dequantize_handle(DType dtype = DType::F32) const;
  template <size_t D>
  Tensor<D> dequantize(DType dtype = DType::F32) const {
    return Tensor<D>(dequantize_handle(dtype));  // the Tensor checks the rank (ShapeError)
  }
  // The same quantized tensor on another device (each part moved).
  QTensor to_device(const Device& d) const;
  std::string to_string() const;

 private:
  TensorHandle values_, scales_;
  std::optional<TensorHandle> zero_points_;
  QuantScheme scheme_;
  Shape shape_;
};

// Quantizes a float tensor: scales from the min/max of each group (symmetric: absmax / qmax; affine:
// (max - min) / (qmax - qmin) over [min(x, 0), max(x, 0)], zero point qmin - round(min / scale)), a 16-bit
// scale rounded up so that no element clamps, q = clamp(round_half_even(x / scale) + zero_point). An all-zero
// group gets the smallest normal scale of its dtype. ValueError for an empty tensor, a non-finite element
// (NaN or infinity, counted in the message) or a scheme `x` cannot take; DTypeError for a non-float x.
BURN_TENSOR_API QTensor quantize(const TensorHandle& x, const QuantScheme& scheme);
template <size_t D>
QTensor quantize(const Tensor<D>& x, const QuantScheme& scheme) {
  return quantize(x.handle(), scheme);
}

namespace api {
// The table op (docs/decisions.md, "quantized_linear"): x [..., K] float, w_values I8 [K, N], w_scales F32 [1]
// or [N], w_zero_points I32 of the scales' shape (absent: symmetric), bias [N] of x's dtype (absent: none).
// Each row of x is quantized dynamically to u8 (affine over [min(row, 0), max(row, 0)], scale
// max((max - min) / 255, 2^-126) in f32, zero point round(-min / scale), q = clamp(round(x / scale) + zp, 0,
// 255)), and out[i][j] = (sa_i * sb_j) * sum_k (qa - za)(qb - zb) + bias_j, the sum exact, the scaling in
// double, rounded once to x's dtype. A row of x holding a NaN or an infinity gives a row of NaN.
BURN_TENSOR_API H quantized_linear(const H& x, const H& w_values, const H& w_scales,
                                   const std::optional<H>& w_zero_points, const std::optional<H>& bias);
// The table's integer matmul (docs/decisions.md, "matmul_integer"), ONNX's MatMulInteger with a 2-D b: a U8 or I8
// [..., M, K], b U8 or I8 [K, N], zero points (absent: 0) of any integer dtype, 0-d or [1] (per tensor), [M] for a
// (per row) or [N] for b (per column); out I32 [..., M, N] = sum_k (a - za)(b - zb), formed exactly and wrapped to
// int32 as an int32 accumulator wraps (so exact whenever the sum fits int32).
BURN_TENSOR_API H matmul_integer(const H& a, const H& b, const std::optional<H>& a_zero_points,
                                 const std::optional<H>& b_zero_points);
}  // namespace api

// matmul_integer on typed tensors: a [..., M, K] and b [K, N] of U8 or I8, the result I32.
template <size_t D>
Tensor<D, Int> matmul_integer(const Tensor<D, Int>& a, const Tensor<2, Int>& b,
                              const std::optional<Tensor<1, Int>>& a_zero_points = {},
                              const std::optional<Tensor<1, Int>>& b_zero_points = {}) {
  const auto h = [](const std::optional<Tensor<1, Int>>& t) {
    return t ? std::optional<TensorHandle>(t->handle()) : std::nullopt;
  };
  return Tensor<D, Int>(api::matmul_integer(a.handle(), b.handle(), h(a_zero_points), h(b_zero_points)));
}

// quantized_linear with a QTensor weight [K, N] quantized to int8 per tensor or per channel along axis 1 (the
// output features): Unsupported for int4 or per-block weights (dequantize them and use matmul).
BURN_TENSOR_API TensorHandle quantized_linear(const TensorHandle& x, const QTensor& weight,
                                              const std::optional<TensorHandle>& bias);
template <size_t D>
Tensor<D> quantized_linear(const Tensor<D>& x, const QTensor& weight, const std::optional<Tensor<1>>& bias = {}) {
  return Tensor<D>(
      quantized_linear(x.handle(), weight, bias ? std::optional<TensorHandle>(bias->handle()) : std::nullopt));
}

}  // namespace burn
