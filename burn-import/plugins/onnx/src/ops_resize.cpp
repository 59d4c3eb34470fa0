// Resampling: Resize (opsets 10-17) and Upsample, as the ONNX reference computes them: per resized
// axis, each output position reads n taps of the edge-padded input (2 for nearest and linear, 4 for
// cubic) with host-computed coefficients, so every coordinate transformation and nearest mode is exact
// and the result is differentiable through the gathers.
#include <algorithm>
#include <array>
#include <cmath>

#include "burn/tensor/module.hpp"
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

struct ResizeSpec {
  std::string mode = "nearest", transform = "half_pixel", nearest = "round_prefer_floor";
  double cubic_a = -0.75, extrapolation = 0.0;
  bool exclude_outside = false;
};

struct Taps {
  std::vector<std::vector<int64_t>> idx;  // [tap][out]
  std::vector<std::vector<double>> coef;  // [tap][out]
  std::vector<uint8_t> outside;           // per out: tf_crop_and_resize beyond the input
};

std::vector<double> coeffs(const ResizeSpec& s, double r) {
  if (s.mode == "nearest") {
    if (r == std::floor(r)) return {0, 1};
    if (s.nearest == "round_prefer_floor") return r <= 0.5 ? std::vector<double>{1, 0} : std::vector<double>{0, 1};
    if (s.nearest == "round_prefer_ceil") return r < 0.5 ? std::vector<double>{1, 0} : std::vector<double>{0, 1};
    if (s.nearest == "floor") return {1, 0};
    return {0, 1};
  }
  if (s.mode == "linear") return {1 - r, r};
  double A = s.cubic_a, q = 1 - r;
  return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A, ((A + 2) * r - (A + 3)) * r * r + 1,
          ((A + 2) * q - (A + 3)) * q * q + 1, ((A * (q + 1) - 5 * A) * (q + 1) + 8 * A) * (q + 1) - 4 * A};
}

Taps taps(OpContext& c, const ResizeSpec& s, int64_t in, int64_t out, double scale, double roi_start, double roi_end) {
  size_t n = s.mode == "cubic" ? 4 : 2;
  Taps t;
  t.idx.assign(n, std::vector<int64_t>(static_cast<size_t>(out)));
  t.coef.assign(n, std::vector<double>(static_cast<size_t>(out)));
  t.outside.assign(static_cast<size_t>(out), 0);
  // The reference's resized length is in * scale, unrounded (align_corners and crop use it).
  double len = static_cast<double>(in) * scale;
  for (int64_t o = 0; o < out; ++o) {
    double x = static_cast<double>(o);
    const std::string& m = s.transform;
    if (m == "half_pixel")
      x = (x + 0.5) / scale - 0.5;
    else if (m == "half_pixel_symmetric") {  // opset 19: half_pixel about the centre of the rounded size
      double adjust = static_cast<double>(out) / len, center = static_cast<double>(in) / 2;
      x = center * (1 - adjust) + (x + 0.5) / scale - 0.5;
    } else if (m == "pytorch_half_pixel")
      x = len > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    else if (m == "align_corners")
      x = len == 1 ? 0.0 : x * static_cast<double>(in - 1) / (len - 1);
    else if (m == "asymmetric")
      x = x / scale;
    else if (m == "tf_half_pixel_for_nn")
      x = (x + 0.5) / scale;
    else if (m == "tf_crop_and_resize") {
      x = len > 1 ? roi_start * static_cast<double>(in - 1) +
                        x * (roi_end - roi_start) * static_cast<double>(in - 1) / (len - 1)
                  : 0.5 * (roi_start + roi_end) * static_cast<double>(in - 1);
      if (x < 0 || x > static_cast<double>(in - 1)) t.outside[static_cast<size_t>(o)] = 1;
    } else {
      c.unsupported("coordinate_transformation_mode '" + m + "'");
    }
    double fl = std::floor(x);
    double r = x - fl;
    if (r == 0) r = 1;  // the reference's convention: an exact hit weighs the upper neighbour
    std::vector<double> cf = coeffs(s, r);
    // The n nearest integer positions to x, ties to the smaller: floor(x) - n/2 + 1 ... for r in (0, 1].
    int64_t first = static_cast<int64_t>(fl) - static_cast<int64_t>(n) / 2 + 1;
    if (r == 1) first -= 1;
    double sum = 0;
    for (size_t k = 0; k < n; ++k) {
      int64_t i = first + static_cast<int64_t>(k);
      if (s.exclude_outside && (i < 0 || i >= in)) cf[k] = 0;
      sum += cf[k];
      t.idx[k][static_cast<size_t>(o)] = std::clamp<int64_t>(i, 0, in - 1);
    }
    for (size_t k = 0; k < n; ++k)
      t.coef[k][static_cast<size_t>(o)] = s.exclude_outside && sum != 0 ? cf[k] / sum : cf[k];
  }
  return t;
}

