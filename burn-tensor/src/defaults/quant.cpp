// The DEFAULT ops of the quant group, composed from other ops exactly as their contracts (quant.hpp) define them.
// quantized_linear: each row of x quantized to u8 in f32 arithmetic, the integer products summed exactly
// in f64 (every partial sum is an integer below 2^53), the scaling in f64 in the order (sa * sb) * sum + bias,
// rounded once. A backend's integer kernel must give these bits (burn-backend-cpu/src/ops/quant.cpp does).
#include <limits>
#include <utility>

#include "helpers.hpp"

namespace burn {
using namespace detail;

Prim Backend::quantized_linear(Prim x, Prim w_values, Prim w_scales, Prim w_zero_points, Prim bias) {
  // The api casts the scales to f32 and the zero points to i32; a direct caller gets the same checks.
  const Shape out_shape = shape_rules::quantized_linear(x, w_values, w_scales, w_zero_points, bias);
  const DType out_dtype = x->dtype();
  const int64_t k = w_values->shape()[0], n = w_values->shape()[1];
  const int64_t m = x->shape().num_elements() / k;
  if (m == 0 || n == 0) return full(out_shape, 0, out_dtype);

  Prim x2 = reshape(cast(std::move(x), DType::F32), Shape{m, k});
  // Rows holding a NaN or an infinity give NaN rows; their values are quantized as zeros meanwhile.
  Prim finite = is_finite(x2);
  Prim bad_rows = bool_not(all_dim(finite, 1));
  x2 = mask_fill(std::move(x2), bool_not(std::move(finite)), 0.0);

  // Dynamic u8 quantization of each row over [min(row, 0), max(row, 0)].
  Prim lo = clamp_max(min_dim(x2, 1), 0.0);
  Prim hi = clamp_min(max_dim(x2, 1), 0.0);
  Prim scale = clamp_min(div_scalar(sub(hi, lo), 255.0), 0x1p-126);
  Prim zp = clamp(round(div(neg(std::move(lo)), scale)), 0.0, 255.0);
  Prim q = clamp(add(round(div(std::move(x2), scale)), zp), 0.0, 255.0);
  Prim qa = cast(sub(std::move(q), std::move(zp)), DType::F64);

  Prim wb = cast(std::move(w_values), DType::F64);
  const int64_t ns = w_scales->shape()[0];
  if (w_zero_points) wb = sub(std::move(wb), cast(reshape(std::move(w_zero_points), Shape{1, ns}), DType::F64));
  Prim acc = matmul(std::move(qa), std::move(wb));  // [m, n], exact

  Prim s = mul(cast(std::move(scale), DType::F64), cast(reshape(std::move(w_scales), Shape{1, ns}), DType::F64));
  Prim out = mul(std::move(s), std::move(acc));
  if (bias) out = add(std::move(out), cast(reshape(std::move(bias), Shape{1, n}), DType::F64));
  out = cast(std::move(out), out_dtype);
  out = mask_fill(std::move(out), expand(std::move(bad_rows), Shape{m, n}), std::numeric_limits<double>::quiet_NaN());
  return reshape(std::move(out), out_shape);
}

// matmul_integer: the operands less their zero points in f64, one f64 matmul (every partial sum an integer below
// 2^53: |(a - za)(b - zb)| <= 255^2 and K below 2^37), then the sum wrapped to int32 as v - 2^32 floor((v + 2^31) /
// 2^32), each step exact, and cast.
Prim Backend::matmul_integer(Prim a, Prim b, Prim a_zero_points, Prim b_zero_points) {
  const Shape out_shape = shape_rules::matmul_integer(a, b, a_zero_points, b_zero_points);
  const int64_t m = a->shape()[a->shape().rank() - 2], k = b->shape()[0], n = b->shape()[1];
  const int64_t rows = a->shape().num_elements() / k;
  if (rows == 0 || n == 0) return full(out_shape, 0, DType::I32);
  const int64_t za_len = a_zero_points ? a_zero_points->shape()[0] : 0;
  const int64_t zb_len = b_zero_points ? b_zero_points->shape()[0] : 0;

  Prim a2 = cast(reshape(std::move(a), Shape{rows / m, m, k}), DType::F64);
  if (a_zero_points) a2 = sub(std::move(a2), cast(reshape(std::move(a_zero_points), Shape{1, za_len, 1}), DType::F64));
  Prim b2 = cast(std::move(b), DType::F64);
  if (b_zero_points) b2 = sub(std::move(b2), cast(reshape(std::move(b_zero_points), Shape{1, zb_len}), DType::F64));
  Prim acc = matmul(reshape(std::move(a2), Shape{rows, k}), std::move(b2));  // exact
  constexpr double two32 = 4294967296.0;
  Prim wraps = floor(div_scalar(add_scalar(acc, 2147483648.0), two32));
  Prim wrapped = sub(std::move(acc), mul_scalar(std::move(wraps), two32));
  return reshape(cast(std::move(wrapped), DType::I32), out_shape);
}

}  // namespace burn
