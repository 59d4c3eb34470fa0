// Shape rules of the norm group: every norm keeps x's shape; these give its parameters' shapes.
#include "check.hpp"

namespace burn::shape_rules {
using namespace detail;

namespace {

std::optional<Shape> layer_norm_rule(const Shape& x, size_t dims, const Check& c) {
  if (dims == 0) return c.fail<ValueError>([] { return std::string("normalized_dims must be >= 1"); });
  if (dims > x.rank())
    return c.fail<ShapeError>([&] {
      return "normalized_dims " + str(static_cast<int64_t>(dims)) + " exceeds the rank of input " + x.to_string();
    });
  return Shape(std::vector<int64_t>(x.end() - static_cast<std::ptrdiff_t>(dims), x.end()));
}

// [N, C, ...] with rank >= 2: [C].
Shape channels(const Shape& x, const char* op) {
  if (x.rank() < 2) throw ShapeError(op, "expected an input of rank >= 2 ([N, C, ...]), got " + x.to_string());
  return Shape{x[1]};
}

}  // namespace

Shape layer_norm_params(const Shape& x, size_t normalized_dims, const char* op) {
  return raised(layer_norm_rule(x, normalized_dims, {op, true}));
}

std::optional<Shape> try_layer_norm_params(const Shape& x, size_t normalized_dims) {
  return layer_norm_rule(x, normalized_dims, {"layer_norm", false});
}

Shape group_norm_params(const Shape& x, int64_t num_groups, const char* op) {
  Shape params = channels(x, op);
  const int64_t c = params[0];
  if (num_groups <= 0) throw ValueError(op, "num_groups must be positive, got " + str(num_groups));
  if (c % num_groups != 0)
    throw ValueError(
        op, "num_groups " + str(num_groups) + " does not divide the " + str(c) + " channels of input " + x.to_string());
  // Kernels count N * num_groups rows: any num_groups divides 0 channels, so that can overflow.
  checked_mul(x[0], num_groups, op);
  return params;
}

Shape batch_norm_params(const Shape& x, const char* op) { return channels(x, op); }

}  // namespace burn::shape_rules
