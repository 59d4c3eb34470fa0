// quantize() and QTensor: the scales, zero points and integer values of a float tensor, and back, written with
// tensor api calls only (no kernel of their own), so they run on every backend and decorator. Each scheme level
// views the tensor as groups, one row per scale ([G, group size]): per tensor one row, per channel the axis
// moved first, per block the flat blocks of the last axis.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "../api/checks.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/quant.hpp"

namespace burn {

namespace {

using api::H;
using api::Hs;

std::vector<int64_t> channel_perm(const QuantScheme& s, const Shape& shape) {
  const size_t axis = normalize_dim(s.axis, shape.rank(), "quantize");
  std::vector<int64_t> perm{static_cast<int64_t>(axis)};
  for (size_t i = 0; i < shape.rank(); ++i)
    if (i != axis) perm.push_back(static_cast<int64_t>(i));
  return perm;
}

// [G, group size]: one row per scale, in the order of the scales.
H to_groups(H x, const QuantScheme& s, const Shape& shape) {
  switch (s.level) {
    case QuantLevel::Tensor: return api::reshape(std::move(x), {1, -1});
    case QuantLevel::Channel: {
      const int64_t c = shape[normalize_dim(s.axis, shape.rank(), "quantize")];
      return api::reshape(api::permute(std::move(x), channel_perm(s, shape)), {c, -1});
    }
    case QuantLevel::Block: return api::reshape(std::move(x), {-1, s.block_size});
  }
  throw ValueError("quantize", "unknown level");
}

// The inverse of to_groups: back to `shape`.
H from_groups(H g, const QuantScheme& s, const Shape& shape) {
  if (s.level != QuantLevel::Channel) return api::reshape(std::move(g), shape.dims());
  const std::vector<int64_t> perm = channel_perm(s, shape);
  std::vector<int64_t> permuted, inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    permuted.push_back(shape[static_cast<size_t>(perm[i])]);
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  }
  return api::permute(api::reshape(std::move(g), permuted), inverse);
}

int64_t num_groups(const QuantScheme& s, const Shape& shape) { return s.scales_shape(shape).num_elements(); }

// The smallest normal value of a scale dtype: the floor of every scale, so that x / scale is finite.
double smallest_scale(DType d) { return d == DType::F16 ? 0x1p-14 : 0x1p-126; }

// Mantissa bits of a 16-bit scale dtype: a scale times (1 + 2^-bits) rounded to nearest is never below it.
int mantissa_bits(DType d) { return d == DType::F16 ? 10 : 7; }

int64_t read_i64(const H& h) { return api::into_data(h).to_vec<int64_t>().at(0); }

// Packs int4 values (an int tensor, each in [-8, 7]) two per byte, the first of a pair in the low nibble: a 1-D
// U8 tensor of ceil(n / 2) bytes.
H pack_int4(const H& q, int64_t n) {
  H flat = api::reshape(api::cast(q, DType::I32), {n});
  if (n % 2 != 0) flat = api::cat({flat, api::full(q.device, Shape{1}, 0, DType::I32)}, 0);
  const H pairs = api::reshape(flat, {-1, 2});
  const H lo = api::bitwise_and_scalar(api::slice(pairs, {Slice::all(), Slice::range(0, 1)}), 15);
  const H hi = api::bitwise_and_scalar(api::slice(pairs, {Slice::all(), Slice::range(1, 2)}), 15);
  const H bytes = api::bitwise_or(lo, api::bitwise_left_shift_scalar(hi, 4));
  return api::cast(api::reshape(bytes, {-1}), DType::U8);
}

// The int4 values of `packed` as an I32 tensor of `shape`, sign-extended.
H unpack_int4(const H& packed, const Shape& shape) {
  const int64_t n = shape.num_elements();
  const H b = api::cast(packed, DType::I32);
  auto sign_extend = [](H v) { return api::sub(v, api::mul_scalar(api::bitwise_and_scalar(v, 8), 2)); };
  const H lo = sign_extend(api::bitwise_and_scalar(b, 15));
  const H hi = sign_extend(api::bitwise_right_shift_scalar(b, 4));
  H flat = api::reshape(api::stack({lo, hi}, 1), {-1});
  if (flat.prim->shape()[0] != n) flat = api::slice(flat, {Slice::range(0, n)});
  return api::reshape(flat, shape.dims());
}

void check_part(const H& h, const char* name, const Device& d, const char* op) {
  if (!h.prim) throw ValueError(op, std::string(name) + " is an empty tensor");
  if (h.device != d)
    throw DeviceError(op, std::string(name) + " is on " + h.device.name() + ", the values on " + d.name() +
                              "; the parts of a QTensor live on one device");
}

void check_shape_is(const H& h, const Shape& want, const char* name, const char* op) {
  if (h.prim->shape() != want)
    throw ShapeError(
        op, std::string(name) + " has shape " + h.prim->shape().to_string() + "; the scheme needs " + want.to_string());
}

void check_dtype_is(const H& h, DType want, const char* name, const char* op) {
  if (h.prim->dtype() != want)
    throw DTypeError(op, std::string(name) + " is " + std::string(dtype_name(h.prim->dtype())) + "; expected " +
                             std::string(dtype_name(want)));
}

}  // namespace