H resize_axis(OpContext& c, const ResizeSpec& s, H x, int64_t axis, int64_t out, double scale, double rs, double re) {
  const Shape xs = shape_of(x);
  int64_t in = xs[static_cast<size_t>(axis)];
  Taps t = taps(c, s, in, out, scale, rs, re);
  DType dt = x.prim->dtype();
  std::vector<int64_t> view(xs.rank(), 1);
  view[static_cast<size_t>(axis)] = out;
  H y;
  if (s.mode == "nearest") {  // one coefficient is 1: a single gather, exact for every dtype
    std::vector<int64_t> pick(static_cast<size_t>(out));
    for (size_t o = 0; o < pick.size(); ++o) pick[o] = t.coef[0][o] != 0 ? t.idx[0][o] : t.idx[1][o];
    y = api::select(x, axis, ints_tensor(x.device, pick));
  } else {
    if (!is_float(dt)) c.unsupported("linear and cubic modes on integer tensors");
    for (size_t k = 0; k < t.idx.size(); ++k) {
      std::vector<float> cf(t.coef[k].begin(), t.coef[k].end());
      H w = api::cast(api::from_data(x.device, TensorData::from_vector(cf, Shape(view)), Kind::Float), dt);
      H g = api::mul(api::select(x, axis, ints_tensor(x.device, t.idx[k])), w);
      y = k == 0 ? g : api::add(y, g);
    }
  }
  if (std::any_of(t.outside.begin(), t.outside.end(), [](uint8_t v) { return v != 0; })) {
    std::vector<bool> m(t.outside.begin(), t.outside.end());
    H mask = api::from_data(x.device, TensorData::from_vector(m, Shape(view)), Kind::Bool);
    y = api::mask_where(y, api::expand(mask, shape_of(y).dims()),
                        api::full(x.device, shape_of(y), Scalar(s.extrapolation), dt));
  }
  return y;
}

// keep_scales: sizes and scales both given (opset 18's aspect-ratio policies): both used as they are.
Hs resize_with(OpContext& c, const ResizeSpec& s, std::vector<double> scales, std::vector<int64_t> sizes,
               std::vector<double> roi, bool keep_scales = false) {
  const Shape& xs = c.shape(0);
  size_t r = xs.rank();
  bool both = keep_scales && !sizes.empty() && !scales.empty();
  if (both) {
    if (sizes.size() != r || scales.size() != r) c.invalid("sizes and scales do not match the rank");
  } else if (!sizes.empty()) {
    if (sizes.size() != r)
      c.invalid("sizes has " + std::to_string(sizes.size()) + " values for rank " + std::to_string(r));
    scales.clear();
    for (size_t i = 0; i < r; ++i) scales.push_back(static_cast<double>(sizes[i]) / static_cast<double>(xs[i]));
  } else {
    if (scales.size() != r)
      c.invalid("scales has " + std::to_string(scales.size()) + " values for rank " + std::to_string(r));
    for (size_t i = 0; i < r; ++i)
      sizes.push_back(static_cast<int64_t>(std::floor(static_cast<double>(xs[i]) * scales[i])));
  }
  H x = c.in(0);
  for (size_t i = 0; i < r; ++i) {
    bool crop = s.transform == "tf_crop_and_resize";
    if (sizes[i] == xs[i] && scales[i] == 1.0 && !crop) continue;
    double rs = crop && roi.size() == 2 * r ? roi[i] : 0.0, re = crop && roi.size() == 2 * r ? roi[i + r] : 1.0;
    x = resize_axis(c, s, x, static_cast<int64_t>(i), sizes[i], scales[i], rs, re);
  }
  return {x};
}

