// Tensor API, resample group: interpolate (nearest, linear, cubic), pixel (un)shuffle and grid_sample_2d.
#include <algorithm>
#include <string>

#include "burn/tensor/module.hpp"
#include "module_checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

void check_interpolate(const H& x, const std::vector<int64_t>& output_size, const InterpolateOptions& o,
                       const char* op) {
  be(x, op);
  require_float(x, op);
  const size_t n = spatial_rank(x, op);
  require_nonempty_planes(x, op);
  checked_output_size(x, output_size, op);
  if (o.mode == InterpolateMode::Cubic && n == 3)
    throw Unsupported(op,
                      "cubic interpolation takes 1 or 2 spatial dims (as PyTorch), got input " + shape(x).to_string());
}

}  // namespace

H interpolate(H x, const std::vector<int64_t>& output_size, const InterpolateOptions& options) {
  check_interpolate(x, output_size, options, "interpolate");
  return with(x, be(x, "interpolate").interpolate(std::move(x.prim), Shape(output_size), options));
}

H interpolate_backward(H x, const H& grad_out, const std::vector<int64_t>& output_size,
                       const InterpolateOptions& options) {
  const char* op = "interpolate_backward";
  check_interpolate(x, output_size, options, op);
  check_grad_out(x, grad_out, nc_with(x, output_size), op);
  return with(x, be(x, op).interpolate_backward(std::move(x.prim), grad_out.prim, Shape(output_size), options));
}

H pixel_shuffle(H x, int64_t factor) {
  const char* op = "pixel_shuffle";
  be(x, op);
  if (factor <= 0) throw ValueError(op, "factor must be positive, got " + std::to_string(factor));
  if (rank(x) < 3) throw ShapeError(op, "expected (*, C, H, W), got shape " + shape(x).to_string());
  const int64_t c = shape(x)[rank(x) - 3];
  if (c % checked_mul(factor, factor, op) != 0)
    throw ShapeError(op, "channels " + std::to_string(c) + " of " + shape(x).to_string() +
                             " are not divisible by factor^2 = " + std::to_string(factor * factor));
  // The output's H * factor and W * factor must fit int64 (0 channels make any factor divide).
  checked_mul(shape(x)[rank(x) - 2], factor, op);
  checked_mul(shape(x)[rank(x) - 1], factor, op);
  return with(x, be(x, op).pixel_shuffle(std::move(x.prim), factor));
}

H pixel_unshuffle(H x, int64_t factor) {
  const char* op = "pixel_unshuffle";
  be(x, op);
  if (factor <= 0) throw ValueError(op, "factor must be positive, got " + std::to_string(factor));
  if (rank(x) < 3) throw ShapeError(op, "expected (*, C, H, W), got shape " + shape(x).to_string());
  const int64_t h = shape(x)[rank(x) - 2], w = shape(x)[rank(x) - 1];
  if (h % factor != 0 || w % factor != 0)
    throw ShapeError(
        op, "height and width of " + shape(x).to_string() + " are not divisible by factor " + std::to_string(factor));
  checked_mul(shape(x)[rank(x) - 3], checked_mul(factor, factor, op), op);  // the output's C * factor^2
  return with(x, be(x, op).pixel_unshuffle(std::move(x.prim), factor));
}

H grid_sample_2d(H x, const H& grid, const GridSampleOptions& options) {
  const char* op = "grid_sample_2d";
  be(x, op);
  same_device(x, grid, op);
  require_float(x, op);
  if (grid.prim->dtype() != x.prim->dtype())
    throw DTypeError(op, "grid is " + dt(grid.prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
  if (rank(x) != 4) throw ShapeError(op, "expected an input [N, C, H, W], got shape " + shape(x).to_string());
  if (rank(grid) != 4 || shape(grid)[3] != 2 || shape(grid)[0] != shape(x)[0])
    throw ShapeError(op, "expected a grid [N, H_out, W_out, 2] with N = " + std::to_string(shape(x)[0]) +
                             " for input " + shape(x).to_string() + ", got " + shape(grid).to_string());
  if (shape(x)[2] == 0 || shape(x)[3] == 0)
    throw ShapeError(op, "input " + shape(x).to_string() + " has an empty plane");
  if (options.mode != GridSampleMode::Bilinear && options.mode != GridSampleMode::Nearest)
    throw ValueError(op, "unknown mode " + std::to_string(static_cast<int>(options.mode)));
  if (options.padding != GridSamplePadding::Zeros && options.padding != GridSamplePadding::Border &&
      options.padding != GridSamplePadding::Reflection)
    throw ValueError(op, "unknown padding mode " + std::to_string(static_cast<int>(options.padding)));
  return with(x, be(x, op).grid_sample_2d(std::move(x.prim), grid.prim, options));
}

}  // namespace burn::api