QTensor::QTensor(TensorHandle values, TensorHandle scales, std::optional<TensorHandle> zero_points, QuantScheme scheme,
                 Shape shape)
    : values_(std::move(values)),
      scales_(std::move(scales)),
      zero_points_(std::move(zero_points)),
      scheme_(scheme),
      shape_(std::move(shape)) {
  static constexpr const char* op = "QTensor";
  scheme_.validate(shape_, op);
  if (!values_.prim) throw ValueError(op, "values is an empty tensor");
  const Device& d = values_.device;
  check_part(scales_, "scales", d, op);
  const int64_t n = shape_.num_elements();
  if (scheme_.value == QuantValue::Q8) {
    check_dtype_is(values_, DType::I8, "values (q8)", op);
    check_shape_is(values_, shape_, "values", op);
  } else {
    check_dtype_is(values_, DType::U8, "values (q4, two per byte)", op);
    check_shape_is(values_, Shape{(n + 1) / 2}, "values", op);
  }
  const Shape ss = scheme_.scales_shape(shape_);
  check_dtype_is(scales_, scheme_.scale_dtype, "scales", op);
  check_shape_is(scales_, ss, "scales", op);
  if (scheme_.mode == QuantMode::Symmetric) {
    if (zero_points_) throw ValueError(op, "zero points given to a symmetric scheme (" + scheme_.to_string() + ")");
  } else {
    if (!zero_points_) throw ValueError(op, "an affine scheme (" + scheme_.to_string() + ") needs zero points");
    check_part(*zero_points_, "zero_points", d, op);
    check_dtype_is(*zero_points_, DType::I32, "zero_points", op);
    check_shape_is(*zero_points_, ss, "zero_points", op);
  }
}

TensorHandle QTensor::dequantize_handle(DType dtype) const {
  static constexpr const char* op = "dequantize";
  if (empty()) api::throw_empty_tensor(op);
  if (!is_float(dtype)) throw DTypeError(op, "the result must be a float dtype, not " + std::string(dtype_name(dtype)));
  const H q = scheme_.value == QuantValue::Q8 ? values_ : unpack_int4(values_, shape_);
  const int64_t g = num_groups(scheme_, shape_);
  H qg = to_groups(api::cast(q, DType::F32), scheme_, shape_);
  if (zero_points_) qg = api::sub(qg, api::reshape(api::cast(*zero_points_, DType::F32), {g, 1}));
  H out = from_groups(api::mul(qg, api::reshape(api::cast(scales_, DType::F32), {g, 1})), scheme_, shape_);
  return dtype == DType::F32 ? out : api::cast(std::move(out), dtype);
}

QTensor QTensor::to_device(const Device& d) const {
  if (empty()) api::throw_empty_tensor("QTensor::to_device");
  std::optional<TensorHandle> zp;
  if (zero_points_) zp = api::to_device(*zero_points_, d);
  return QTensor(api::to_device(values_, d), api::to_device(scales_, d), std::move(zp), scheme_, shape_);
}

std::string QTensor::to_string() const {
  if (empty()) return "QTensor(empty)";
  return "QTensor(shape " + shape_.to_string() + ", " + scheme_.to_string() + ", on " + device().name() + ")";
}

