// Default composite bodies of the resample module ops (interpolation, pixel (un)shuffle, grid_sample).
// interpolate applies a host table of (input position, weight) taps with select / select_add of
// `this`; pixel (un)shuffle is reshape + permute + reshape; grid_sample_2d computes its taps from the
// grid with tensor ops and reads them with gather, so it is differentiable w.r.t. input and grid.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

using namespace module_detail;

namespace {

// The taps of an interpolation from s to `out`, the interpolate rule's shape.
TapTable interp_table(const Shape& s, const Shape& out, const InterpolateOptions& o) {
  std::vector<DimTaps> dims;
  for (size_t i = 2; i < s.rank(); ++i) dims.push_back(interp_taps(s[i], out[i], o));
  return combine(dims, true);
}

// Leading dims of (*, C, H, W) folded into one.
int64_t batch_of(const Shape& s) {
  int64_t b = 1;
  for (size_t i = 0; i + 3 < s.rank(); ++i) b *= s[i];
  return b;
}

// PyTorch's source coordinate (grid_sampler_compute_source_index) of grid values g along a dim of
// `size` pixels: unnormalised, then clipped or reflected by the padding mode.
Prim grid_coord(Backend& b, Prim g, int64_t size, const GridSampleOptions& o) {
  const double s = static_cast<double>(size);
  Prim c = o.align_corners ? b.mul_scalar(b.div_scalar(b.add_scalar(std::move(g), 1.0), 2.0), s - 1)
                           : b.div_scalar(b.sub_scalar(b.mul_scalar(b.add_scalar(std::move(g), 1.0), s), 1.0), 2.0);
  if (o.padding == GridSamplePadding::Reflection) {
    // Reflect about [lo/2, hi/2] (pixel centres with align_corners, else pixel edges).
    const double lo = o.align_corners ? 0 : -1, hi = o.align_corners ? 2 * (s - 1) : 2 * s - 1;
    if (lo == hi) {
      c = b.full(c->shape(), 0.0, c->dtype());
    } else {
      const double min = lo / 2, span = (hi - lo) / 2;
      Prim t = b.abs(b.sub_scalar(std::move(c), min));
      Prim flips = b.floor(b.div_scalar(t, span));
      Prim extra = b.remainder_scalar(std::move(t), span);
      Prim odd = b.equal_elem(b.remainder_scalar(std::move(flips), 2.0), 1.0);
      Prim back = b.add_scalar(b.neg(extra), span + min);
      c = b.mask_where(b.add_scalar(std::move(extra), min), std::move(odd), std::move(back));
    }
  }
  if (o.padding != GridSamplePadding::Zeros) c = b.clamp(std::move(c), 0.0, s - 1);
  // NaN reads nothing (torch maps non-finite coordinates out of range). Beyond [-2, size + 1] every tap
  // is outside the plane in any mode, so clamping there changes nothing and keeps the int casts defined.
  Prim nan = b.is_nan(c);
  return b.clamp(b.mask_fill(std::move(c), std::move(nan), -2.0), -2.0, s + 1);
}

// The input plane [N, C, H * W] at integer positions (cx, cy) [N, 1, L], times w [N, 1, L] when given,
// and exactly 0 where a position is outside the plane: [N, C, L].
Prim grid_tap(Backend& b, const Prim& plane, const Prim& cx, const Prim& cy, const Prim& w, int64_t h, int64_t wd) {
  Prim outside = b.bool_or(b.bool_or(b.lower_elem(cx, 0.0), b.greater_elem(cx, wd - 1.0)),
                           b.bool_or(b.lower_elem(cy, 0.0), b.greater_elem(cy, h - 1.0)));
  // Integer index arithmetic: a float flat index would round beyond 2^24 pixels.
  Prim ix = b.cast(b.clamp(cx, 0.0, wd - 1.0), DType::I64), iy = b.cast(b.clamp(cy, 0.0, h - 1.0), DType::I64);
  Prim idx = b.add(b.mul_scalar(std::move(iy), wd), std::move(ix));
  const Shape& ps = plane->shape();
  Prim vals = b.gather(plane, 2, b.expand(std::move(idx), Shape{ps[0], ps[1], cx->shape()[2]}));
  if (w) vals = b.mul(std::move(vals), w);
  return b.mask_fill(std::move(vals), std::move(outside), 0.0);
}

}  // namespace