std::vector<double> floats_of(OpContext& c, size_t i) {
  if (!c.has(i) || c.shape(i).num_elements() == 0) return {};
  return api::into_data(c.in(i)).to_f64_vec();
}

Hs resize(OpContext& c) {
  ResizeSpec s;
  s.mode = c.attr_s("mode", "nearest");
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic") c.unsupported("mode '" + s.mode + "'");
  if (c.opset() < 11) {
    s.transform = "asymmetric";
    s.nearest = "floor";
    return resize_with(c, s, floats_of(c, 1), {}, {});
  }
  s.transform = c.attr_s("coordinate_transformation_mode", "half_pixel");
  s.nearest = c.attr_s("nearest_mode", "round_prefer_floor");
  s.cubic_a = c.attr_f("cubic_coeff_a", -0.75);
  s.exclude_outside = c.attr_i("exclude_outside", 0) != 0;
  s.extrapolation = c.attr_f("extrapolation_value", 0.0);
  std::vector<int64_t> sizes;
  if (c.has(3) && c.shape(3).num_elements() > 0) sizes = c.ints(3);
  std::vector<double> scales = floats_of(c, 2), roi = floats_of(c, 1);
  if (c.opset() < 18) return resize_with(c, s, scales, sizes, roi);
  if (s.transform == "half_pixel_symmetric" && c.opset() < 19) c.invalid("half_pixel_symmetric needs opset 19");
  // Opset 18: scales, sizes and roi may cover only `axes`; sizes may keep the aspect ratio.
  const Shape& xs = c.shape(0);
  size_t r = xs.rank();
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (axes.empty())
    for (size_t i = 0; i < r; ++i) axes.push_back(static_cast<int64_t>(i));
  for (auto& a : axes) a = c.axis(a, r);
  size_t na = axes.size();
  if (!sizes.empty() && sizes.size() != na)
    c.invalid("sizes has " + std::to_string(sizes.size()) + " values for " + std::to_string(na) + " axes");
  if (!scales.empty() && scales.size() != na)
    c.invalid("scales has " + std::to_string(scales.size()) + " values for " + std::to_string(na) + " axes");
  std::string policy = c.attr_s("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    c.invalid("keep_aspect_ratio_policy '" + policy + "'");
  std::vector<double> full_scales;
  std::vector<int64_t> full_sizes;
  if (!sizes.empty() && policy != "stretch") {
    // One scale for every listed axis (the smallest or largest ratio); sizes rounded from it.
    double sc = policy == "not_larger" ? 1e300 : 0.0;
    for (size_t i = 0; i < na; ++i) {
      double q = static_cast<double>(sizes[i]) / static_cast<double>(xs[static_cast<size_t>(axes[i])]);
      sc = policy == "not_larger" ? std::min(sc, q) : std::max(sc, q);
    }
    full_scales.assign(r, 1.0);
    for (size_t i = 0; i < r; ++i) full_sizes.push_back(xs[i]);
    for (size_t i = 0; i < na; ++i) {
      auto a = static_cast<size_t>(axes[i]);
      full_scales[a] = sc;
      full_sizes[a] = static_cast<int64_t>(std::floor(sc * static_cast<double>(xs[a]) + 0.5));
    }
  } else if (!sizes.empty()) {
    for (size_t i = 0; i < r; ++i) full_sizes.push_back(xs[i]);
    for (size_t i = 0; i < na; ++i) full_sizes[static_cast<size_t>(axes[i])] = sizes[i];
  } else {
    full_scales.assign(r, 1.0);
    for (size_t i = 0; i < na; ++i) full_scales[static_cast<size_t>(axes[i])] = scales[i];
  }
  if (!roi.empty()) {
    if (roi.size() != 2 * na)
      c.invalid("roi has " + std::to_string(roi.size()) + " values for " + std::to_string(na) + " axes");
    std::vector<double> full(2 * r);
    for (size_t i = 0; i < r; ++i) full[i] = 0.0, full[i + r] = 1.0;
    for (size_t i = 0; i < na; ++i) {
      full[static_cast<size_t>(axes[i])] = roi[i];
      full[static_cast<size_t>(axes[i]) + r] = roi[i + na];
    }
    roi = full;
  }
  if (c.attr_i("antialias", 0) != 0 && s.mode != "nearest") {
    for (size_t i = 0; i < r; ++i) {
      double sc =
          !full_scales.empty() ? full_scales[i] : static_cast<double>(full_sizes[i]) / static_cast<double>(xs[i]);
      if (sc < 1.0) c.unsupported("antialias=1 when downsampling with mode '" + s.mode + "'");
    }
  }
  return resize_with(c, s, full_scales, full_sizes, roi, true);
}

Hs upsample(OpContext& c) {
  ResizeSpec s;
  s.mode = c.attr_s("mode", "nearest");
  if (s.mode == "bilinear") s.mode = "linear";
  s.transform = "asymmetric";
  s.nearest = "floor";
  std::vector<double> scales = c.opset() >= 9 ? floats_of(c, 1) : c.attr_floats("scales");
  return resize_with(c, s, scales, {}, {});
}

// Weighted sums of pixels of x [N, C, H, W]: per cell, `taps` (flat N*H*W position, weight) pairs made
// on the host, the pixels gathered on the device (differentiable in x). Returns [cells, C].
H gather_taps(OpContext& c, const H& x, const std::vector<int64_t>& idx, const std::vector<float>& w, int64_t taps) {
  const Shape& xs = shape_of(x);
  int64_t C = xs[1], cells = static_cast<int64_t>(idx.size()) / taps;
  H rows = api::reshape(api::permute(x, {0, 2, 3, 1}), {xs[0] * xs[2] * xs[3], C});
  H g = api::select(rows, 0, ints_tensor(c.device(), idx));  // [cells * taps, C]
  H wt = api::cast(api::from_data(c.device(), TensorData::from_vector(w, Shape{cells * taps, 1}), Kind::Float),
                   x.prim->dtype());
  return api::reshape(api::reduce_dim(OpId::sum_dim, api::reshape(api::mul(g, wt), {cells, taps, C}), 1), {cells, C});
}

// GridSample's bicubic mode (cubic from opset 20), 2-D, as ONNX Runtime and PyTorch compute it: 4 x 4
// taps around the unnormalised sample point with the cubic convolution coefficients (A = -0.75), each
// tap padded by the mode (zeros: 0; border: clamped; reflection: reflected, then clamped); the point
// itself is not clamped first as in the linear and nearest modes.
H grid_sample_cubic(OpContext& c, const std::string& pad, bool align) {
  const Shape& xs = c.shape(0);
  const Shape& gs = c.shape(1);
  if (gs.rank() != 4 || gs[0] != xs[0] || gs[3] != 2)
    c.invalid("grid " + gs.to_string() + " must be [N, H_out, W_out, 2] for the input " + xs.to_string());
  int64_t N = xs[0], Hh = xs[2], W = xs[3], Ho = gs[1], Wo = gs[2];
  std::vector<double> grid = api::into_data(c.in(1)).to_f64_vec();
  auto denorm = [&](double v, int64_t len) {
    return align ? (v + 1) / 2.0 * static_cast<double>(len - 1) : ((v + 1) * static_cast<double>(len) - 1) / 2.0;
  };
  auto reflect = [](double v, double lo, double hi) {
    double range = hi - lo;
    if (range <= 0) return lo;
    if (v < lo) {
      double d = lo - v;
      auto n = static_cast<int64_t>(d / range);
      double r = d - static_cast<double>(n) * range;
      return n % 2 == 0 ? lo + r : hi - r;
    }
    if (v > hi) {
      double d = v - hi;
      auto n = static_cast<int64_t>(d / range);
      double r = d - static_cast<double>(n) * range;
      return n % 2 == 0 ? hi - r : lo + r;
    }
    return v;
  };
  auto coeffs = [](double t) {
    const double A = -0.75;
    return std::array<double, 4>{((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A,
                                 ((A + 2) * t - (A + 3)) * t * t + 1,
                                 ((A + 2) * (1 - t) - (A + 3)) * (1 - t) * (1 - t) + 1,
                                 ((A * (2 - t) - 5 * A) * (2 - t) + 8 * A) * (2 - t) - 4 * A};
  };
  const double xlo = align ? 0.0 : -0.5, xhi = align ? static_cast<double>(W - 1) : static_cast<double>(W) - 0.5;
  const double ylo = align ? 0.0 : -0.5, yhi = align ? static_cast<double>(Hh - 1) : static_cast<double>(Hh) - 0.5;
  // A tap's pixel index along one axis, or -1 for a zero (zeros padding outside).
  auto tap = [&](int64_t i, int64_t len, double lo, double hi) -> int64_t {
    if (pad == "zeros") return i >= 0 && i < len ? i : -1;
    if (pad == "border") return std::clamp<int64_t>(i, 0, len - 1);
    return std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<double>(i), lo, hi)), 0, len - 1);
  };
  const int64_t cells = N * Ho * Wo;
  std::vector<int64_t> idx(static_cast<size_t>(cells * 16), 0);
  std::vector<float> w(static_cast<size_t>(cells * 16), 0.0f);
  for (int64_t q = 0; q < cells; ++q) {
    int64_t n = q / (Ho * Wo);
    double x = denorm(grid[static_cast<size_t>(2 * q)], W), y = denorm(grid[static_cast<size_t>(2 * q + 1)], Hh);
    double fx = std::floor(x), fy = std::floor(y);
    auto cx = coeffs(x - fx), cy = coeffs(y - fy);
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        int64_t yy = tap(static_cast<int64_t>(fy) - 1 + i, Hh, ylo, yhi);
        int64_t xx = tap(static_cast<int64_t>(fx) - 1 + j, W, xlo, xhi);
        if (yy < 0 || xx < 0) continue;
        auto k = static_cast<size_t>(q * 16 + i * 4 + j);
        idx[k] = (n * Hh + yy) * W + xx;
        w[k] = static_cast<float>(cy[static_cast<size_t>(i)] * cx[static_cast<size_t>(j)]);
      }
  }
  H y = gather_taps(c, c.in(0), idx, w, 16);  // [cells, C]
  return api::permute(api::reshape(y, {N, Ho, Wo, xs[1]}), {0, 3, 1, 2});
}

