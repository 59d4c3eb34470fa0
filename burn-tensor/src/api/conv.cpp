// Tensor API: the conv module ops (conv, conv_transpose, deform_conv2d, unfold/fold and the conv
// backward functions): argument checks with tagged errors, option normalisation, backend call.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/module.hpp"
#include "module_checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

// x: rank 3..5 float, weight of the same rank, device and dtype.
void check_input_weight(const H& x, const H& w, const char* op, size_t min_rank = 3, size_t max_rank = 5) {
  be(x, op);
  same_device(x, w, op);
  require_float(x, op);
  same_dtype(x, w, op);
  if (rank(x) < min_rank || rank(x) > max_rank)
    throw ShapeError(op, "input must have rank " + std::to_string(min_rank) +
                             (min_rank == max_rank ? "" : " to " + std::to_string(max_rank)) +
                             " ([N, C, spatial...]), got shape " + shape(x).to_string());
  if (rank(w) != rank(x))
    throw ShapeError(op, "weight " + shape(w).to_string() + " must have the rank of the input " + shape(x).to_string());
  for (size_t d = 2; d < rank(w); ++d)
    if (shape(w)[d] <= 0) throw ShapeError(op, "weight " + shape(w).to_string() + " has an empty kernel");
}

void check_bias(const H& x, const OptH& bias, int64_t channels, const char* op) {
  if (!bias) return;
  same_device(x, *bias, op);
  if (bias->prim->dtype() != x.prim->dtype())
    throw DTypeError(op, "bias is " + dt(bias->prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
  if (rank(*bias) != 1 || shape(*bias)[0] != channels)
    throw ShapeError(op, "bias " + shape(*bias).to_string() + " must be [" + std::to_string(channels) + "]");
}

// Normalises `o` in place and returns the output shape of conv(x, w).
Shape conv_shape(const H& x, const H& w, ConvOptions& o, const char* op) {
  check_input_weight(x, w, op);
  const size_t sd = rank(x) - 2;
  o.stride = per_dim(o.stride, sd, 1, op, "stride");
  o.padding_end = per_dim(o.padding_end.empty() ? o.padding : o.padding_end, sd, 0, op, "padding_end");
  o.padding = per_dim(o.padding, sd, 0, op, "padding");
  o.dilation = per_dim(o.dilation, sd, 1, op, "dilation");
  require_positive(o.stride, op, "stride");
  require_positive(o.dilation, op, "dilation");
  require_non_negative(o.padding, op, "padding");
  require_non_negative(o.padding_end, op, "padding_end");
  if (o.groups <= 0) throw ValueError(op, "groups must be positive, got " + std::to_string(o.groups));
  const Shape &xs = shape(x), &ws = shape(w);
  if (xs[1] % o.groups != 0)
    throw ShapeError(op, "groups " + std::to_string(o.groups) + " does not divide the input's " +
                             std::to_string(xs[1]) + " channels");
  if (ws[0] % o.groups != 0)
    throw ShapeError(op, "groups " + std::to_string(o.groups) + " does not divide the weight's " +
                             std::to_string(ws[0]) + " output channels");
  if (checked_mul(ws[1], o.groups, op) != xs[1])
    throw ShapeError(op, "weight " + ws.to_string() + " expects " + std::to_string(ws[1] * o.groups) +
                             " input channels (groups " + std::to_string(o.groups) + ") but the input " +
                             xs.to_string() + " has " + std::to_string(xs[1]));
  std::vector<int64_t> out{xs[0], ws[0]};
  for (size_t d = 0; d < sd; ++d) {
    const int64_t padded = checked_add(xs[d + 2], checked_add(o.padding[d], o.padding_end[d], op), op);
    const int64_t eff = dilated_extent(o.dilation[d], ws[d + 2], op);
    if (eff > padded)
      throw ShapeError(op, "kernel " + dims_text(std::vector<int64_t>(ws.dims().begin() + 2, ws.dims().end())) +
                               " (dilated extent " + std::to_string(eff) + ") is larger than the padded input (" +
                               std::to_string(padded) + ") on spatial dim " + std::to_string(d) + " of input " +
                               xs.to_string());
    out.push_back((padded - eff) / o.stride[d] + 1);
  }
  check_output(Shape(out), x, op);
  return Shape(out);
}

// Normalises `o` in place and returns the output shape of conv_transpose(x, w).
Shape conv_transpose_shape(const H& x, const H& w, ConvTransposeOptions& o, const char* op) {
  check_input_weight(x, w, op);
  const size_t sd = rank(x) - 2;
  o.stride = per_dim(o.stride, sd, 1, op, "stride");
  o.padding = per_dim(o.padding, sd, 0, op, "padding");
  o.padding_out = per_dim(o.padding_out, sd, 0, op, "padding_out");
  o.dilation = per_dim(o.dilation, sd, 1, op, "dilation");
  require_positive(o.stride, op, "stride");
  require_positive(o.dilation, op, "dilation");
  require_non_negative(o.padding, op, "padding");
  require_non_negative(o.padding_out, op, "padding_out");
  if (o.groups <= 0) throw ValueError(op, "groups must be positive, got " + std::to_string(o.groups));
  const Shape &xs = shape(x), &ws = shape(w);
  if (xs[1] % o.groups != 0)
    throw ShapeError(op, "groups " + std::to_string(o.groups) + " does not divide the input's " +
                             std::to_string(xs[1]) + " channels");
  if (ws[0] != xs[1])
    throw ShapeError(op, "weight " + ws.to_string() + " ([C_in, C_out / groups, k...]) expects " +
                             std::to_string(ws[0]) + " input channels but the input " + xs.to_string() + " has " +
                             std::to_string(xs[1]));
  std::vector<int64_t> out{xs[0], checked_mul(ws[1], o.groups, op)};
  for (size_t d = 0; d < sd; ++d) {
    if (o.padding_out[d] >= std::max(o.stride[d], o.dilation[d]))
      throw ValueError(op, "padding_out " + dims_text(o.padding_out) + " must be smaller than the stride " +
                               dims_text(o.stride) + " or the dilation " + dims_text(o.dilation));
    // (in - 1) * stride - 2 * padding + dilation * (k - 1) + padding_out + 1, in 128 bits: each term
    // may be near INT64_MAX; only the result has to fit.
    const __int128 n128 = static_cast<__int128>(xs[d + 2] - 1) * o.stride[d] - 2 * static_cast<__int128>(o.padding[d]) +
                          static_cast<__int128>(o.dilation[d]) * (ws[d + 2] - 1) + o.padding_out[d] + 1;
    if (n128 > INT64_MAX)
      throw ShapeError(op, "output size on spatial dim " + std::to_string(d) + " overflows int64 (input " +
                               xs.to_string() + ", stride " + dims_text(o.stride) + ", dilation " +
                               dims_text(o.dilation) + ")");
    if (n128 <= 0)  // before narrowing: a huge padding makes it far below INT64_MIN
      throw ShapeError(op, "output size " +
                               (n128 >= INT64_MIN ? std::to_string(static_cast<int64_t>(n128)) : "below INT64_MIN") +
                               " <= 0 on spatial dim " + std::to_string(d) + " (input " + xs.to_string() + ", weight " +
                               ws.to_string() + ", padding " + dims_text(o.padding) + ")");
    out.push_back(static_cast<int64_t>(n128));
  }
  check_output(Shape(out), x, op);
  return Shape(out);
}

// Normalises `o` in place (kernel required) and returns the number of blocks per spatial dim.
std::vector<int64_t> unfold_blocks(const std::vector<int64_t>& spatial, UnfoldOptions& o, const char* op) {
  if (o.kernel.empty()) throw ValueError(op, "kernel size is required");
  o.kernel = per_dim(o.kernel, 2, 1, op, "kernel");
  o.stride = per_dim(o.stride, 2, 1, op, "stride");
  o.padding = per_dim(o.padding, 2, 0, op, "padding");
  o.dilation = per_dim(o.dilation, 2, 1, op, "dilation");
  require_positive(o.kernel, op, "kernel");
  require_positive(o.stride, op, "stride");
  require_positive(o.dilation, op, "dilation");
  require_non_negative(o.padding, op, "padding");
  std::vector<int64_t> blocks(2);
  for (size_t d = 0; d < 2; ++d) {
    const int64_t padded = checked_add(spatial[d], checked_mul(2, o.padding[d], op), op);
    const int64_t eff = dilated_extent(o.dilation[d], o.kernel[d], op);
    if (eff > padded)
      throw ShapeError(op, "kernel " + dims_text(o.kernel) + " (dilated extent " + std::to_string(eff) +
                               ") is larger than the padded size " + std::to_string(padded) + " of spatial dims " +
                               dims_text(spatial));
    blocks[d] = (padded - eff) / o.stride[d] + 1;
  }
  return blocks;
}

}  // namespace

H conv(H x, const H& weight, const OptH& bias, const ConvOptions& options) {
  static constexpr const char* op = "conv";
  ConvOptions o = options;
  conv_shape(x, weight, o, op);
  check_bias(x, bias, shape(weight)[0], op);
  Backend& b = be(x, op);
  return with(x, b.conv(std::move(x.prim), weight.prim, bias ? bias->prim : Prim{}, o));
}

Hs conv_backward(H x, const H& weight, const H& grad_out, const ConvOptions& options, bool bias_grad) {
  static constexpr const char* op = "conv_backward";
  ConvOptions o = options;
  const Shape out = conv_shape(x, weight, o, op);
  check_grad_out(x, grad_out, out, op);
  Backend& b = be(x, op);
  const Device dev = x.device;
  Prims r = b.conv_backward(std::move(x.prim), weight.prim, grad_out.prim, o, bias_grad);
  Hs hs;
  for (size_t i = 0; i < 3; ++i) hs.push_back(H{dev, i < r.size() ? r[i] : Prim{}});
  if (!bias_grad) hs[2].prim.reset();
  return hs;
}

H conv_transpose(H x, const H& weight, const OptH& bias, const ConvTransposeOptions& options) {
  static constexpr const char* op = "conv_transpose";
  ConvTransposeOptions o = options;
  const Shape out = conv_transpose_shape(x, weight, o, op);
  check_bias(x, bias, out[1], op);
  Backend& b = be(x, op);
  return with(x, b.conv_transpose(std::move(x.prim), weight.prim, bias ? bias->prim : Prim{}, o));
}

Hs conv_transpose_backward(H x, const H& weight, const H& grad_out, const ConvTransposeOptions& options,
                           bool bias_grad) {
  static constexpr const char* op = "conv_transpose_backward";
  ConvTransposeOptions o = options;
  const Shape out = conv_transpose_shape(x, weight, o, op);
  check_grad_out(x, grad_out, out, op);
  Backend& b = be(x, op);
  const Device dev = x.device;
  Prims r = b.conv_transpose_backward(std::move(x.prim), weight.prim, grad_out.prim, o, bias_grad);
  Hs hs;
  for (size_t i = 0; i < 3; ++i) hs.push_back(H{dev, i < r.size() ? r[i] : Prim{}});
  if (!bias_grad) hs[2].prim.reset();
  return hs;
}

H deform_conv2d(H x, const H& offset, const H& weight, const OptH& mask, const OptH& bias,
                const DeformConvOptions& options) {
  static constexpr const char* op = "deform_conv2d";
  check_input_weight(x, weight, op, 4, 4);
  same_device(x, offset, op);
  if (offset.prim->dtype() != x.prim->dtype())
    throw DTypeError(op, "offset is " + dt(offset.prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
  DeformConvOptions o = options;
  o.stride = per_dim(o.stride, 2, 1, op, "stride");
  o.padding = per_dim(o.padding, 2, 0, op, "padding");
  o.dilation = per_dim(o.dilation, 2, 1, op, "dilation");
  require_positive(o.stride, op, "stride");
  require_positive(o.dilation, op, "dilation");
  require_non_negative(o.padding, op, "padding");
  if (o.weight_groups <= 0 || o.offset_groups <= 0)
    throw ValueError(op, "weight_groups " + std::to_string(o.weight_groups) + " and offset_groups " +
                             std::to_string(o.offset_groups) + " must be positive");
  const Shape &xs = shape(x), &ws = shape(weight);
  const int64_t c = xs[1], kh = ws[2], kw = ws[3];
  if (c % o.weight_groups != 0 || ws[0] % o.weight_groups != 0)
    throw ShapeError(op, "weight_groups " + std::to_string(o.weight_groups) + " must divide the input's " +
                             std::to_string(c) + " and the weight's " + std::to_string(ws[0]) + " channels");
  if (c % o.offset_groups != 0)
    throw ShapeError(op, "offset_groups " + std::to_string(o.offset_groups) + " does not divide the input's " +
                             std::to_string(c) + " channels");
  if (checked_mul(ws[1], o.weight_groups, op) != c)
    throw ShapeError(op, "weight " + ws.to_string() + " expects " + std::to_string(ws[1] * o.weight_groups) +
                             " input channels (weight_groups " + std::to_string(o.weight_groups) + ") but the input " +
                             xs.to_string() + " has " + std::to_string(c));
  std::vector<int64_t> out_hw(2);
  for (size_t d = 0; d < 2; ++d) {
    const int64_t padded = checked_add(xs[d + 2], checked_mul(2, o.padding[d], op), op);
    const int64_t eff = dilated_extent(o.dilation[d], ws[d + 2], op);
    if (eff > padded)
      throw ShapeError(op, "kernel [" + std::to_string(kh) + ", " + std::to_string(kw) +
                               "] is larger than the padded input " + std::to_string(padded) + " on spatial dim " +
                               std::to_string(d));
    out_hw[d] = (padded - eff) / o.stride[d] + 1;
  }
  const int64_t taps = checked_mul(checked_mul(o.offset_groups, kh, op), kw, op);
  check_output(Shape{xs[0], ws[0], out_hw[0], out_hw[1]}, x, op);
  const Shape want_off{xs[0], checked_mul(2, taps, op), out_hw[0], out_hw[1]};
  if (shape(offset) != want_off)
    throw ShapeError(op, "offset " + shape(offset).to_string() + " must be " + want_off.to_string() +
                             " ([N, 2 * offset_groups * kh * kw, H_out, W_out])");
  if (mask) {
    same_device(x, *mask, op);
    if (mask->prim->dtype() != x.prim->dtype())
      throw DTypeError(op, "mask is " + dt(mask->prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
    const Shape want_mask{xs[0], taps, out_hw[0], out_hw[1]};
    if (shape(*mask) != want_mask)
      throw ShapeError(op, "mask " + shape(*mask).to_string() + " must be " + want_mask.to_string() +
                               " ([N, offset_groups * kh * kw, H_out, W_out])");
  }
  check_bias(x, bias, ws[0], op);
  Backend& b = be(x, op);
  return with(x, b.deform_conv2d(std::move(x.prim), offset.prim, weight.prim, mask ? mask->prim : Prim{},
                                 bias ? bias->prim : Prim{}, o));
}

H unfold(H x, const UnfoldOptions& options) {
  static constexpr const char* op = "unfold";
  Backend& b = be(x, op);
  require_float(x, op);
  if (rank(x) != 4) throw ShapeError(op, "input must be [N, C, H, W], got shape " + shape(x).to_string());
  UnfoldOptions o = options;
  const std::vector<int64_t> blocks = unfold_blocks({shape(x)[2], shape(x)[3]}, o, op);
  const int64_t rows = checked_mul(shape(x)[1], checked_mul(o.kernel[0], o.kernel[1], op), op);
  check_output(Shape{shape(x)[0], rows, checked_mul(blocks[0], blocks[1], op)}, x, op);
  return with(x, b.unfold(std::move(x.prim), o));
}

H fold(H cols, const std::vector<int64_t>& output_size, const UnfoldOptions& options) {
  static constexpr const char* op = "fold";
  Backend& b = be(cols, op);
  require_float(cols, op);
  if (rank(cols) != 3) throw ShapeError(op, "input must be [N, C * kh * kw, L], got shape " + shape(cols).to_string());
  const std::vector<int64_t> size = per_dim(output_size, 2, 0, op, "output_size");
  require_positive(size, op, "output_size");
  UnfoldOptions o = options;
  const std::vector<int64_t> blocks = unfold_blocks(size, o, op);
  const Shape& cs = shape(cols);
  const int64_t k = checked_mul(o.kernel[0], o.kernel[1], op);
  if (cs[1] % k != 0)
    throw ShapeError(op, "dim 1 of the input " + cs.to_string() + " is not divisible by the kernel's " +
                             std::to_string(k) + " positions " + dims_text(o.kernel));
  check_output(Shape{cs[0], cs[1] / k, size[0], size[1]}, cols, op);
  if (cs[2] != checked_mul(blocks[0], blocks[1], op))
    throw ShapeError(op, "the input " + cs.to_string() + " has " + std::to_string(cs[2]) + " blocks but output_size " +
                             dims_text(size) + " with these options gives " + std::to_string(blocks[0] * blocks[1]));
  return with(cols, b.fold(std::move(cols.prim), Shape(size), o));
}

}  // namespace burn::api
