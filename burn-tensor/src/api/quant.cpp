// Tensor API, quant group: quantized_linear's and matmul_integer's checks with tagged errors, then the backend op.
// The scales reach the backend as f32 and the zero points as i32 of rank 1, so that a backend's kernel takes one
// layout.
#include <string>

#include "burn/tensor/quant.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

H quantized_linear(const H& x, const H& w_values, const H& w_scales, const std::optional<H>& w_zero_points,
                   const std::optional<H>& bias) {
  static constexpr const char* op = "quantized_linear";
  Backend& b = be(x, op);
  same_device(x, w_values, op);
  same_device(x, w_scales, op);
  const DType xd = x.prim->dtype();
  if (xd != DType::F32 && xd != DType::F16 && xd != DType::BF16)
    throw DTypeError(op, "x must be f32, f16 or bf16, got " + dt(xd));
  if (w_values.prim->dtype() != DType::I8)
    throw DTypeError(op, "the weight's values must be i8, got " + dt(w_values.prim->dtype()));
  require_float(w_scales, op);
  H zp;
  if (w_zero_points) {
    same_device(x, *w_zero_points, op);
    const DType zd = w_zero_points->prim->dtype();
    if (zd != DType::I32 && zd != DType::I8) throw DTypeError(op, "zero points must be i32 or i8, got " + dt(zd));
    zp = zd == DType::I32 ? *w_zero_points : cast(*w_zero_points, DType::I32);
  }
  if (bias) {
    same_device(x, *bias, op);
    if (bias->prim->dtype() != xd)
      throw DTypeError(op, "bias is " + dt(bias->prim->dtype()) + " and x is " + dt(xd) + "; cast one of them first");
  }
  shape_rules::quantized_linear(shape(x), shape(w_values), shape(w_scales), zp.prim ? &shape(zp) : nullptr,
                                bias ? &shape(*bias) : nullptr, op);
  const H scales = w_scales.prim->dtype() == DType::F32 ? w_scales : cast(w_scales, DType::F32);
  return with(x, b.quantized_linear(x.prim, w_values.prim, scales.prim, zp.prim, bias ? bias->prim : nullptr));
}

namespace {

// A zero point of an integer dtype, 0-d or 1-D, as the I32 [1] or [n] the backend op takes.
H zero_points_i32(const H& a, const H& zp, const char* which, const char* op) {
  same_device(a, zp, op);
  const DType zd = zp.prim->dtype();
  if (!is_int(zd)) throw DTypeError(op, std::string(which) + "'s zero points must be integers, got " + dt(zd));
  if (shape(zp).rank() > 1)
    throw ShapeError(op, std::string(which) + "'s zero points must be 0-d or 1-D, got " + shape(zp).to_string());
  const H z = zd == DType::I32 ? zp : cast(zp, DType::I32);
  return shape(z).rank() == 0 ? reshape(z, {1}) : z;
}

}  // namespace

H matmul_integer(const H& a, const H& b, const std::optional<H>& a_zero_points, const std::optional<H>& b_zero_points) {
  static constexpr const char* op = "matmul_integer";
  Backend& be_a = be(a, op);
  same_device(a, b, op);
  const auto int8 = [&](const H& h, const char* which) {
    const DType d = h.prim->dtype();
    if (d != DType::U8 && d != DType::I8) throw DTypeError(op, std::string(which) + " must be u8 or i8, got " + dt(d));
  };
  int8(a, "a");
  int8(b, "b");
  const H za = a_zero_points ? zero_points_i32(a, *a_zero_points, "a", op) : H{};
  const H zb = b_zero_points ? zero_points_i32(a, *b_zero_points, "b", op) : H{};
  shape_rules::matmul_integer(shape(a), shape(b), za.prim ? &shape(za) : nullptr, zb.prim ? &shape(zb) : nullptr, op);
  return with(a, be_a.matmul_integer(a.prim, b.prim, za.prim, zb.prim));
}

}  // namespace burn::api