Hs grid_sample(OpContext& c) {
  if (c.rank(0) != 4) c.unsupported("GridSample on a " + std::to_string(c.rank(0)) + "-D input (4-D only)");
  GridSampleOptions o;
  // Opset 20 renamed the modes: linear, nearest, cubic.
  std::string mode = c.attr_s("mode", c.opset() >= 20 ? "linear" : "bilinear"), pad = c.attr_s("padding_mode", "zeros");
  if (c.opset() >= 20 && mode == "linear") mode = "bilinear";
  if (c.opset() >= 20 && mode == "cubic") mode = "bicubic";
  if (mode == "bilinear")
    o.mode = GridSampleMode::Bilinear;
  else if (mode == "nearest")
    o.mode = GridSampleMode::Nearest;
  else if (mode != "bicubic")
    c.unsupported("mode '" + mode + "'");
  if (pad == "zeros")
    o.padding = GridSamplePadding::Zeros;
  else if (pad == "border")
    o.padding = GridSamplePadding::Border;
  else if (pad == "reflection")
    o.padding = GridSamplePadding::Reflection;
  else
    c.unsupported("padding_mode '" + pad + "'");
  o.align_corners = c.attr_i("align_corners", 0) != 0;
  if (mode == "bicubic") return {grid_sample_cubic(c, pad, o.align_corners)};
  return {api::grid_sample_2d(c.in(0), c.in(1), o)};
}

