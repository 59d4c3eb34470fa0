// Neural-network ops: Conv, ConvTranspose, pooling, normalisations, Dropout, LRN.
#include <algorithm>
#include <cmath>
#include <limits>

#include "burn/tensor/module.hpp"
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

struct Window {
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end;
};

// Kernel, strides, dilations and pads of a conv or pool node, auto_pad resolved against the input.
Window window(OpContext& c, const Shape& x, std::vector<int64_t> kernel) {
  if (x.rank() < 3) c.invalid("input must have a batch, a channel and spatial dims, got shape " + x.to_string());
  size_t n = x.rank() - 2;
  Window w;
  w.kernel = c.attr_ints("kernel_shape", std::move(kernel));
  if (w.kernel.size() != n)
    c.invalid("kernel_shape has " + std::to_string(w.kernel.size()) + " dims, input has " + std::to_string(n) +
              " spatial dims");
  w.stride = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  w.dilation = c.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (w.stride.size() != n || w.dilation.size() != n || pads.size() != 2 * n)
    c.invalid("strides, dilations or pads do not match the spatial rank");
  std::string ap = c.attr_s("auto_pad", "NOTSET");
  w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<long>(n));
  w.pad_end.assign(pads.begin() + static_cast<long>(n), pads.end());
  if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t in = x[i + 2], out = (in + w.stride[i] - 1) / w.stride[i];
      int64_t total = std::max<int64_t>(0, (out - 1) * w.stride[i] + (w.kernel[i] - 1) * w.dilation[i] + 1 - in);
      w.pad_begin[i] = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[i] = total - w.pad_begin[i];
    }
  } else if (ap == "VALID") {
    std::fill(w.pad_begin.begin(), w.pad_begin.end(), 0);
    std::fill(w.pad_end.begin(), w.pad_end.end(), 0);
  } else if (ap != "NOTSET") {
    c.invalid("auto_pad '" + ap + "'");
  }
  return w;
}

std::vector<int64_t> weight_kernel(const Shape& w) {
  return std::vector<int64_t>(w.dims().begin() + 2, w.dims().end());
}

}  // namespace

ConvWindow conv_window(OpContext& c, const Shape& x, const Shape& weight) {
  Window w = window(c, x, weight_kernel(weight));
  return {w.kernel, w.stride, w.dilation, w.pad_begin, w.pad_end};
}

H conv_node(OpContext& c, const H& x, const H& weight, const std::optional<H>& bias) {
  if (shape_of(weight).rank() != shape_of(x).rank())
    c.invalid("weight " + shape_of(weight).to_string() + " and input " + shape_of(x).to_string() + " differ in rank");
  Window w = window(c, shape_of(x), weight_kernel(shape_of(weight)));
  ConvOptions o;
  o.stride = w.stride;
  o.dilation = w.dilation;
  o.padding = w.pad_begin;
  o.padding_end = w.pad_end;
  o.groups = c.attr_i("group", 1);
  return api::conv(x, weight, bias ? api::OptH(*bias) : std::nullopt, o);
}