Prim Backend::grid_sample_2d(Prim x, Prim grid, const GridSampleOptions& options) {
  const Shape s = x->shape(), gs = grid->shape(), os = shape_rules::grid_sample_2d(s, gs);
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3], l = gs[1] * gs[2];
  Prim plane = reshape(std::move(x), Shape{n, c, h * w});
  Prim g = reshape(std::move(grid), Shape{n, l, 2});
  auto component = [&](int64_t i) {
    return reshape(slice(g, Slices{{0, n, 1}, {0, l, 1}, {i, i + 1, 1}}), Shape{n, 1, l});
  };
  Prim ix = grid_coord(*this, component(0), w, options), iy = grid_coord(*this, component(1), h, options);
  g.reset();
  Prim out;
  if (options.mode == GridSampleMode::Nearest) {
    // nearbyint: halves round to even, as torch.
    out = grid_tap(*this, plane, round(std::move(ix)), round(std::move(iy)), nullptr, h, w);
  } else {
    Prim x0 = floor(ix), y0 = floor(iy);
    Prim x1 = add_scalar(x0, 1.0), y1 = add_scalar(y0, 1.0);
    Prim wx1 = sub(ix, x0), wx0 = sub(x1, ix), wy1 = sub(iy, y0), wy0 = sub(y1, iy);
    out = grid_tap(*this, plane, x0, y0, mul(wx0, wy0), h, w);
    out = add(std::move(out), grid_tap(*this, plane, x1, y0, mul(wx1, wy0), h, w));
    out = add(std::move(out), grid_tap(*this, plane, x0, y1, mul(wx0, wy1), h, w));
    out = add(std::move(out), grid_tap(*this, plane, x1, y1, mul(wx1, wy1), h, w));
  }
  return reshape(std::move(out), os);
}

Prim Backend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) {
  const Shape out = shape_rules::interpolate(x->shape(), output_size.dims(), options);
  const TapTable t = interp_table(x->shape(), out, options);
  return weighted_gather(*this, std::move(x), t, out);
}

Prim Backend::interpolate_backward(Prim x, Prim grad_out, const Shape& output_size, const InterpolateOptions& options) {
  const Shape s = x->shape();
  x.reset();
  const Shape out = shape_rules::interpolate(s, output_size.dims(), options, "interpolate_backward");
  const TapTable t = interp_table(s, out, options);
  return weighted_scatter(*this, s, std::move(grad_out), t);
}

Prim Backend::pixel_shuffle(Prim x, int64_t factor) {
  const Shape s = x->shape(), out = shape_rules::pixel_shuffle(s, factor);
  const size_t r = s.rank();
  const int64_t c = out[r - 3], h = s[r - 2], w = s[r - 1];
  Prim y = reshape(std::move(x), Shape{batch_of(s), c, factor, factor, h, w});
  y = permute(std::move(y), Axes{0, 1, 4, 2, 5, 3});
  return reshape(std::move(y), out);
}

Prim Backend::pixel_unshuffle(Prim x, int64_t factor) {
  const Shape s = x->shape(), out = shape_rules::pixel_unshuffle(s, factor);
  const size_t r = s.rank();
  const int64_t c = s[r - 3], h = out[r - 2], w = out[r - 1];
  Prim y = reshape(std::move(x), Shape{batch_of(s), c, h, factor, w, factor});
  y = permute(std::move(y), Axes{0, 1, 3, 5, 2, 4});
  return reshape(std::move(y), out);
}

}  // namespace burn
