// Default composite bodies of the resample module ops (interpolation and pixel (un)shuffle).
// interpolate applies a host table of (input position, weight) taps with select / select_add of
// `this`; pixel (un)shuffle is reshape + permute + reshape.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/detail/sampling_taps.hpp"

namespace burn {

using namespace module_detail;

namespace {

TapTable interp_table(const Shape& s, const Shape& out, const InterpolateOptions& o) {
  std::vector<DimTaps> dims;
  for (size_t i = 2; i < s.rank(); ++i) dims.push_back(interp_taps(s[i], out[i - 2], o));
  return combine(dims, true);
}

// Leading dims of (*, C, H, W) folded into one.
int64_t batch_of(const Shape& s) {
  int64_t b = 1;
  for (size_t i = 0; i + 3 < s.rank(); ++i) b *= s[i];
  return b;
}

}  // namespace

Prim Backend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) {
  const TapTable t = interp_table(x->shape(), output_size, options);
  return weighted_gather(*this, std::move(x), t, output_size.dims());
}

Prim Backend::interpolate_backward(Prim x, Prim grad_out, const Shape& output_size, const InterpolateOptions& options) {
  const Shape s = x->shape();
  x.reset();
  const TapTable t = interp_table(s, output_size, options);
  return weighted_scatter(*this, s, std::move(grad_out), t);
}

Prim Backend::pixel_shuffle(Prim x, int64_t factor) {
  const Shape s = x->shape();
  const size_t r = s.rank();
  const int64_t c = s[r - 3] / (factor * factor), h = s[r - 2], w = s[r - 1];
  Prim y = reshape(std::move(x), Shape{batch_of(s), c, factor, factor, h, w});
  y = permute(std::move(y), Axes{0, 1, 4, 2, 5, 3});
  std::vector<int64_t> out(s.begin(), s.end());
  out[r - 3] = c;
  out[r - 2] = h * factor;
  out[r - 1] = w * factor;
  return reshape(std::move(y), Shape(out));
}

Prim Backend::pixel_unshuffle(Prim x, int64_t factor) {
  const Shape s = x->shape();
  const size_t r = s.rank();
  const int64_t c = s[r - 3], h = s[r - 2] / factor, w = s[r - 1] / factor;
  Prim y = reshape(std::move(x), Shape{batch_of(s), c, h, factor, w, factor});
  y = permute(std::move(y), Axes{0, 1, 3, 5, 2, 4});
  std::vector<int64_t> out(s.begin(), s.end());
  out[r - 3] = c * factor * factor;
  out[r - 2] = h;
  out[r - 1] = w;
  return reshape(std::move(y), Shape(out));
}

}  // namespace burn