namespace {

Hs conv(OpContext& c) { return {conv_node(c, c.in(0), c.in(1), c.has(2) ? std::optional<H>(c.in(2)) : std::nullopt)}; }

Hs conv_transpose(OpContext& c) {
  const Shape& xs = c.shape(0);
  if (xs.rank() < 3 || c.rank(1) != xs.rank())
    c.invalid("input " + xs.to_string() + " and weight " + c.shape(1).to_string() + " must have the same rank >= 3");
  size_t n = xs.rank() - 2;
  std::vector<int64_t> kernel = c.attr_ints("kernel_shape", weight_kernel(c.shape(1)));
  std::vector<int64_t> stride = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  std::vector<int64_t> dil = c.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> out_pad = c.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  std::vector<int64_t> out_shape = c.attr_ints("output_shape");
  std::string ap = c.attr_s("auto_pad", "NOTSET");
  if (kernel.size() != n || stride.size() != n || dil.size() != n || out_pad.size() != n || pads.size() != 2 * n ||
      (!out_shape.empty() && out_shape.size() < n))
    c.invalid("kernel_shape, strides, dilations, output_padding or pads do not match the spatial rank");
  // The full output (no padding), with output_padding's extra rows, is cropped by the pads: this
  // covers asymmetric pads and output_shape, which conv_transpose's symmetric padding cannot.
  std::vector<int64_t> full(n), begin(n), end(n);
  for (size_t i = 0; i < n; ++i) {
    full[i] = (xs[i + 2] - 1) * stride[i] + (kernel[i] - 1) * dil[i] + 1 + out_pad[i];
    int64_t total;
    if (!out_shape.empty() || ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      int64_t target = !out_shape.empty() ? out_shape[out_shape.size() - n + i] : xs[i + 2] * stride[i];
      total = full[i] - target;
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor, as the reference
      begin[i] = ap == "SAME_UPPER" ? half : total - half;
      end[i] = total - begin[i];
    } else {
      begin[i] = pads[i];
      end[i] = pads[i + n];
    }
  }
  ConvTransposeOptions o;
  o.stride = stride;
  o.dilation = dil;
  o.padding_out = out_pad;
  o.groups = c.attr_i("group", 1);
  H y = api::conv_transpose(c.in(0), c.in(1), std::nullopt, o);
  std::vector<Slice> sl(2, Slice::all());
  std::vector<int64_t> grow;  // negative crops (output_shape beyond the full size) pad with zeros
  bool need_pad = false;
  for (size_t i = 0; i < n; ++i) {
    sl.push_back(Slice::range(std::max<int64_t>(0, begin[i]), full[i] - std::max<int64_t>(0, end[i])));
    need_pad |= begin[i] < 0 || end[i] < 0;
  }
  y = api::slice(y, sl);
  if (need_pad) {
    for (size_t i = n; i-- > 0;) {
      grow.push_back(std::max<int64_t>(0, -begin[i]));
      grow.push_back(std::max<int64_t>(0, -end[i]));
    }
    y = api::pad(y, grow, PadMode::Constant, Scalar(0.0));
  }
  if (c.has(2)) {
    std::vector<int64_t> view(xs.rank(), 1);
    view[1] = -1;
    y = api::add(y, api::reshape(c.in(2), view));
  }
  return {y};
}

PoolOptions pool_options(OpContext& c, const Window& w) {
  PoolOptions o;
  o.kernel = w.kernel;
  o.stride = w.stride;
  o.padding = w.pad_begin;
  o.padding_end = w.pad_end;
  o.dilation = w.dilation;
  o.ceil_mode = c.attr_i("ceil_mode", 0) != 0;
  return o;
}

// Whether a pad exceeds half the dilated kernel, which the pools refuse (PyTorch's rule); ONNX allows it,
// so such pads are applied to the input first.
bool big_pads(const Window& w) {
  for (size_t i = 0; i < w.kernel.size(); ++i) {
    int64_t half = ((w.kernel[i] - 1) * w.dilation[i] + 1) / 2;
    if (w.pad_begin[i] > half || w.pad_end[i] > half) return true;
  }
  return false;
}
H pre_pad(const H& x, PoolOptions& o, Scalar value) {
  std::vector<int64_t> bp;
  for (size_t i = o.padding.size(); i-- > 0;) {
    bp.push_back(o.padding[i]);
    bp.push_back(o.padding_end[i]);
  }
  std::fill(o.padding.begin(), o.padding.end(), 0);
  std::fill(o.padding_end.begin(), o.padding_end.end(), 0);
  return api::pad(x, bp, PadMode::Constant, value);
}

Hs max_pool(OpContext& c) {
  int64_t order = c.attr_i("storage_order", 0);
  Window w = window(c, c.shape(0), {});
  PoolOptions o = pool_options(c, w);
  DType dt = c.dtype(0);
  H x = is_float(dt) ? c.in(0) : api::cast(c.in(0), DType::F64);  // integer inputs: exact in f64
  if (!c.wants_output(1)) {
    if (big_pads(w)) x = pre_pad(x, o, Scalar(-std::numeric_limits<double>::infinity()));
    H y = api::max_pool(x, o);
    return {is_float(dt) ? y : api::cast(y, dt)};
  }
  if (order != 0 && c.rank(0) != 4) c.unsupported("storage_order=1 outside 2-D pooling");
  auto [y, idx] = api::max_pool_with_indices(x, o);
  if (!is_float(dt)) y = api::cast(y, dt);
  if (idx.prim->dtype() != DType::I64) idx = api::cast(idx, DType::I64);
  if (order != 0) {  // column-major within the plane: h + w * H
    int64_t Hh = c.shape(0)[2], W = c.shape(0)[3];
    H row = api::div_scalar(idx, Scalar(W));
    H col = api::remainder_scalar(idx, Scalar(W));
    idx = api::add(api::mul_scalar(col, Scalar(Hh)), row);
  }
  // burn's indices are flat per (n, c) plane; ONNX's are flat over the whole NCHW tensor.
  const Shape& s = c.shape(0);
  int64_t plane = 1;
  for (size_t i = 2; i < s.rank(); ++i) plane *= s[i];
  std::vector<int64_t> view(s.rank(), 1);
  view[0] = s[0];
  view[1] = s[1];
  H base = api::reshape(api::mul_scalar(api::arange(c.device(), 0, s[0] * s[1], 1, DType::I64), Scalar(plane)), view);
  return {y, api::add(idx, base)};
}

// Sums of each pooling window of x as a depthwise conv with a ones kernel: explicit pads (with
// `pad_value` cells), dilations, and ceil_mode's extra end cells, which count as nothing (zeros; a
// window starting past the begin pad and the input is dropped, as the reference).
H window_sum(OpContext& c, const H& x, const Window& w, bool ceil_mode, double pad_value) {
  const Shape& xs = shape_of(x);
  size_t n = w.kernel.size();
  std::vector<int64_t> pads, extra;
  for (size_t i = 0; i < n; ++i) {
    if (w.kernel[i] <= 0 || w.stride[i] <= 0 || w.dilation[i] <= 0 || w.pad_begin[i] < 0 || w.pad_end[i] < 0)
      c.invalid("kernel_shape, strides and dilations must be positive and pads not negative");
    int64_t span = w.dilation[i] * (w.kernel[i] - 1) + 1, total = xs[i + 2] + w.pad_begin[i] + w.pad_end[i];
    if (total < span) c.invalid("the pooling window is larger than the padded input");
    int64_t out = (total - span) / w.stride[i] + 1;
    if (ceil_mode && (total - span) % w.stride[i] != 0) {
      ++out;
      if ((out - 1) * w.stride[i] >= xs[i + 2] + w.pad_begin[i]) --out;
    }
    extra.push_back(std::max<int64_t>(0, (out - 1) * w.stride[i] + span - total));
  }
  for (size_t i = n; i-- > 0;) {
    pads.push_back(w.pad_begin[i]);
    pads.push_back(w.pad_end[i]);
  }
  H y = api::pad(x, pads, PadMode::Constant, Scalar(pad_value));
  std::vector<int64_t> ex;
  for (size_t i = n; i-- > 0;) {
    ex.push_back(0);
    ex.push_back(extra[i]);
  }
  y = api::pad(y, ex, PadMode::Constant, Scalar(0.0));
  int64_t ch = xs[1];
  std::vector<int64_t> ws{ch, 1};
  ws.insert(ws.end(), w.kernel.begin(), w.kernel.end());
  ConvOptions o;
  o.stride = w.stride;
  o.dilation = w.dilation;
  o.padding.assign(n, 0);
  o.groups = ch;
  return api::conv(y, api::full(c.device(), Shape(ws), Scalar(1.0), x.prim->dtype()), std::nullopt, o);
}

bool dilated(const Window& w) {
  return std::any_of(w.dilation.begin(), w.dilation.end(), [](int64_t d) { return d != 1; });
}

Hs avg_pool(OpContext& c) {
  Window w = window(c, c.shape(0), {});
  if (c.opset() < 19) w.dilation.assign(w.kernel.size(), 1);
  bool ceil_mode = c.attr_i("ceil_mode", 0) != 0;
  if (dilated(w)) {  // opset 19: the pools have no dilated average, so window sums over window counts
    H sum = window_sum(c, c.in(0), w, ceil_mode, 0.0);
    bool include = c.attr_i("count_include_pad", 0) != 0;
    H ones = api::full(c.device(), c.shape(0), Scalar(1.0), c.dtype(0));
    return {api::div(sum, window_sum(c, ones, w, ceil_mode, include ? 1.0 : 0.0))};
  }
  PoolOptions o = pool_options(c, w);
  o.dilation.clear();
  o.count_include_pad = c.attr_i("count_include_pad", 0) != 0;
  if (!big_pads(w)) return {api::avg_pool(c.in(0), o)};
  // Padded explicitly: the average is the padded sum over the count of (real, or all) cells.
  bool include = o.count_include_pad;
  PoolOptions o2 = o;
  H x = pre_pad(c.in(0), o, Scalar(0.0));
  H y = api::avg_pool(x, o);
  if (include) return {y};
  H ones = pre_pad(api::full(c.device(), c.shape(0), Scalar(1.0), c.dtype(0)), o2, Scalar(0.0));
  return {api::div(y, api::avg_pool(ones, o2))};
}

template <OpId Op>
Hs global_pool(OpContext& c) {
  std::vector<int64_t> axes;
  for (size_t i = 2; i < c.rank(0); ++i) axes.push_back(static_cast<int64_t>(i));
  return {reduce_axes(Op, c.in(0), axes)};
}

// LpPool: (sum of |x|^p over the window)^(1/p), pads counting as zeros; ceil_mode and dilations
// from opset 18.
Hs lp_pool(OpContext& c) {
  Window w = window(c, c.shape(0), {});
  if (c.opset() < 18) w.dilation.assign(w.kernel.size(), 1);
  const auto* pa = c.attr("p");  // a float at opset 1, an int from 2
  double p = !pa ? 2.0 : pa->type() == ::onnx::AttributeProto::FLOAT ? pa->f() : static_cast<double>(pa->i());
  bool ceil_mode = c.opset() >= 18 && c.attr_i("ceil_mode", 0) != 0;
  H sum = window_sum(c, api::powf_scalar(api::unary(OpId::abs, c.in(0)), Scalar(p)), w, ceil_mode, 0.0);
  return {api::powf_scalar(sum, Scalar(1.0 / p))};
}

Hs global_lp_pool(OpContext& c) {
  double p = static_cast<double>(c.attr_i("p", 2));
  std::vector<int64_t> axes;
  for (size_t i = 2; i < c.rank(0); ++i) axes.push_back(static_cast<int64_t>(i));
  H sum = reduce_axes(OpId::sum_dim, api::powf_scalar(api::unary(OpId::abs, c.in(0)), Scalar(p)), axes);
  return {api::powf_scalar(sum, Scalar(1.0 / p))};
}

// LpNormalization: x over its p-norm (p 1 or 2) along axis.
Hs lp_norm(OpContext& c) {
  int64_t axis = c.axis(c.attr_i("axis", -1), c.rank(0)), p = c.attr_i("p", 2);
  H x = c.in(0);
  H norm;
  if (p == 1)
    norm = api::reduce_dim(OpId::sum_dim, api::unary(OpId::abs, x), axis);
  else if (p == 2)
    norm = api::unary(OpId::sqrt, api::reduce_dim(OpId::sum_dim, api::mul(x, x), axis));
  else
    c.invalid("p must be 1 or 2, got " + std::to_string(p));
  return {api::div(x, norm)};
}

// GroupNormalization: scale and bias are per group at opset 18 (repeated over each group's
// channels here), per channel from opset 21.
Hs group_norm(OpContext& c) {
  if (c.rank(0) < 2) c.invalid("input must have a channel dim");
  int64_t groups = c.attr_i("num_groups", 0), ch = c.shape(0)[1];
  if (groups <= 0 || ch % groups)
    c.invalid("num_groups " + std::to_string(groups) + " for " + std::to_string(ch) + " channels");
  double eps = c.attr_f("epsilon", 1e-5);
  H scale = api::reshape(c.in(1), {-1}), bias = api::reshape(c.in(2), {-1});
  int64_t want = c.opset() >= 21 ? ch : groups;
  if (shape_of(scale)[0] != want || shape_of(bias)[0] != want)
    c.invalid("scale and bias must have " + std::to_string(want) + " values (opset " + std::to_string(c.opset()) + ")");
  if (c.opset() < 21) {
    auto per_channel = [&](const H& g) {
      return api::reshape(api::expand(api::reshape(g, {groups, 1}), {groups, ch / groups}), {ch});
    };
    scale = per_channel(scale);
    bias = per_channel(bias);
  }
  // stash_type (21) 1 computes in f32, as the default here; the input's own type otherwise.
  H x = c.in(0);
  DType dt = c.dtype(0);
  bool widen = c.attr_i("stash_type", 1) == 1 && dt != DType::F32 && dt != DType::F64;
  if (widen) x = api::cast(x, DType::F32), scale = api::cast(scale, DType::F32), bias = api::cast(bias, DType::F32);
  H y = api::group_norm(x, scale, bias, groups, eps);
  return {widen ? api::cast(y, dt) : y};
}

// DeformConv (19), 2-D: torchvision's layout of offsets (y, x pairs per kernel tap and offset group)
// and mask, which burn's deform_conv2d takes; asymmetric pads are applied to the input first.
Hs deform_conv(OpContext& c) {
  if (c.rank(0) != 4) c.unsupported("DeformConv on a " + std::to_string(c.rank(0)) + "-D input (2-D images only)");
  Window w = window(c, c.shape(0), weight_kernel(c.shape(1)));
  H x = c.in(0);
  DeformConvOptions o;
  o.stride = w.stride;
  o.dilation = w.dilation;
  o.padding = w.pad_begin;
  if (w.pad_begin != w.pad_end) {
    x = api::pad(x, {w.pad_begin[1], w.pad_end[1], w.pad_begin[0], w.pad_end[0]}, PadMode::Constant, Scalar(0.0));
    o.padding = {0, 0};
  }
  o.weight_groups = c.attr_i("group", 1);
  o.offset_groups = c.attr_i("offset_group", 1);
  api::OptH bias = c.has(3) ? api::OptH(c.in(3)) : std::nullopt, mask = c.has(4) ? api::OptH(c.in(4)) : std::nullopt;
  return {api::deform_conv2d(x, c.in(2), c.in(1), mask, bias, o)};
}

// Col2Im (18), 2-D: burn's fold to the padded image, then the pads cropped (they may be asymmetric).
Hs col2im(OpContext& c) {
  std::vector<int64_t> image = c.ints(1), block = c.ints(2);
  if (image.size() != 2 || block.size() != 2)
    c.unsupported("Col2Im with " + std::to_string(image.size()) + " spatial dims (2 only)");
  std::vector<int64_t> pads = c.attr_ints("pads", {0, 0, 0, 0});
  UnfoldOptions o;
  o.kernel = block;
  o.stride = c.attr_ints("strides", {1, 1});
  o.dilation = c.attr_ints("dilations", {1, 1});
  o.padding = {0, 0};
  if (pads.size() != 4 || o.stride.size() != 2 || o.dilation.size() != 2)
    c.invalid("pads, strides or dilations do not match 2 spatial dims");
  std::vector<int64_t> padded{image[0] + pads[0] + pads[2], image[1] + pads[1] + pads[3]};
  H y = api::fold(c.in(0), padded, o);
  return {api::slice(y, {Slice::all(), Slice::all(), Slice::range(pads[0], pads[0] + image[0]),
                         Slice::range(pads[1], pads[1] + image[1])})};
}

Hs batch_norm(OpContext& c) {
  bool training = c.opset() >= 14 && c.attr_i("training_mode", 0) != 0;
  double eps = c.attr_f("epsilon", 1e-5), momentum = c.attr_f("momentum", 0.9);
  // ONNX's momentum weighs the old running value; burn's (PyTorch's) the new batch statistic.
  Hs r = api::batch_norm(c.in(0), c.in(1), c.in(2), c.in(3), c.in(4), training, 1.0 - momentum, eps);
  if (!training) return {r.at(0)};
  // ONNX updates the running variance with the biased batch variance (PyTorch: unbiased).
  H x = c.in(0);
  std::vector<int64_t> axes{0};
  for (size_t i = 2; i < c.rank(0); ++i) axes.push_back(static_cast<int64_t>(i));
  H mean = reduce_axes(OpId::mean_dim, x, axes);
  H d = api::sub(x, mean);
  H var = reduce_axes(OpId::mean_dim, api::mul(d, d), axes);
  auto upd = [&](const H& run, const H& batch) {
    return api::add(api::mul_scalar(run, Scalar(momentum)),
                    api::mul_scalar(api::reshape(batch, {-1}), Scalar(1.0 - momentum)));
  };
  return {r.at(0), upd(c.in(3), mean), upd(c.in(4), var)};
}

Hs instance_norm(OpContext& c) {
  if (c.rank(0) < 2) c.invalid("input must have a channel dim");
  int64_t ch = c.shape(0)[1];
  return {api::group_norm(c.in(0), c.in(1), c.in(2), ch, c.attr_f("epsilon", 1e-5))};
}

Hs layer_norm(OpContext& c) {
  const Shape& s = c.shape(0);
  size_t r = s.rank();
  int64_t axis = c.axis(c.attr_i("axis", -1), r);
  double eps = c.attr_f("epsilon", 1e-5);
  std::vector<int64_t> norm_shape(s.dims().begin() + axis, s.dims().end());
  auto full = [&](const H& p) { return shape_of(p).dims() == norm_shape ? p : api::expand(p, norm_shape); };
  size_t nd = r - static_cast<size_t>(axis);
  H y = api::layer_norm(c.in(0), full(c.in(1)), c.has(2) ? api::OptH(full(c.in(2))) : std::nullopt, nd, eps);
  if (!c.wants_output(1) && !c.wants_output(2)) return {y};
  // Mean and 1/std over the normalised dims, kept as size-1 dims.
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= s[static_cast<size_t>(i)];
  auto [var, mean] = api::var_mean(api::reshape(c.in(0), {outer, -1}), 1, 0);
  std::vector<int64_t> kept(s.dims().begin(), s.dims().begin() + axis);
  kept.resize(r, 1);
  H inv = api::unary(OpId::recip, api::unary(OpId::sqrt, api::add_scalar(var, Scalar(eps))));
  return {y, api::reshape(mean, kept), api::reshape(inv, kept)};
}

Hs dropout(OpContext& c) {
  bool training = false;
  double ratio = 0.5;
  if (c.opset() >= 12) {
    if (c.has(1)) ratio = c.scalar(1);
    if (c.has(2)) training = c.scalar(2) != 0;
  } else {
    ratio = c.attr_f("ratio", 0.5);
  }
  if (training && ratio > 0) c.unsupported("training-mode dropout (random masks)");
  Hs out{c.in(0)};
  if (c.wants_output(1)) out.push_back(api::full(c.device(), c.shape(0), Scalar(true), DType::Bool));
  return out;
}

Hs mean_variance_norm(OpContext& c) {
  std::vector<int64_t> axes = c.attr_ints("axes", {0, 2, 3});
  for (auto& a : axes) a = c.axis(a, c.rank(0));
  H x = c.in(0);
  H mean = reduce_axes(OpId::mean_dim, x, axes);
  H d = api::sub(x, mean);
  H var = reduce_axes(OpId::mean_dim, api::mul(d, d), axes);
  return {api::div(d, api::unary(OpId::sqrt, var))};
}

Hs lrn(OpContext& c) {
  double alpha = c.attr_f("alpha", 1e-4), beta = c.attr_f("beta", 0.75), bias = c.attr_f("bias", 1.0);
  int64_t size = c.attr_i("size", 0);
  if (size <= 0) c.invalid("size must be positive");
  if (c.rank(0) < 2) c.invalid("input must have a channel dim");
  H x = c.in(0);
  size_t r = c.rank(0);
  int64_t ch = c.shape(0)[1];
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  // Sum of squares over the channel window: the squares padded along dim 1, then `size` shifted slices.
  std::vector<int64_t> pads(2 * (r - 2), 0);
  pads.push_back(lo);
  pads.push_back(hi);
  H sq = api::pad(api::mul(x, x), pads, PadMode::Constant, Scalar(0.0));
  H acc;
  for (int64_t i = 0; i < size; ++i) {
    H part = api::narrow(sq, 1, i, ch);
    acc = i == 0 ? part : api::add(acc, part);
  }
  H den = api::powf_scalar(
      api::add_scalar(api::mul_scalar(acc, Scalar(alpha / static_cast<double>(size))), Scalar(bias)), Scalar(beta));
  return {api::div(x, den)};
}

}  // namespace

void add_nn_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"Conv", 1, k, conv},
                        {"ConvTranspose", 1, k, conv_transpose},
                        {"MaxPool", 1, k, max_pool},
                        {"AveragePool", 1, k, avg_pool},
                        {"GlobalAveragePool", 1, k, global_pool<OpId::mean_dim>},
                        {"GlobalMaxPool", 1, k, global_pool<OpId::max_dim>},
                        {"BatchNormalization", 1, k, batch_norm},
                        {"InstanceNormalization", 1, k, instance_norm},
                        {"LayerNormalization", 17, k, layer_norm},
                        {"Dropout", 1, k, dropout},
                        {"MeanVarianceNormalization", 9, k, mean_variance_norm},
                        {"LRN", 1, k, lrn},
                        {"LpPool", 1, k, lp_pool},
                        {"GlobalLpPool", 1, k, global_lp_pool},
                        {"LpNormalization", 1, k, lp_norm},
                        {"GroupNormalization", 18, k, group_norm},
                        {"DeformConv", 19, k, deform_conv},
                        {"Col2Im", 18, k, col2im},
                    });
}

}  // namespace burn::onnx
