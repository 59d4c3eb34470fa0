// Shape rules of the conv group: conv, conv_transpose, deform_conv2d, unfold (im2col) and fold
// (col2im), with their options normalised in place (the backward ops share their forward's rule).
#include <algorithm>
#include <initializer_list>
#include <utility>

#include "check.hpp"

namespace burn::shape_rules {
using namespace detail;

namespace {

// x and weight of one rank in [min_rank, max_rank], a kernel with no empty dim.
bool input_weight(const Shape& x, const Shape& w, size_t min_rank, size_t max_rank, const Check& c) {
  if (x.rank() < min_rank || x.rank() > max_rank)
    return c.refuse<ShapeError>([&] {
      return "input must have rank " + str(static_cast<int64_t>(min_rank)) +
             (min_rank == max_rank ? "" : " to " + str(static_cast<int64_t>(max_rank))) +
             " ([N, C, spatial...]), got shape " + x.to_string();
    });
  if (w.rank() != x.rank())
    return c.refuse<ShapeError>(
        [&] { return "weight " + w.to_string() + " must have the rank of the input " + x.to_string(); });
  for (size_t d = 2; d < w.rank(); ++d)
    if (w[d] <= 0) return c.refuse<ShapeError>([&] { return "weight " + w.to_string() + " has an empty kernel"; });
  return true;
}

bool bias_of(const Shape* bias, int64_t channels, const Check& c) {
  if (!bias || (bias->rank() == 1 && (*bias)[0] == channels)) return true;
  return c.refuse<ShapeError>([&] { return "bias " + bias->to_string() + " must be [" + str(channels) + "]"; });
}

// "groups G does not divide the <whose> <channels> <noun>".
bool groups_divide(int64_t groups, int64_t channels, const char* whose, const char* noun, const Check& c) {
  if (channels % groups == 0) return true;
  return c.refuse<ShapeError>(
      [&] { return "groups " + str(groups) + " does not divide the " + whose + " " + str(channels) + " " + noun; });
}

std::vector<int64_t> kernel_of(const Shape& w) { return {w.dims().begin() + 2, w.dims().end()}; }

// The per-spatial-dim lists of a conv-like op normalised to n values and checked: stride and
// dilation positive (default 1), each padding non-negative (default 0).
bool spatial_lists(size_t n, std::vector<int64_t>& stride, std::vector<int64_t>& dilation,
                   std::initializer_list<std::pair<std::vector<int64_t>*, const char*>> paddings, const Check& c) {
  if (!per_dim(stride, n, 1, "stride", c)) return false;
  for (const auto& [pad, what] : paddings)
    if (!per_dim(*pad, n, 0, what, c)) return false;
  if (!per_dim(dilation, n, 1, "dilation", c) || !positive(stride, "stride", c) || !positive(dilation, "dilation", c))
    return false;
  for (const auto& [pad, what] : paddings)
    if (!non_negative(*pad, what, c)) return false;
  return true;
}

std::optional<Shape> conv_rule(const Shape& xs, const Shape& ws, const Shape* bias, ConvOptions& o, const Check& c) {
  if (!input_weight(xs, ws, 3, 5, c)) return std::nullopt;
  const size_t sd = xs.rank() - 2;
  if (o.padding_end.empty()) o.padding_end = o.padding;
  if (!spatial_lists(sd, o.stride, o.dilation, {{&o.padding, "padding"}, {&o.padding_end, "padding_end"}}, c))
    return std::nullopt;
  if (o.groups <= 0) return c.fail<ValueError>([&] { return "groups must be positive, got " + str(o.groups); });
  if (!groups_divide(o.groups, xs[1], "input's", "channels", c) ||
      !groups_divide(o.groups, ws[0], "weight's", "output channels", c))
    return std::nullopt;
  int64_t in_channels = 0;
  if (!c.mul(ws[1], o.groups, in_channels)) return std::nullopt;
  if (in_channels != xs[1])
    return c.fail<ShapeError>([&] {
      return "weight " + ws.to_string() + " expects " + str(in_channels) + " input channels (groups " + str(o.groups) +
             ") but the input " + xs.to_string() + " has " + str(xs[1]);
    });
  std::vector<int64_t> out{xs[0], ws[0]};
  for (size_t d = 0; d < sd; ++d) {
    int64_t pads = 0, padded = 0, eff = 0;
    if (!c.add(o.padding[d], o.padding_end[d], pads) || !c.add(xs[d + 2], pads, padded) ||
        !dilated_extent(o.dilation[d], ws[d + 2], eff, c))
      return std::nullopt;
    if (eff > padded)
      return c.fail<ShapeError>([&] {
        return "kernel " + dims_text(kernel_of(ws)) + " (dilated extent " + str(eff) +
               ") is larger than the padded input (" + str(padded) + ") on spatial dim " +
               str(static_cast<int64_t>(d)) + " of input " + xs.to_string();
      });
    out.push_back((padded - eff) / o.stride[d] + 1);
  }
  Shape shape(std::move(out));
  if (!c.countable(shape) || !bias_of(bias, ws[0], c)) return std::nullopt;
  return shape;
}

std::optional<Shape> conv_transpose_rule(const Shape& xs, const Shape& ws, const Shape* bias, ConvTransposeOptions& o,
                                         const Check& c) {
  if (!input_weight(xs, ws, 3, 5, c)) return std::nullopt;
  const size_t sd = xs.rank() - 2;
  if (!spatial_lists(sd, o.stride, o.dilation, {{&o.padding, "padding"}, {&o.padding_out, "padding_out"}}, c))
    return std::nullopt;
  if (o.groups <= 0) return c.fail<ValueError>([&] { return "groups must be positive, got " + str(o.groups); });
  if (!groups_divide(o.groups, xs[1], "input's", "channels", c)) return std::nullopt;
  if (ws[0] != xs[1])
    return c.fail<ShapeError>([&] {
      return "weight " + ws.to_string() + " ([C_in, C_out / groups, k...]) expects " + str(ws[0]) +
             " input channels but the input " + xs.to_string() + " has " + str(xs[1]);
    });
  std::vector<int64_t> out{xs[0], 0};
  if (!c.mul(ws[1], o.groups, out[1])) return std::nullopt;
  for (size_t d = 0; d < sd; ++d) {
    if (o.padding_out[d] >= std::max(o.stride[d], o.dilation[d]))
      return c.fail<ValueError>([&] {
        return "padding_out " + dims_text(o.padding_out) + " must be smaller than the stride " + dims_text(o.stride) +
               " or the dilation " + dims_text(o.dilation);
      });
    // (in - 1) * stride - 2 * padding + dilation * (k - 1) + padding_out + 1, in 128 bits: each term
    // may be near INT64_MAX; only the result has to fit.
    const __int128 n = static_cast<__int128>(xs[d + 2] - 1) * o.stride[d] - 2 * static_cast<__int128>(o.padding[d]) +
                       static_cast<__int128>(o.dilation[d]) * (ws[d + 2] - 1) + o.padding_out[d] + 1;
    if (n > INT64_MAX)
      return c.fail<ShapeError>([&] {
        return "output size on spatial dim " + str(static_cast<int64_t>(d)) + " overflows int64 (input " +
               xs.to_string() + ", stride " + dims_text(o.stride) + ", dilation " + dims_text(o.dilation) + ")";
      });
    if (n <= 0)  // before narrowing: a huge padding makes it far below INT64_MIN
      return c.fail<ShapeError>([&] {
        return "output size " + (n >= INT64_MIN ? str(static_cast<int64_t>(n)) : std::string("below INT64_MIN")) +
               " <= 0 on spatial dim " + str(static_cast<int64_t>(d)) + " (input " + xs.to_string() + ", weight " +
               ws.to_string() + ", padding " + dims_text(o.padding) + ")";
      });
    out.push_back(static_cast<int64_t>(n));
  }
  Shape shape(std::move(out));
  if (!c.countable(shape) || !bias_of(bias, shape[1], c)) return std::nullopt;
  return shape;
}

}  // namespace

Shape conv(const Shape& x, const Shape& weight, const Shape* bias, ConvOptions& options, const char* op) {
  return raised(conv_rule(x, weight, bias, options, {op, true}));
}

std::optional<Shape> try_conv(const Shape& x, const Shape& weight, const Shape* bias, ConvOptions& options) {
  return conv_rule(x, weight, bias, options, {"conv", false});
}

Shape conv_transpose(const Shape& x, const Shape& weight, const Shape* bias, ConvTransposeOptions& options,
                     const char* op) {
  return raised(conv_transpose_rule(x, weight, bias, options, {op, true}));
}

std::optional<Shape> try_conv_transpose(const Shape& x, const Shape& weight, const Shape* bias,
                                        ConvTransposeOptions& options) {
  return conv_transpose_rule(x, weight, bias, options, {"conv_transpose", false});
}

Shape deform_conv2d(const Shape& xs, const Shape& offset, const Shape& ws, const Shape* mask, const Shape* bias,
                    DeformConvOptions& o, const char* op) {
  const Check c{op, true};
  input_weight(xs, ws, 4, 4, c);
  spatial_lists(2, o.stride, o.dilation, {{&o.padding, "padding"}}, c);
  if (o.weight_groups <= 0 || o.offset_groups <= 0)
    throw ValueError(op, "weight_groups " + str(o.weight_groups) + " and offset_groups " + str(o.offset_groups) +
                             " must be positive");
  const int64_t ch = xs[1], kh = ws[2], kw = ws[3];
  if (ch % o.weight_groups != 0 || ws[0] % o.weight_groups != 0)
    throw ShapeError(op, "weight_groups " + str(o.weight_groups) + " must divide the input's " + str(ch) +
                             " and the weight's " + str(ws[0]) + " channels");
  if (ch % o.offset_groups != 0)
    throw ShapeError(op,
                     "offset_groups " + str(o.offset_groups) + " does not divide the input's " + str(ch) + " channels");
  if (checked_mul(ws[1], o.weight_groups, op) != ch)
    throw ShapeError(op, "weight " + ws.to_string() + " expects " + str(ws[1] * o.weight_groups) +
                             " input channels (weight_groups " + str(o.weight_groups) + ") but the input " +
                             xs.to_string() + " has " + str(ch));
  std::vector<int64_t> out_hw(2);
  for (size_t d = 0; d < 2; ++d) {
    int64_t eff = 0;
    const int64_t padded = checked_add(xs[d + 2], checked_mul(2, o.padding[d], op), op);
    dilated_extent(o.dilation[d], ws[d + 2], eff, c);
    if (eff > padded)
      throw ShapeError(op, "kernel [" + str(kh) + ", " + str(kw) + "] is larger than the padded input " + str(padded) +
                               " on spatial dim " + str(static_cast<int64_t>(d)));
    out_hw[d] = (padded - eff) / o.stride[d] + 1;
  }
  const int64_t taps = checked_mul(checked_mul(o.offset_groups, kh, op), kw, op);
  Shape out{xs[0], ws[0], out_hw[0], out_hw[1]};
  checked_num_elements(out, op);
  const Shape want_off{xs[0], checked_mul(2, taps, op), out_hw[0], out_hw[1]};
  if (offset != want_off)
    throw ShapeError(op, "offset " + offset.to_string() + " must be " + want_off.to_string() +
                             " ([N, 2 * offset_groups * kh * kw, H_out, W_out])");
  const Shape want_mask{xs[0], taps, out_hw[0], out_hw[1]};
  if (mask && *mask != want_mask)
    throw ShapeError(op, "mask " + mask->to_string() + " must be " + want_mask.to_string() +
                             " ([N, offset_groups * kh * kw, H_out, W_out])");
  bias_of(bias, ws[0], c);
  return out;
}

std::vector<int64_t> unfold_blocks(const std::vector<int64_t>& spatial, UnfoldOptions& o, const char* op) {
  const Check c{op, true};
  if (o.kernel.empty()) throw ValueError(c.op(), "kernel size is required");
  per_dim(o.kernel, 2, 1, "kernel", c);
  positive(o.kernel, "kernel", c);
  spatial_lists(2, o.stride, o.dilation, {{&o.padding, "padding"}}, c);
  std::vector<int64_t> blocks(2);
  for (size_t d = 0; d < 2; ++d) {
    int64_t eff = 0;
    const int64_t padded = checked_add(spatial[d], checked_mul(2, o.padding[d], c.op()), c.op());
    dilated_extent(o.dilation[d], o.kernel[d], eff, c);
    if (eff > padded)
      throw ShapeError(c.op(), "kernel " + dims_text(o.kernel) + " (dilated extent " + str(eff) +
                                   ") is larger than the padded size " + str(padded) + " of spatial dims " +
                                   dims_text(spatial));
    blocks[d] = (padded - eff) / o.stride[d] + 1;
  }
  return blocks;
}

Shape unfold(const Shape& x, UnfoldOptions& options, const char* op) {
  if (x.rank() != 4) throw ShapeError(op, "input must be [N, C, H, W], got shape " + x.to_string());
  const std::vector<int64_t> blocks = unfold_blocks({x[2], x[3]}, options, op);
  const int64_t rows = checked_mul(x[1], checked_mul(options.kernel[0], options.kernel[1], op), op);
  Shape out{x[0], rows, checked_mul(blocks[0], blocks[1], op)};
  checked_num_elements(out, op);
  return out;
}

Shape fold(const Shape& cols, const std::vector<int64_t>& output_size, UnfoldOptions& options, const char* op) {
  const Check c{op, true};
  if (cols.rank() != 3) throw ShapeError(op, "input must be [N, C * kh * kw, L], got shape " + cols.to_string());
  std::vector<int64_t> size = output_size;
  per_dim(size, 2, 0, "output_size", c);
  positive(size, "output_size", c);
  const std::vector<int64_t> blocks = unfold_blocks(size, options, op);
  const int64_t k = checked_mul(options.kernel[0], options.kernel[1], op);
  if (cols[1] % k != 0)
    throw ShapeError(op, "dim 1 of the input " + cols.to_string() + " is not divisible by the kernel's " + str(k) +
                             " positions " + dims_text(options.kernel));
  Shape out{cols[0], cols[1] / k, size[0], size[1]};
  checked_num_elements(out, op);
  if (cols[2] != checked_mul(blocks[0], blocks[1], op))
    throw ShapeError(op, "the input " + cols.to_string() + " has " + str(cols[2]) + " blocks but output_size " +
                             dims_text(size) + " with these options gives " + str(blocks[0] * blocks[1]));
  return out;
}

}  // namespace burn::shape_rules
