// Shape rules of the quant group: quantized_linear's and matmul_integer's operands against each other, and their
// backend ops' operand checks (shapes and dtypes) shared by the default bodies and the plugins.
#include <string>

#include "burn/tensor/dtype.hpp"
#include "check.hpp"

namespace burn::shape_rules {

Shape quantized_linear(const Shape& x, const Shape& w, const Shape& scales, const Shape* zero_points, const Shape* bias,
                       const char* op) {
  const auto all = [&] {
    return "x " + x.to_string() + ", weight " + w.to_string() + ", scales " + scales.to_string();
  };
  if (w.rank() != 2) throw ShapeError(op, "the weight must be 2-D [in, out]: " + all());
  if (x.rank() < 1) throw ShapeError(op, "x must have rank 1 or more: " + all());
  const int64_t k = w[0], n = w[1];
  if (k < 1) throw ShapeError(op, "the weight has no input features: " + all());
  if (x[x.rank() - 1] != k) throw ShapeError(op, "x's last dim differs from the weight's input features: " + all());
  if (!(scales == Shape{1} || scales == Shape{n}))
    throw ShapeError(op, "scales must be [1] (per tensor) or [" + std::to_string(n) + "] (per output): " + all());
  if (zero_points && *zero_points != scales)
    throw ShapeError(op, "zero points " + zero_points->to_string() + " must have the scales' shape: " + all());
  if (bias && *bias != Shape{n})
    throw ShapeError(op, "bias " + bias->to_string() + " must be [" + std::to_string(n) + "]: " + all());
  Shape out = x;
  out[out.rank() - 1] = n;
  return out;
}

Shape matmul_integer(const Shape& a, const Shape& b, const Shape* a_zero_points, const Shape* b_zero_points,
                     const char* op) {
  const auto all = [&] {
    return "a " + a.to_string() + ", b " + b.to_string() +
           (a_zero_points ? ", a's zero points " + a_zero_points->to_string() : std::string()) +
           (b_zero_points ? ", b's zero points " + b_zero_points->to_string() : std::string());
  };
  if (a.rank() < 2) throw ShapeError(op, "a must have rank 2 or more [..., M, K]: " + all());
  if (b.rank() != 2) throw ShapeError(op, "b must be 2-D [K, N]: " + all());
  const int64_t m = a[a.rank() - 2], k = b[0], n = b[1];
  if (k < 1) throw ShapeError(op, "the inner dim is empty: " + all());
  if (a[a.rank() - 1] != k) throw ShapeError(op, "a's last dim differs from b's first: " + all());
  if (a_zero_points && !(*a_zero_points == Shape{1} || *a_zero_points == Shape{m}))
    throw ShapeError(op, "a's zero points must be [1] or [" + std::to_string(m) + "] (one per row): " + all());
  if (b_zero_points && !(*b_zero_points == Shape{1} || *b_zero_points == Shape{n}))
    throw ShapeError(op, "b's zero points must be [1] or [" + std::to_string(n) + "] (one per column): " + all());
  Shape out = a;
  out[out.rank() - 1] = n;
  return out;
}

namespace {

const Shape* shape_or_null(const Prim& p) { return p ? &p->shape() : nullptr; }

[[noreturn]] void refuse(const char* op, const char* what, DType d) {
  throw DTypeError(op, std::string(what) + ", got " + std::string(dtype_name(d)));
}

}  // namespace

Shape quantized_linear(const Prim& x, const Prim& w_values, const Prim& w_scales, const Prim& w_zero_points,
                       const Prim& bias, const char* op) {
  const Shape out = quantized_linear(x->shape(), w_values->shape(), w_scales->shape(), shape_or_null(w_zero_points),
                                     shape_or_null(bias), op);
  const DType xd = x->dtype();
  if (xd != DType::F32 && xd != DType::F16 && xd != DType::BF16) refuse(op, "x must be f32, f16 or bf16", xd);
  if (w_values->dtype() != DType::I8) refuse(op, "the weight's values must be i8", w_values->dtype());
  if (w_scales->dtype() != DType::F32) refuse(op, "the weight's scales must be f32", w_scales->dtype());
  if (w_zero_points && w_zero_points->dtype() != DType::I32)
    refuse(op, "the weight's zero points must be i32", w_zero_points->dtype());
  if (bias && bias->dtype() != xd) refuse(op, "bias must have x's dtype", bias->dtype());
  return out;
}

Shape matmul_integer(const Prim& a, const Prim& b, const Prim& a_zero_points, const Prim& b_zero_points,
                     const char* op) {
  const Shape out =
      matmul_integer(a->shape(), b->shape(), shape_or_null(a_zero_points), shape_or_null(b_zero_points), op);
  for (const Prim* p : {&a, &b})
    if ((*p)->dtype() != DType::U8 && (*p)->dtype() != DType::I8) refuse(op, "a and b must be u8 or i8", (*p)->dtype());
  for (const Prim* p : {&a_zero_points, &b_zero_points})
    if (*p && (*p)->dtype() != DType::I32) refuse(op, "zero points must be i32", (*p)->dtype());
  return out;
}

}  // namespace burn::shape_rules
