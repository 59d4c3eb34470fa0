// Default composite bodies of the conv module ops (convolution, transposed and deformable convolution,
// im2col/col2im, and their backward), composed only from other ops of `this`: im2col from strided
// slices, grouped matmul, col2im from slice/add/slice_assign, bilinear sampling from gather.
// The shapes and options go through the conv rules (shape_rules.hpp) first: they check the
// arguments, normalise the options (one value per spatial dim) and give the output's shape.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn {
namespace {

// Geometry of a convolution seen from its input side, per spatial dim. `pe` (padding after) may be
// larger or smaller than the input needs: only positions (out-1)*s + (k-1)*d + 1 are ever read.
struct Geo {
  std::vector<int64_t> k, s, p, pe, d, out;
  size_t rank() const { return k.size(); }
  // Checked: an empty weight bounds nothing, so its kernel dims can multiply past int64.
  int64_t kernel_size() const {
    int64_t n = 1;
    for (int64_t v : k) n = checked_mul(n, v, "conv");
    return n;
  }
  int64_t out_size() const {
    int64_t n = 1;
    for (int64_t v : out) n = checked_mul(n, v, "conv");
    return n;
  }
};

std::vector<int64_t> spatial(const Shape& s) { return {s.dims().begin() + 2, s.dims().end()}; }

Shape cat_dims(std::vector<int64_t> head, const std::vector<int64_t>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return Shape(std::move(head));
}

Slices all_of(const Shape& s) {
  Slices r(s.rank());
  for (size_t i = 0; i < s.rank(); ++i) r[i] = SliceRange{0, s[i], 1};
  return r;
}

Prim zeros(Backend& b, const Shape& s, DType dt) { return b.full(s, Scalar(0.0), dt); }

Prim rsub_one(Backend& b, const Prim& x) { return b.add_scalar(b.neg(x), Scalar(1.0)); }

// [N, C, sp...] zero-padded to [N, C, sp + p + max(pe, 0)] (the input sits at offset p).
Prim pad_input(Backend& b, Prim x, const Geo& g) {
  bool any = false;
  for (size_t i = 0; i < g.rank(); ++i) any = any || g.p[i] > 0 || g.pe[i] > 0;
  if (!any) return x;
  const Shape xs = x->shape();
  Shape ps = xs;
  Slices at = all_of(xs);
  for (size_t i = 0; i < g.rank(); ++i) {
    ps[i + 2] = xs[i + 2] + g.p[i] + std::max<int64_t>(g.pe[i], 0);
    at[i + 2] = SliceRange{g.p[i], g.p[i] + xs[i + 2], 1};
  }
  Prim buf = zeros(b, ps, x->dtype());  // before x is moved: argument order is unspecified
  return b.slice_assign(std::move(buf), at, std::move(x));
}

// The slice of a padded input read by kernel position `kidx` (a multi-index over g.k).
Slices tap_ranges(const Shape& padded, const Geo& g, const std::vector<int64_t>& kidx) {
  Slices r = all_of(padded);
  for (size_t i = 0; i < g.rank(); ++i) {
    const int64_t start = kidx[i] * g.d[i];
    r[i + 2] = SliceRange{start, start + (g.out[i] - 1) * g.s[i] + 1, g.s[i]};
  }
  return r;
}

// Calls fn(flat, multi-index) for every kernel position in row-major order.
template <typename F>
void for_each_tap(const Geo& g, F&& fn) {
  std::vector<int64_t> idx(g.rank(), 0);
  const int64_t n = g.kernel_size();
  for (int64_t t = 0; t < n; ++t) {
    fn(t, idx);
    for (size_t i = g.rank(); i-- > 0;) {
      if (++idx[i] < g.k[i]) break;
      idx[i] = 0;
    }
  }
}

// im2col: [N, C, sp...] -> [N, C, K, L] (K kernel positions, L output positions).
Prim im2col(Backend& b, Prim x, const Geo& g) {
  const int64_t n = x->shape()[0], c = x->shape()[1], l = g.out_size();
  // No columns: return at once rather than walk the taps (2^40 of them for a huge empty kernel).
  if (n == 0 || c == 0 || l == 0 || g.kernel_size() == 0) return zeros(b, Shape{n, c, g.kernel_size(), l}, x->dtype());
  Prim xp = pad_input(b, std::move(x), g);
  const Shape padded = xp->shape();
  Prims taps;
  taps.reserve(static_cast<size_t>(g.kernel_size()));
  for_each_tap(g, [&](int64_t, const std::vector<int64_t>& kidx) {
    taps.push_back(b.reshape(b.slice(xp, tap_ranges(padded, g, kidx)), Shape{n, c, 1, l}));
  });
  return taps.size() == 1 ? taps[0] : b.cat(taps, 2);
}

// col2im: [N, C, K, L] -> [N, C, in...], summing the overlapping taps (crops the padding).
Prim col2im(Backend& b, Prim cols, const std::vector<int64_t>& in, const Geo& g) {
  const int64_t n = cols->shape()[0], c = cols->shape()[1];
  std::vector<int64_t> pdims{n, c};
  for (size_t i = 0; i < g.rank(); ++i) pdims.push_back(in[i] + g.p[i] + std::max<int64_t>(g.pe[i], 0));
  const Shape padded(pdims);
  // Nothing to sum: the taps (possibly 2^40 of a huge empty kernel) all add zeros.
  if (cols->shape().num_elements() == 0) return zeros(b, cat_dims({n, c}, in), cols->dtype());
  Prim buf = zeros(b, padded, cols->dtype());
  const Shape piece_shape = cat_dims({n, c}, g.out);
  Slices pick = all_of(cols->shape());
  for_each_tap(g, [&](int64_t t, const std::vector<int64_t>& kidx) {
    pick[2] = SliceRange{t, t + 1, 1};
    Prim piece = b.reshape(b.slice(cols, pick), piece_shape);
    const Slices at = tap_ranges(padded, g, kidx);
    buf = b.slice_assign(buf, at, b.add(b.slice(buf, at), std::move(piece)));
  });
  Slices crop = all_of(padded);
  bool cropped = false;
  for (size_t i = 0; i < g.rank(); ++i) {
    crop[i + 2] = SliceRange{g.p[i], g.p[i] + in[i], 1};
    cropped = cropped || g.p[i] > 0 || padded[i + 2] != in[i];
  }
  return cropped ? b.slice(std::move(buf), crop) : buf;
}

// Grouped product of a [N, C, K, L] column tensor with a [Cout, C / groups, k...] weight -> [N, Cout, L].
Prim cols_times_weight(Backend& b, Prim cols, const Prim& w, int64_t groups) {
  const int64_t n = cols->shape()[0], c = cols->shape()[1], k = cols->shape()[2], l = cols->shape()[3];
  const int64_t cout = w->shape()[0], cg = c / groups;
  Prim cg4 = b.reshape(std::move(cols), Shape{n, groups, cg * k, l});
  Prim w4 = b.expand(b.reshape(w, Shape{1, groups, cout / groups, cg * k}), Shape{n, groups, cout / groups, cg * k});
  return b.reshape(b.matmul(std::move(w4), std::move(cg4)), Shape{n, cout, l});
}

Prim add_bias(Backend& b, Prim y, Prim bias) {
  if (!bias) return y;
  std::vector<int64_t> dims(y->shape().rank(), 1);
  dims[1] = bias->shape()[0];
  return b.add(std::move(y), b.reshape(std::move(bias), Shape(dims)));
}

// Sum of [N, C, sp...] over everything but the channels -> [C].
Prim channel_sums(Backend& b, const Prim& g) {
  const int64_t n = g->shape()[0], c = g->shape()[1];
  const int64_t l = g->shape().num_elements() / std::max<int64_t>(n * c, 1);
  Prim r = b.sum_dim(b.sum_dim(b.reshape(g, Shape{n, c, l}), 2), 0);
  return b.reshape(std::move(r), Shape{c});
}

// conv forward without bias: x [N, C, in...], w [Cout, C / groups, k...] -> [N, Cout, out...].
Prim conv_forward(Backend& b, Prim x, const Prim& w, const Geo& g, int64_t groups) {
  const int64_t n = x->shape()[0];
  Prim y = cols_times_weight(b, im2col(b, std::move(x), g), w, groups);
  return b.reshape(std::move(y), cat_dims({n, w->shape()[0]}, g.out));
}

// Gradient of conv_forward with respect to x: gy [N, Cout, out...] -> [N, C, in...].
Prim conv_grad_input(Backend& b, Prim gy, const Prim& w, int64_t c, const std::vector<int64_t>& in, const Geo& g,
                     int64_t groups) {
  const int64_t n = gy->shape()[0], cout = w->shape()[0], cg = c / groups, k = g.kernel_size(), l = g.out_size();
  Prim wt = b.permute(b.reshape(w, Shape{groups, cout / groups, cg * k}), {0, 2, 1});
  wt = b.expand(b.reshape(std::move(wt), Shape{1, groups, cg * k, cout / groups}),
                Shape{n, groups, cg * k, cout / groups});
  Prim gcols = b.matmul(std::move(wt), b.reshape(std::move(gy), Shape{n, groups, cout / groups, l}));
  return col2im(b, b.reshape(std::move(gcols), Shape{n, c, k, l}), in, g);
}

// Gradient of conv_forward with respect to w: the batch folds into the contraction,
// [G, Cout/G, N*L] x [G, N*L, Cg*K] -> [G, Cout/G, Cg*K].
Prim conv_grad_weight(Backend& b, Prim x, Prim gy, const Shape& w_shape, const Geo& g, int64_t groups) {
  const int64_t n = x->shape()[0], c = x->shape()[1], cout = w_shape[0], cg = c / groups;
  const int64_t k = g.kernel_size(), l = g.out_size();
  Prim cols = b.reshape(im2col(b, std::move(x), g), Shape{n, groups, cg * k, l});
  cols = b.reshape(b.permute(std::move(cols), {1, 0, 3, 2}), Shape{groups, n * l, cg * k});
  Prim go = b.reshape(std::move(gy), Shape{n, groups, cout / groups, l});
  go = b.reshape(b.permute(std::move(go), {1, 2, 0, 3}), Shape{groups, cout / groups, n * l});
  return b.reshape(b.matmul(std::move(go), std::move(cols)), w_shape);
}

// The geometry of conv(x, w) whose output shape `out` the conv rule gave (and normalised `o`).
Geo conv_geo(const Prim& w, const ConvOptions& o, const Shape& out) {
  return Geo{spatial(w->shape()), o.stride, o.padding, o.padding_end, o.dilation, spatial(out)};
}

// A transposed conv is the input-gradient of a conv whose input is the transposed conv's output
// (its spatial size from the conv_transpose rule) and whose output is x; padding after is p - padding_out.
Geo transpose_geo(const Prim& x, const Prim& w, const ConvTransposeOptions& o) {
  Geo g{spatial(w->shape()), o.stride, o.padding, {}, o.dilation, spatial(x->shape())};
  for (size_t i = 0; i < g.rank(); ++i) g.pe.push_back(o.padding[i] - o.padding_out[i]);
  return g;
}

// The geometry of im2col over `in` [H, W]: the unfold rule's blocks per dim (it normalises `o`).
Geo unfold_geo(const std::vector<int64_t>& in, UnfoldOptions& o) {
  std::vector<int64_t> blocks = shape_rules::unfold_blocks(in, o);
  return Geo{o.kernel, o.stride, o.padding, o.padding, o.dilation, std::move(blocks)};
}

const Shape* shape_of(const Prim& p) { return p ? &p->shape() : nullptr; }

}  // namespace

