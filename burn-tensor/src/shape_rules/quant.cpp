// Shape rules of the quant group: quantized_linear's and matmul_integer's operands against each other.
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

}  // namespace burn::shape_rules
