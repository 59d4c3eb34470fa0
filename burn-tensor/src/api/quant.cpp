// Tensor API, quant group: quantized_linear's checks with tagged errors, then the backend op. The scales reach the
// backend as f32 and the zero points as i32, so that a backend's kernel takes one layout.
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
  const Shape zs = zp.prim ? zp.prim->shape() : Shape{};
  shape_rules::quantized_linear(shape(x), shape(w_values), shape(w_scales), zp.prim ? &zs : nullptr,
                                bias ? &shape(*bias) : nullptr, op);
  const H scales = w_scales.prim->dtype() == DType::F32 ? w_scales : cast(w_scales, DType::F32);
  return with(x, b.quantized_linear(x.prim, w_values.prim, scales.prim, zp.prim, bias ? bias->prim : nullptr));
}

}  // namespace burn::api