QTensor quantize(const TensorHandle& x, const QuantScheme& scheme) {
  static constexpr const char* op = "quantize";
  api::detail::be(x, op);
  api::detail::require_float(x, op);
  const Shape shape = x.prim->shape();
  scheme.validate(shape, op);
  const int64_t n = shape.num_elements();
  const int64_t finite = read_i64(api::reduce_all(OpId::sum, api::cast(api::unary(OpId::is_finite, x), DType::I64)));
  if (finite != n)
    throw ValueError(op, "x " + shape.to_string() + " holds " + std::to_string(n - finite) +
                             " non-finite value(s) (NaN or infinity); only finite values quantize");

  const int64_t g = num_groups(scheme, shape);
  const double qmin = static_cast<double>(scheme.qmin()), qmax = static_cast<double>(scheme.qmax());
  const H xg = to_groups(api::cast(x, DType::F32), scheme, shape);
  H scale, lo;
  if (scheme.mode == QuantMode::Symmetric) {
    scale = api::div_scalar(api::max_abs_dim(xg, 1), qmax);
  } else {
    lo = api::clamp_max(api::reduce_dim(OpId::min_dim, xg, 1), 0.0);
    const H hi = api::clamp_min(api::reduce_dim(OpId::max_dim, xg, 1), 0.0);
    scale = api::div_scalar(api::sub(hi, lo), qmax - qmin);
  }
  scale = api::clamp_min(scale, smallest_scale(scheme.scale_dtype));
  H stored = scale;
  if (scheme.scale_dtype != DType::F32) {
    // Rounded up: with a scale rounded down, the largest |x| would need a value past qmax and clamp.
    stored = api::cast(api::mul_scalar(scale, 1.0 + std::ldexp(1.0, -mantissa_bits(scheme.scale_dtype))),
                       scheme.scale_dtype);
    scale = api::cast(stored, DType::F32);
  }
  const int64_t finite_scales =
      read_i64(api::reduce_all(OpId::sum, api::cast(api::unary(OpId::is_finite, scale), DType::I64)));
  if (finite_scales != g)
    throw ValueError(op, "the range of x " + shape.to_string() + " gives a scale that " +
                             std::string(dtype_name(scheme.scale_dtype)) + " cannot hold (" + scheme.to_string() +
                             "); use f32 scales or a finer level");

  H q = api::unary(OpId::round, api::div(xg, scale));
  std::optional<H> zp;
  if (scheme.mode == QuantMode::Affine) {
    const H z = api::clamp(api::rsub_scalar(api::unary(OpId::round, api::div(lo, scale)), qmin), qmin, qmax);
    q = api::add(q, z);
    zp = api::reshape(api::cast(z, DType::I32), scheme.scales_shape(shape).dims());
  }
  q = from_groups(api::clamp(q, qmin, qmax), scheme, shape);
  H values = scheme.value == QuantValue::Q8 ? api::cast(q, DType::I8) : pack_int4(q, n);
  return QTensor(std::move(values), api::reshape(stored, scheme.scales_shape(shape).dims()), std::move(zp), scheme,
                 shape);
}

TensorHandle quantized_linear(const TensorHandle& x, const QTensor& weight, const std::optional<TensorHandle>& bias) {
  static constexpr const char* op = "quantized_linear";
  if (weight.empty()) api::throw_empty_tensor(op);
  const QuantScheme& s = weight.scheme();
  if (weight.shape().rank() != 2)
    throw ShapeError(op, "the weight must be 2-D [in, out], got " + weight.shape().to_string());
  const bool per_out_channel = s.level == QuantLevel::Channel && normalize_dim(s.axis, 2, op) == 1;
  if (s.value != QuantValue::Q8 || !(s.level == QuantLevel::Tensor || per_out_channel))
    throw Unsupported(op, "weights quantized as " + s.to_string() +
                              "; the integer path takes q8 per tensor or per channel along axis 1 (the outputs): "
                              "dequantize the weight and use matmul");
  return api::quantized_linear(x, weight.values(), weight.scales(), weight.zero_points(), bias);
}

}  // namespace burn
