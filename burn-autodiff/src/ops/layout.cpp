// Backward of the layout ops: each gradient is the inverse view of g (reshape back, inverse
// permutation, flip again), a sum over what was broadcast or repeated, or g cut and placed back into
// the region a slice, slice_assign or cat covered.
#include "burn/tensor/shape_rules.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

namespace {

// Backend slices (already normalised: positive steps, clamped bounds) as API slices.
std::vector<Slice> api_slices(const Slices& ranges) {
  std::vector<Slice> out;
  out.reserve(ranges.size());
  for (const SliceRange& r : ranges) out.push_back(Slice::range(r.start, r.end, r.step));
  return out;
}

}  // namespace

Prim AutodiffBackend::reshape(Prim x, const Shape& shape) {
  return record1(
      {OpId::reshape}, {std::move(x)}, [shape](Backend& b, Prims p) { return b.reshape(std::move(p[0]), shape); },
      [](Step& s, const H& g) -> Hs { return {T(g).reshape(s.input_shape(0))}; });
}

Prim AutodiffBackend::permute(Prim x, const Axes& axes) {
  const Axes inverse = shape_rules::inverse_permutation(axes);
  return record1(
      {OpId::permute}, {std::move(x)}, [axes](Backend& b, Prims p) { return b.permute(std::move(p[0]), axes); },
      [inverse](Step&, const H& g) -> Hs { return {api::permute(g, inverse)}; });
}

Prim AutodiffBackend::expand(Prim x, const Shape& shape) {
  return record1(
      {OpId::expand}, {std::move(x)}, [shape](Backend& b, Prims p) { return b.expand(std::move(p[0]), shape); },
      [](Step& s, const H& g) -> Hs { return {sum_to(g, s.input_shape(0))}; });
}

Prim AutodiffBackend::flip(Prim x, const Axes& axes) {
  return record1(
      {OpId::flip}, {std::move(x)}, [axes](Backend& b, Prims p) { return b.flip(std::move(p[0]), axes); },
      [axes](Step&, const H& g) -> Hs { return {api::flip(g, axes)}; });
}

// The gradient is g placed into the sliced region of zeros (steps leave gaps of zeros).
Prim AutodiffBackend::slice(Prim x, const Slices& ranges) {
  return record1(
      {OpId::slice}, {std::move(x)}, [ranges](Backend& b, Prims p) { return b.slice(std::move(p[0]), ranges); },
      [ranges](Step& s, const H& g) -> Hs {
        T z = zeros(s, s.input_shape(0), s.input_dtype(0));
        return {api::slice_assign(z.h, api_slices(ranges), g)};
      });
}

// x keeps the gradient outside the region; value gets the region of g.
Prim AutodiffBackend::slice_assign(Prim x, const Slices& ranges, Prim value) {
  const Shape value_shape = value ? value->shape() : Shape{};
  return record1(
      {OpId::slice_assign}, {std::move(x), std::move(value)},
      [ranges](Backend& b, Prims p) { return b.slice_assign(std::move(p[0]), ranges, std::move(p[1])); },
      [ranges, value_shape](Step& s, const H& g) -> Hs {
        Hs out(2);
        const std::vector<Slice> region = api_slices(ranges);
        if (s.needs(0)) out[0] = api::slice_fill(g, region, 0);
        if (s.needs(1)) out[1] = sum_to(api::slice(g, region), value_shape);
        return out;
      });
}

Prim AutodiffBackend::cat(const Prims& xs, size_t dim) {
  std::vector<int64_t> lengths;
  lengths.reserve(xs.size());
  for (const Prim& x : xs) lengths.push_back(x ? x->shape()[dim] : 0);
  return record1(
      {OpId::cat}, xs, [dim](Backend& b, Prims p) { return b.cat(p, dim); },
      [dim, lengths](Step& s, const H& g) -> Hs {
        Hs out(lengths.size());
        std::vector<Slice> part(dim + 1);
        int64_t at = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
          part[dim] = Slice::range(at, at + lengths[i]);
          if (s.needs(i)) out[i] = api::slice(g, part);
          at += lengths[i];
        }
        return out;
      });
}

// Tiling: the output along dim is [times, n] laid flat, so the gradient sums over the times.
Prim AutodiffBackend::repeat_dim(Prim x, size_t dim, int64_t times) {
  return record1(
      {OpId::repeat_dim}, {std::move(x)},
      [dim, times](Backend& b, Prims p) { return b.repeat_dim(std::move(p[0]), dim, times); },
      [dim, times](Step& s, const H& g) -> Hs {
        const Shape& shape = s.input_shape(0);
        std::vector<int64_t> tiles = shape.dims();
        tiles.insert(tiles.begin() + sdim(dim), times);
        return {T(g).reshape(Shape(tiles)).sum_dim(sdim(dim)).reshape(shape)};
      });
}

}  // namespace burn::autodiff
