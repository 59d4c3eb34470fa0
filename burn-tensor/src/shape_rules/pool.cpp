// Shape rules of the pool group: max and average pools (PyTorch's output lengths, ceil_mode
// included) and the adaptive pools, with their options normalised in place.
#include "check.hpp"

namespace burn::shape_rules {
using namespace detail;

int64_t pool_out_len(int64_t in, int64_t kernel, int64_t stride, int64_t padding, int64_t padding_end, int64_t dilation,
                     bool ceil_mode) {
  // In 128 bits: the rule bounds the dilated kernel, but a stride near INT64_MAX still overflows span + s.
  const __int128 span =
      static_cast<__int128>(in) + padding + padding_end - static_cast<__int128>(dilation) * (kernel - 1) - 1;
  __int128 out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // the last window must start inside the input or the leading padding
  if (ceil_mode && (out - 1) * stride >= static_cast<__int128>(in) + padding) --out;
  return static_cast<int64_t>(out);  // <= span + 1; the rule refuses results <= 0
}

Shape pool(const Shape& x, PoolOptions& o, bool max, const char* op) {
  const Check c{op, true};
  const size_t n = nonempty_planes(x, op);
  if (o.kernel.empty()) throw ValueError(op, "kernel size is required");
  per_dim(o.kernel, n, 1, "kernel", c);
  positive(o.kernel, "kernel", c);
  if (o.stride.empty()) o.stride = o.kernel;
  per_dim(o.stride, n, 1, "stride", c);
  positive(o.stride, "stride", c);
  per_dim(o.padding, n, 0, "padding", c);
  non_negative(o.padding, "padding", c);
  if (o.padding_end.empty()) o.padding_end = o.padding;
  per_dim(o.padding_end, n, 0, "padding_end", c);
  non_negative(o.padding_end, "padding_end", c);
  per_dim(o.dilation, n, 1, "dilation", c);
  positive(o.dilation, "dilation", c);
  if (!max)
    for (int64_t d : o.dilation)
      if (d != 1) throw ValueError(op, "average pools take no dilation, got " + dims_text(o.dilation));
  for (size_t i = 0; i < n; ++i) {
    int64_t eff = 0;
    dilated_extent(o.dilation[i], o.kernel[i], eff, c);
    if (o.padding[i] > eff / 2 || o.padding_end[i] > eff / 2)
      throw ValueError(op, "padding " + dims_text(o.padding) + " / " + dims_text(o.padding_end) +
                               " must be at most half of the (dilated) kernel " + dims_text(o.kernel));
    const int64_t in = checked_add(x[i + 2], checked_add(o.padding[i], o.padding_end[i], op), op);
    if (eff > in)
      throw ShapeError(op, "kernel " + dims_text(o.kernel) + " (dilation " + dims_text(o.dilation) +
                               ") is larger than the padded input " + x.to_string());
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < n; ++i) {
    const int64_t len =
        pool_out_len(x[i + 2], o.kernel[i], o.stride[i], o.padding[i], o.padding_end[i], o.dilation[i], o.ceil_mode);
    if (len <= 0) throw ShapeError(op, "input " + x.to_string() + " gives an empty output");
    out.push_back(len);
  }
  Shape shape = nc_with(x, out);
  checked_num_elements(shape, op);
  return shape;
}

Shape adaptive_pool(const Shape& x, const std::vector<int64_t>& output_size, const char* op) {
  const Shape shape = resized(x, output_size, op);
  // Adaptive windows are [o * in / out, ((o + 1) * in + out - 1) / out): that must fit int64.
  for (size_t i = 0; i < output_size.size(); ++i)
    checked_mul(checked_add(output_size[i], 1, op), checked_add(x[i + 2], 1, op), op);
  return shape;
}

}  // namespace burn::shape_rules
