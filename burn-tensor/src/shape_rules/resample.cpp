// Shape rules of the resample group: interpolate, pixel_shuffle / pixel_unshuffle and grid_sample_2d.
#include "check.hpp"

namespace burn::shape_rules {
using namespace detail;

Shape interpolate(const Shape& x, const std::vector<int64_t>& output_size, const InterpolateOptions& options,
                  const char* op) {
  Shape shape = resized(x, output_size, op);
  if (options.mode == InterpolateMode::Cubic && shape.rank() == 5)
    throw Unsupported(op, "cubic interpolation takes 1 or 2 spatial dims (as PyTorch), got input " + x.to_string());
  return shape;
}

Shape pixel_shuffle(const Shape& x, int64_t factor, const char* op) {
  if (factor <= 0) throw ValueError(op, "factor must be positive, got " + str(factor));
  const size_t r = x.rank();
  if (r < 3) throw ShapeError(op, "expected (*, C, H, W), got shape " + x.to_string());
  const int64_t c = x[r - 3], square = checked_mul(factor, factor, op);
  if (c % square != 0)
    throw ShapeError(op,
                     "channels " + str(c) + " of " + x.to_string() + " are not divisible by factor^2 = " + str(square));
  Shape out = x;
  out[r - 3] = c / square;
  // H * factor and W * factor must fit int64 (0 channels make any factor divide).
  out[r - 2] = checked_mul(x[r - 2], factor, op);
  out[r - 1] = checked_mul(x[r - 1], factor, op);
  return out;
}

Shape pixel_unshuffle(const Shape& x, int64_t factor, const char* op) {
  if (factor <= 0) throw ValueError(op, "factor must be positive, got " + str(factor));
  const size_t r = x.rank();
  if (r < 3) throw ShapeError(op, "expected (*, C, H, W), got shape " + x.to_string());
  if (x[r - 2] % factor != 0 || x[r - 1] % factor != 0)
    throw ShapeError(op, "height and width of " + x.to_string() + " are not divisible by factor " + str(factor));
  Shape out = x;
  out[r - 3] = checked_mul(x[r - 3], checked_mul(factor, factor, op), op);
  out[r - 2] = x[r - 2] / factor;
  out[r - 1] = x[r - 1] / factor;
  return out;
}

Shape grid_sample_2d(const Shape& x, const Shape& grid, const char* op) {
  if (x.rank() != 4) throw ShapeError(op, "expected an input [N, C, H, W], got shape " + x.to_string());
  if (grid.rank() != 4 || grid[3] != 2 || grid[0] != x[0])
    throw ShapeError(op, "expected a grid [N, H_out, W_out, 2] with N = " + str(x[0]) + " for input " + x.to_string() +
                             ", got " + grid.to_string());
  if (x[2] == 0 || x[3] == 0) throw ShapeError(op, "input " + x.to_string() + " has an empty plane");
  return Shape{x[0], x[1], grid[1], grid[2]};
}

}  // namespace burn::shape_rules
