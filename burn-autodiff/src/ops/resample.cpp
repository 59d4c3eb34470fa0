// Backward of the resample ops: interpolate calls the backend's backward kernel on the step's device;
// pixel_shuffle and pixel_unshuffle are each other's inverse.
#include "burn/tensor/module.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

Prim AutodiffBackend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) {
  return record1(
      {OpId::interpolate}, {std::move(x)},
      [output_size, options](Backend& b, Prims p) { return b.interpolate(std::move(p[0]), output_size, options); },
      [output_size, options](Step& s, const H& g) -> Hs {
        return {on_step(s, s.device()->interpolate_backward(shape_stand_in(s, 0).prim, g.prim, output_size, options))};
      });
}

Prim AutodiffBackend::pixel_shuffle(Prim x, int64_t factor) {
  return record1(
      {OpId::pixel_shuffle}, {std::move(x)},
      [factor](Backend& b, Prims p) { return b.pixel_shuffle(std::move(p[0]), factor); },
      [factor](Step&, const H& g) -> Hs { return {api::pixel_unshuffle(g, factor)}; });
}

Prim AutodiffBackend::pixel_unshuffle(Prim x, int64_t factor) {
  return record1(
      {OpId::pixel_unshuffle}, {std::move(x)},
      [factor](Backend& b, Prims p) { return b.pixel_unshuffle(std::move(p[0]), factor); },
      [factor](Step&, const H& g) -> Hs { return {api::pixel_shuffle(g, factor)}; });
}

}  // namespace burn::autodiff