// RoiAlign (avg mode) as the reference computes it: per output bin, a grid of bilinear samples whose
// taps and weights are made on the host; the values are then gathered on the device (differentiable).
Hs roi_align(OpContext& c) {
  const Shape& xs = c.shape(0);
  if (xs.rank() != 4 || c.rank(1) != 2 || c.shape(1)[1] != 4 || c.rank(2) != 1 || c.shape(2)[0] != c.shape(1)[0])
    c.invalid("X must be [N, C, H, W], rois [R, 4] and batch_indices [R]");
  if (c.attr_s("mode", "avg") != "avg") c.unsupported("mode '" + c.attr_s("mode", "avg") + "'");
  // Opset 10 had only the output_half_pixel behaviour; 16 added the attribute, default half_pixel.
  bool half = c.opset() >= 16 && c.attr_s("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  int64_t oh = c.attr_i("output_height", 1), ow = c.attr_i("output_width", 1), ratio = c.attr_i("sampling_ratio", 0);
  double scale = c.attr_f("spatial_scale", 1.0);
  int64_t N = xs[0], C = xs[1], Hh = xs[2], W = xs[3], R = c.shape(1)[0];
  if (oh <= 0 || ow <= 0) c.invalid("output_height and output_width must be positive");
  std::vector<double> rois = api::into_data(c.in(1)).to_f64_vec();
  std::vector<int64_t> batch = c.ints(2);
  // Taps: (flat row of X viewed as [N*H*W, C], weight / count) per output cell, padded to the most taps.
  std::vector<std::vector<std::pair<int64_t, double>>> cells(static_cast<size_t>(R * oh * ow));
  for (int64_t r = 0; r < R; ++r) {
    int64_t b = batch[static_cast<size_t>(r)];
    if (b < 0 || b >= N) c.invalid("batch index " + std::to_string(b) + " outside [0, " + std::to_string(N) + ")");
    double off = half ? 0.5 : 0.0;
    const double* q = &rois[static_cast<size_t>(r * 4)];
    double sw = q[0] * scale - off, sh = q[1] * scale - off, ew = q[2] * scale - off, eh = q[3] * scale - off;
    double rw = ew - sw, rh = eh - sh;
    if (!half) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
    int64_t gh = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rh / static_cast<double>(oh)));
    int64_t gw = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rw / static_cast<double>(ow)));
    double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
    for (int64_t ph = 0; ph < oh; ++ph)
      for (int64_t pw = 0; pw < ow; ++pw) {
        auto& cell = cells[static_cast<size_t>((r * oh + ph) * ow + pw)];
        for (int64_t iy = 0; iy < gh; ++iy)
          for (int64_t ix = 0; ix < gw; ++ix) {
            double y =
                sh + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
            double x =
                sw + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
            if (y < -1.0 || y > static_cast<double>(Hh) || x < -1.0 || x > static_cast<double>(W)) continue;
            y = std::max(y, 0.0);
            x = std::max(x, 0.0);
            int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
            if (y0 >= Hh - 1)
              y0 = y1 = Hh - 1, y = static_cast<double>(y0);
            else
              y1 = y0 + 1;
            if (x0 >= W - 1)
              x0 = x1 = W - 1, x = static_cast<double>(x0);
            else
              x1 = x0 + 1;
            double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0), hy = 1 - ly, hx = 1 - lx;
            auto row = [&](int64_t yy, int64_t xx) { return (b * Hh + yy) * W + xx; };
            cell.push_back({row(y0, x0), hy * hx / count});
            cell.push_back({row(y0, x1), hy * lx / count});
            cell.push_back({row(y1, x0), ly * hx / count});
            cell.push_back({row(y1, x1), ly * lx / count});
          }
      }
  }
  size_t taps = 1;
  for (const auto& cell : cells) taps = std::max(taps, cell.size());
  std::vector<int64_t> idx(cells.size() * taps, 0);
  std::vector<float> w(cells.size() * taps, 0.0f);
  for (size_t i = 0; i < cells.size(); ++i)
    for (size_t k = 0; k < cells[i].size(); ++k) {
      idx[i * taps + k] = cells[i][k].first;
      w[i * taps + k] = static_cast<float>(cells[i][k].second);
    }
  H y = gather_taps(c, c.in(0), idx, w, static_cast<int64_t>(taps));  // [cells, C]
  return {api::permute(api::reshape(y, {R, oh, ow, C}), {0, 3, 1, 2})};
}

