// Tensor API, resample group: interpolate (nearest, linear, cubic), pixel (un)shuffle and grid_sample_2d.
#include <algorithm>
#include <string>

#include "burn/tensor/module.hpp"
#include "module_checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

// A float x, and the interpolate rule's output shape, allocatable.
Shape interpolated(const H& x, const std::vector<int64_t>& output_size, const InterpolateOptions& o, const char* op) {
  be(x, op);
  require_float(x, op);
  const Shape out = shape_rules::interpolate(shape(x), output_size, o, op);
  check_output(out, x, op);
  return out;
}

}  // namespace

H interpolate(H x, const std::vector<int64_t>& output_size, const InterpolateOptions& options) {
  interpolated(x, output_size, options, "interpolate");
  return with(x, be(x, "interpolate").interpolate(std::move(x.prim), Shape(output_size), options));
}

H interpolate_backward(H x, const H& grad_out, const std::vector<int64_t>& output_size,
                       const InterpolateOptions& options) {
  const char* op = "interpolate_backward";
  check_grad_out(x, grad_out, interpolated(x, output_size, options, op), op);
  return with(x, be(x, op).interpolate_backward(std::move(x.prim), grad_out.prim, Shape(output_size), options));
}

H pixel_shuffle(H x, int64_t factor) {
  const char* op = "pixel_shuffle";
  be(x, op);
  shape_rules::pixel_shuffle(shape(x), factor);
  return with(x, be(x, op).pixel_shuffle(std::move(x.prim), factor));
}

H pixel_unshuffle(H x, int64_t factor) {
  const char* op = "pixel_unshuffle";
  be(x, op);
  shape_rules::pixel_unshuffle(shape(x), factor);
  return with(x, be(x, op).pixel_unshuffle(std::move(x.prim), factor));
}

H grid_sample_2d(H x, const H& grid, const GridSampleOptions& options) {
  const char* op = "grid_sample_2d";
  be(x, op);
  same_device(x, grid, op);
  require_float(x, op);
  if (grid.prim->dtype() != x.prim->dtype())
    throw DTypeError(op, "grid is " + dt(grid.prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
  shape_rules::grid_sample_2d(shape(x), shape(grid));
  if (options.mode != GridSampleMode::Bilinear && options.mode != GridSampleMode::Nearest)
    throw ValueError(op, "unknown mode " + std::to_string(static_cast<int>(options.mode)));
  if (options.padding != GridSamplePadding::Zeros && options.padding != GridSamplePadding::Border &&
      options.padding != GridSamplePadding::Reflection)
    throw ValueError(op, "unknown padding mode " + std::to_string(static_cast<int>(options.padding)));
  return with(x, be(x, op).grid_sample_2d(std::move(x.prim), grid.prim, options));
}

}  // namespace burn::api
