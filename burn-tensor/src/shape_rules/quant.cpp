// Shape rule of the quant group: quantized_linear's operands against each other.
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

}  // namespace burn::shape_rules