Prim Backend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) {
  ConvOptions o = options;
  const Geo g = conv_geo(weight, o, shape_rules::conv(x->shape(), weight->shape(), shape_of(bias), o));
  return add_bias(*this, conv_forward(*this, std::move(x), weight, g, o.groups), std::move(bias));
}

Prims Backend::conv_backward(Prim x, Prim weight, Prim grad_out, const ConvOptions& options, const ConvGradMask& mask) {
  ConvOptions o = options;
  const Geo g = conv_geo(weight, o, shape_rules::conv(x->shape(), weight->shape(), nullptr, o, "conv_backward"));
  const int64_t c = x->shape()[1];
  const std::vector<int64_t> in = spatial(x->shape());
  Prim gx = mask.x ? conv_grad_input(*this, grad_out, weight, c, in, g, o.groups) : Prim{};
  Prim gw = mask.weight ? conv_grad_weight(*this, std::move(x), grad_out, weight->shape(), g, o.groups) : Prim{};
  Prim gb = mask.bias ? channel_sums(*this, grad_out) : Prim{};
  return {std::move(gx), std::move(gw), std::move(gb)};
}

Prim Backend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) {
  ConvTransposeOptions o = options;
  const Shape out = shape_rules::conv_transpose(x->shape(), weight->shape(), shape_of(bias), o);
  const Geo g = transpose_geo(x, weight, o);
  Prim y = conv_grad_input(*this, std::move(x), weight, out[1], spatial(out), g, o.groups);
  return add_bias(*this, std::move(y), std::move(bias));
}