// AffineGrid (20): the sampling grid of theta [N, 2, 3] ([N, 3, 4] in 3-D) over a size [N, C, H, W]
// ([N, C, D, H, W]): normalised base coordinates (x first) times theta transposed.
Hs affine_grid(OpContext& c) {
  std::vector<int64_t> size = c.ints(1);
  if (size.size() != 4 && size.size() != 5) c.invalid("size must have 4 or 5 values");
  size_t nd = size.size() - 2;
  const Shape& ts = c.shape(0);
  if (ts.rank() != 3 || ts[0] != size[0] || ts[1] != static_cast<int64_t>(nd) || ts[2] != static_cast<int64_t>(nd) + 1)
    c.invalid("theta " + ts.to_string() + " does not match size " + Shape(size).to_string());
  bool align = c.attr_i("align_corners", 0) != 0;
  auto coord = [&](int64_t i, int64_t n) {
    if (n == 1) return 0.0;
    double di = static_cast<double>(i), dn = static_cast<double>(n);
    return align ? -1.0 + 2.0 * di / (dn - 1) : (2.0 * di + 1.0) / dn - 1.0;
  };
  std::vector<int64_t> dims(size.begin() + 2, size.end());  // D?, H, W
  int64_t cells = 1;
  for (int64_t d : dims) cells *= d;
  std::vector<double> base;  // per cell: x, y (, z), 1
  std::vector<int64_t> pos(nd, 0);
  for (int64_t q = 0; q < cells; ++q) {
    for (size_t k = nd; k-- > 0;) base.push_back(coord(pos[k], dims[k]));
    base.push_back(1.0);
    for (size_t k = nd; k-- > 0;) {
      if (++pos[k] < dims[k]) break;
      pos[k] = 0;
    }
  }
  auto width = static_cast<int64_t>(nd) + 1;
  H b = api::cast(api::from_data(c.device(), TensorData::from_vector(base, Shape{cells, width}), Kind::Float),
                  c.dtype(0));
  H g = matmul_nd(b, api::swap_dims(c.in(0), 1, 2));  // [N, cells, nd]
  std::vector<int64_t> out{size[0]};
  out.insert(out.end(), dims.begin(), dims.end());
  out.push_back(static_cast<int64_t>(nd));
  return {api::reshape(g, out)};
}