Prims Backend::conv_transpose_backward(Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options,
                                       const ConvGradMask& mask) {
  ConvTransposeOptions o = options;
  shape_rules::conv_transpose(x->shape(), weight->shape(), nullptr, o, "conv_transpose_backward");
  const Geo g = transpose_geo(x, weight, o);
  Prim gx = mask.x ? conv_forward(*this, grad_out, weight, g, o.groups) : Prim{};
  Prim gw = mask.weight ? conv_grad_weight(*this, grad_out, std::move(x), weight->shape(), g, o.groups) : Prim{};
  Prim gb = mask.bias ? channel_sums(*this, grad_out) : Prim{};
  return {std::move(gx), std::move(gw), std::move(gb)};
}

// torchvision's deform_conv2d: each tap reads x at (ho*s - p + i*d + dy, wo*s - p + j*d + dx) by
// bilinear interpolation with zeros outside; the four corners are gathers from the flat planes.
Prim Backend::deform_conv2d(Prim x, Prim offset, Prim weight, Prim mask, Prim bias, const DeformConvOptions& opts) {
  DeformConvOptions options = opts;
  const Shape xs = x->shape(), ws = weight->shape();
  const Shape out = shape_rules::deform_conv2d(xs, offset->shape(), ws, shape_of(mask), shape_of(bias), options);
  const int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3], kh = ws[2], kw = ws[3], k = kh * kw;
  const int64_t og = options.offset_groups, cpg = c / og;
  const int64_t ho = out[2], wo = out[3], l = ho * wo;
  const DType dt = x->dtype();

  // Base sampling positions [1, 1, K, Ho, Wo], made on the host.
  std::vector<double> by(static_cast<size_t>(k * l)), bx(by.size());
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      for (int64_t oy = 0; oy < ho; ++oy)
        for (int64_t ox = 0; ox < wo; ++ox) {
          const size_t at = static_cast<size_t>(((i * kw + j) * ho + oy) * wo + ox);
          by[at] = static_cast<double>(oy * options.stride[0] - options.padding[0] + i * options.dilation[0]);
          bx[at] = static_cast<double>(ox * options.stride[1] - options.padding[1] + j * options.dilation[1]);
        }
  const Shape base_shape{1, 1, k, ho, wo};
  Prim base_y = cast(from_data(TensorData::from_vector(by, base_shape)), dt);
  Prim base_x = cast(from_data(TensorData::from_vector(bx, base_shape)), dt);

  Prim off = reshape(std::move(offset), Shape{n, og, k, 2, ho, wo});
  Slices sel = all_of(off->shape());
  sel[3] = SliceRange{0, 1, 1};
  Prim py = add(reshape(slice(off, sel), Shape{n, og, k, ho, wo}), base_y);
  sel[3] = SliceRange{1, 2, 1};
  Prim px = add(reshape(slice(off, sel), Shape{n, og, k, ho, wo}), base_x);
  Prim y0 = floor(py), x0 = floor(px);
  Prim ly = sub(py, y0), lx = sub(px, x0);
  Prim hy = rsub_one(*this, ly), hx = rsub_one(*this, lx);

  Prim planes = reshape(std::move(x), Shape{n, og, cpg, h * w});
  const Shape idx_shape{n, og, 1, k * l}, gathered{n, og, cpg, k * l};
  Prim acc;
  for (int cy = 0; cy < 2; ++cy) {
    for (int cx = 0; cx < 2; ++cx) {
      Prim yc = cy ? add_scalar(y0, Scalar(1.0)) : y0;
      Prim xc = cx ? add_scalar(x0, Scalar(1.0)) : x0;
      Prim inside =
          bool_and(bool_and(greater_equal_elem(yc, Scalar(0.0)), lower_equal_elem(yc, Scalar(double(h - 1)))),
                   bool_and(greater_equal_elem(xc, Scalar(0.0)), lower_equal_elem(xc, Scalar(double(w - 1)))));
      Prim wgt = mul(cy ? ly : hy, cx ? lx : hx);
      wgt = mask_fill(std::move(wgt), bool_not(std::move(inside)), Scalar(0.0));
      Prim flat = add(mul_scalar(clamp(yc, Scalar(0.0), Scalar(double(h - 1))), Scalar(double(w))),
                      clamp(xc, Scalar(0.0), Scalar(double(w - 1))));
      Prim idx = expand(reshape(cast(std::move(flat), DType::I64), idx_shape), gathered);
      Prim v = mul(gather(planes, 3, std::move(idx)), reshape(std::move(wgt), idx_shape));
      acc = acc ? add(std::move(acc), std::move(v)) : std::move(v);
    }
  }
  if (mask) acc = mul(std::move(acc), reshape(std::move(mask), idx_shape));
  Prim cols = reshape(std::move(acc), Shape{n, c, k, l});
  Prim y = cols_times_weight(*this, std::move(cols), weight, options.weight_groups);
  return add_bias(*this, reshape(std::move(y), out), std::move(bias));
}

Prim Backend::unfold(Prim x, const UnfoldOptions& options) {
  UnfoldOptions o = options;
  const Shape out = shape_rules::unfold(x->shape(), o);
  const Geo g = unfold_geo(spatial(x->shape()), o);
  return reshape(im2col(*this, std::move(x), g), out);
}

Prim Backend::fold(Prim cols, const Shape& output_size, const UnfoldOptions& options) {
  UnfoldOptions o = options;
  shape_rules::fold(cols->shape(), output_size.dims(), o);
  const Geo g = unfold_geo(output_size.dims(), o);
  const Shape cs = cols->shape();
  const int64_t k = g.kernel_size();
  Prim c4 = reshape(std::move(cols), Shape{cs[0], cs[1] / k, k, cs[2]});
  return col2im(*this, std::move(c4), output_size.dims(), g);
}

}  // namespace burn