// CenterCropPad (18): each listed axis cropped or zero-padded about its centre to the given size.
Hs center_crop_pad(OpContext& c) {
  std::vector<int64_t> shape = c.ints(1);
  size_t r = c.rank(0);
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (axes.empty())
    for (size_t i = 0; i < r; ++i) axes.push_back(static_cast<int64_t>(i));
  if (shape.size() != axes.size())
    c.invalid("shape has " + std::to_string(shape.size()) + " values for " + std::to_string(axes.size()) + " axes");
  H x = c.in(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = c.axis(axes[i], r), n = shape_of(x)[static_cast<size_t>(a)], want = shape[i];
    if (want < 0) c.invalid("negative size " + std::to_string(want));
    if (want < n) {
      x = api::narrow(x, a, (n - want) / 2, want);
    } else if (want > n) {
      std::vector<int64_t> pads(2 * (r - static_cast<size_t>(a)), 0);  // from the last dim, torch style
      int64_t before = (want - n) / 2;
      pads[pads.size() - 2] = before;
      pads[pads.size() - 1] = want - n - before;
      x = api::pad(x, pads, PadMode::Constant, is_float(c.dtype(0)) ? Scalar(0.0) : Scalar(int64_t{0}));
    }
  }
  return {x};
}

}  // namespace

void add_resize_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"Resize", 10, k, resize},
                        {"Upsample", 7, 9, upsample},
                        {"GridSample", 16, k, grid_sample},
                        {"RoiAlign", 10, k, roi_align},
                        {"AffineGrid", 20, k, affine_grid},
                        {"CenterCropPad", 18, k, center_crop_pad},
                    });
}

}  // namespace burn::onnx
