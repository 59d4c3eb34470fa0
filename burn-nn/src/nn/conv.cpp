// Conv1d/2d/3d and ConvTranspose1d/2d/3d: configs, PaddingConfig resolution, init and forward.
#include "burn/nn/conv.hpp"

#include <cmath>
#include <sstream>

#include "burn/tensor/module.hpp"
#include "layer_common.hpp"

namespace burn::nn {

namespace {
const char* padding_kind_name(PaddingConfig::Kind k) {
  switch (k) {
    case PaddingConfig::Kind::Same: return "same";
    case PaddingConfig::Kind::Explicit: return "explicit";
    default: return "valid";
  }
}
}  // namespace

void to_json(nlohmann::json& j, const PaddingConfig& p) {
  j = {{"kind", padding_kind_name(p.kind)}, {"start", p.start}, {"end", p.end}};
}

void from_json(const nlohmann::json& j, PaddingConfig& p) {
  const std::string kind = j.at("kind").get<std::string>();
  if (kind == "valid")
    p.kind = PaddingConfig::Kind::Valid;
  else if (kind == "same")
    p.kind = PaddingConfig::Kind::Same;
  else if (kind == "explicit")
    p.kind = PaddingConfig::Kind::Explicit;
  else
    throw ValueError("PaddingConfig", "unknown padding kind '" + kind + "' (valid, same, explicit)");
  p.start = j.value("start", std::vector<int64_t>{});
  p.end = j.value("end", std::vector<int64_t>{});
}

BURN_CONFIG_JSON(Conv1dConfig, channels_in, channels_out, kernel_size, stride, dilation, groups, padding, bias,
                 initializer)
BURN_CONFIG_JSON(Conv2dConfig, channels, kernel_size, stride, dilation, groups, padding, bias, initializer)
BURN_CONFIG_JSON(Conv3dConfig, channels, kernel_size, stride, dilation, groups, padding, bias, initializer)
BURN_CONFIG_JSON(ConvTranspose1dConfig, channels, kernel_size, stride, dilation, groups, padding, padding_out, bias,
                 initializer)
BURN_CONFIG_JSON(ConvTranspose2dConfig, channels, kernel_size, stride, dilation, groups, padding, padding_out, bias,
                 initializer)
BURN_CONFIG_JSON(ConvTranspose3dConfig, channels, kernel_size, stride, dilation, groups, padding, padding_out, bias,
                 initializer)
BURN_CONFIG_JSON(Unfold4dConfig, kernel_size, stride, dilation, padding)
BURN_CONFIG_JSON(Fold4dConfig, output_size, kernel_size, stride, dilation, padding)
BURN_CONFIG_JSON(PixelShuffleConfig, upscale_factor)
BURN_CONFIG_JSON(PixelUnshuffleConfig, downscale_factor)

namespace detail {

std::string list_string(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string num_string(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  double back = 0;
  for (int p = 1; p <= 17; ++p) {  // the shortest form that reads back as v
    std::ostringstream t;
    t.precision(p);
    t << v;
    std::istringstream(t.str()) >> back;
    if (back == v) return t.str();
  }
  return s.str();
}

void check_positive(const char* op, const char* what, const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x <= 0) throw ValueError(op, std::string(what) + " must be positive, got " + list_string(v));
}

void check_non_negative(const char* op, const char* what, const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x < 0) throw ValueError(op, std::string(what) + " must not be negative, got " + list_string(v));
}

void check_rank(const char* layer, const TensorHandle& x, size_t rank, const char* layout) {
  const Shape s = x.prim ? x.prim->shape() : Shape{};
  if (s.rank() != rank)
    throw ShapeError(layer, "expected a " + std::to_string(rank) + "-D input " + layout + ", got " + s.to_string());
}

void check_window_fits(const char* layer, const Shape& x, const std::vector<int64_t>& kernel,
                       const std::vector<int64_t>& dilation, const std::vector<int64_t>& start,
                       const std::vector<int64_t>& end) {
  const size_t n = kernel.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t extent = (dilation.empty() ? 1 : dilation[i]) * (kernel[i] - 1) + 1;
    if (x[x.rank() - n + i] + start[i] + end[i] < extent)
      throw ShapeError(layer, "input " + x.to_string() + " is smaller than the kernel " + list_string(kernel) +
                                  " (dilated and padded) in spatial dim " + std::to_string(i));
  }
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> resolve_padding(const PaddingConfig& padding, const char* layer,
                                                                      const Shape& input,
                                                                      const std::vector<int64_t>& kernel,
                                                                      const std::vector<int64_t>& stride,
                                                                      const std::vector<int64_t>& dilation) {
  const size_t n = kernel.size();
  std::vector<int64_t> start(n, 0), end(n, 0);
  if (padding.kind == PaddingConfig::Kind::Same) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t in = input[input.rank() - n + i];
      const int64_t out = (in + stride[i] - 1) / stride[i];
      const int64_t extent = dilation[i] * (kernel[i] - 1) + 1;
      const int64_t total = std::max<int64_t>((out - 1) * stride[i] + extent - in, 0);
      start[i] = total / 2;
      end[i] = total - start[i];
    }
  } else if (padding.kind == PaddingConfig::Kind::Explicit) {
    auto per_dim = [&](const std::vector<int64_t>& v, const char* what) {
      if (v.size() != 1 && v.size() != n)
        throw ValueError(layer, std::string("explicit padding ") + what + " needs 1 or " + std::to_string(n) +
                                    " values, got " + list_string(v));
      check_non_negative(layer, "padding", v);
      return v.size() == 1 ? std::vector<int64_t>(n, v[0]) : v;
    };
    start = per_dim(padding.start, "start");
    end = padding.end.empty() ? start : per_dim(padding.end, "end");
  }
  return {start, end};
}

namespace {

std::string padding_repr(const PaddingConfig& p) {
  if (p.kind != PaddingConfig::Kind::Explicit) return padding_kind_name(p.kind);
  return list_string(p.start) + (p.end.empty() ? "" : " to " + list_string(p.end));
}

// The weight a quantized layer convolves with: its QTensor dequantized on x's device, in x's float dtype.
TensorHandle dequantized_weight(const QTensor& q, const TensorHandle& x) {
  const QTensor w = q.device() != x.device ? q.to_device(x.device) : q;
  return w.dequantize_handle(is_float(x.prim->dtype()) ? x.prim->dtype() : DType::F32);
}

TensorHandle conv_forward(const char* layer, const TensorHandle& x, const ParamBase& weight,
                          const std::optional<QTensor>& quantized, const std::optional<Param<Tensor<1>>>& bias,
                          const std::vector<int64_t>& stride, const std::vector<int64_t>& dilation, int64_t groups,
                          const PaddingConfig& padding) {
  const Shape& w = weight.shape();
  check_rank(layer, x, w.rank(), "[batch, channels, spatial...]");
  const Shape& s = x.prim->shape();
  if (s[1] != w[1] * groups)
    throw ShapeError(layer, "input " + s.to_string() + " has " + std::to_string(s[1]) + " channels, expected " +
                                std::to_string(w[1] * groups));
  const std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  auto [start, end] = resolve_padding(padding, layer, s, kernel, stride, dilation);
  check_window_fits(layer, s, kernel, dilation, start, end);
  ConvOptions o{stride, start, end, dilation, groups};
  return api::conv(x, quantized ? dequantized_weight(*quantized, x) : weight.handle(),
                   bias ? api::OptH(bias->handle()) : std::nullopt, o);
}

TensorHandle conv_transpose_forward(const char* layer, const TensorHandle& x, const ParamBase& weight,
                                    const std::optional<Param<Tensor<1>>>& bias, const ConvTransposeOptions& o) {
  const Shape& w = weight.shape();
  check_rank(layer, x, w.rank(), "[batch, channels, spatial...]");
  const Shape& s = x.prim->shape();
  if (s[1] != w[0])
    throw ShapeError(layer, "input " + s.to_string() + " has " + std::to_string(s[1]) + " channels, expected " +
                                std::to_string(w[0]));
  return api::conv_transpose(x, weight.handle(), bias ? api::OptH(bias->handle()) : std::nullopt, o);
}

std::string conv_repr(const ParamBase& weight, bool bias, int64_t groups, const std::vector<int64_t>& stride,
                      const std::vector<int64_t>& dilation, const std::string& padding, bool transposed) {
  const Shape& w = weight.shape();
  const int64_t c_in = transposed ? w[0] : w[1] * groups, c_out = transposed ? w[1] * groups : w[0];
  return "channels=[" + std::to_string(c_in) + ", " + std::to_string(c_out) +
         "], kernel_size=" + list_string(std::vector<int64_t>(w.dims().begin() + 2, w.dims().end())) +
         ", stride=" + list_string(stride) + ", dilation=" + list_string(dilation) +
         ", groups=" + std::to_string(groups) + ", padding=" + padding + ", bias=" + (bias ? "true" : "false");
}

// The weight [out, in / groups, k...] (transposed: [in, out / groups, k...]) and bias, PyTorch's fans.
template <class Layer, size_t D>
void init_conv(Layer& l, const char* op, int64_t c_in, int64_t c_out, const std::vector<int64_t>& kernel,
               const std::vector<int64_t>& stride, const std::vector<int64_t>& dilation, int64_t groups, bool bias,
               const Initializer& init, const Device& device, bool transposed) {
  check_positive(op, "channels", {c_in, c_out});
  check_positive(op, "kernel_size", kernel);
  check_positive(op, "stride", stride);
  check_positive(op, "dilation", dilation);
  if (groups <= 0 || c_in % groups != 0 || c_out % groups != 0)
    throw ValueError(op, "groups " + std::to_string(groups) + " must be positive and divide both channels " +
                             std::to_string(c_in) + " and " + std::to_string(c_out));
  int64_t k = 1;
  for (int64_t v : kernel) k *= v;
  std::vector<int64_t> dims =
      transposed ? std::vector<int64_t>{c_in, c_out / groups} : std::vector<int64_t>{c_out, c_in / groups};
  dims.insert(dims.end(), kernel.begin(), kernel.end());
  const int64_t fan_in = (transposed ? c_out : c_in) / groups * k;
  const int64_t fan_out = (transposed ? c_in : c_out) / groups * k;
  l.weight = Param<Tensor<D>>(init.template init<D>(Shape(dims), device, fan_in, fan_out));
  if (bias) l.bias = Param<Tensor<1>>(init.template init<1>(Shape{c_out}, device, fan_in, fan_out));
  l.stride = stride;
  l.dilation = dilation;
  l.groups = groups;
}

}  // namespace
}  // namespace detail

#define BURN_NN_CONV_IMPL(Name, D)                                                                                   \
  Tensor<D> Name::forward(const Tensor<D>& x) const {                                                                \
    return Tensor<D>(                                                                                                \
        detail::conv_forward(#Name, x.handle(), weight, quantized_weight, bias, stride, dilation, groups, padding)); \
  }                                                                                                                  \
  std::string Name::extra_repr() const {                                                                             \
    return detail::conv_repr(weight, bias.has_value(), groups, stride, dilation, detail::padding_repr(padding),      \
                             false) +                                                                                \
           (quantized_weight ? ", quantized=" + quantized_weight->scheme().to_string() : std::string());             \
  }
BURN_NN_CONV_IMPL(Conv1d, 3)
BURN_NN_CONV_IMPL(Conv2d, 4)
BURN_NN_CONV_IMPL(Conv3d, 5)
#undef BURN_NN_CONV_IMPL

#define BURN_NN_CONV_TRANSPOSE_IMPL(Name, D)                                                                     \
  Tensor<D> Name::forward(const Tensor<D>& x) const {                                                            \
    return Tensor<D>(detail::conv_transpose_forward(                                                             \
        #Name, x.handle(), weight, bias, ConvTransposeOptions{stride, padding, padding_out, dilation, groups})); \
  }                                                                                                              \
  std::string Name::extra_repr() const {                                                                         \
    return detail::conv_repr(weight, bias.has_value(), groups, stride, dilation,                                 \
                             detail::list_string(padding) + ", padding_out=" + detail::list_string(padding_out), \
                             true);                                                                              \
  }
BURN_NN_CONV_TRANSPOSE_IMPL(ConvTranspose1d, 3)
BURN_NN_CONV_TRANSPOSE_IMPL(ConvTranspose2d, 4)
BURN_NN_CONV_TRANSPOSE_IMPL(ConvTranspose3d, 5)
#undef BURN_NN_CONV_TRANSPOSE_IMPL

Conv1d Conv1dConfig::init(const Device& device) const {
  Conv1d l;
  detail::init_conv<Conv1d, 3>(l, "Conv1dConfig::init", channels_in, channels_out, {kernel_size}, {stride}, {dilation},
                               groups, bias, initializer, device, false);
  l.padding = padding;
  return l;
}

Conv2d Conv2dConfig::init(const Device& device) const {
  Conv2d l;
  detail::init_conv<Conv2d, 4>(l, "Conv2dConfig::init", channels[0], channels[1], detail::vec(kernel_size),
                               detail::vec(stride), detail::vec(dilation), groups, bias, initializer, device, false);
  l.padding = padding;
  return l;
}

Conv3d Conv3dConfig::init(const Device& device) const {
  Conv3d l;
  detail::init_conv<Conv3d, 5>(l, "Conv3dConfig::init", channels[0], channels[1], detail::vec(kernel_size),
                               detail::vec(stride), detail::vec(dilation), groups, bias, initializer, device, false);
  l.padding = padding;
  return l;
}

namespace {
template <class Layer>
void set_transpose_padding(Layer& l, const char* op, std::vector<int64_t> padding, std::vector<int64_t> padding_out) {
  detail::check_non_negative(op, "padding", padding);
  detail::check_non_negative(op, "padding_out", padding_out);
  for (size_t i = 0; i < padding_out.size(); ++i)
    if (padding_out[i] >= std::max(l.stride[i], l.dilation[i]))
      throw ValueError(op, "padding_out " + detail::list_string(padding_out) +
                               " must be smaller than stride or dilation (PyTorch's rule)");
  l.padding = std::move(padding);
  l.padding_out = std::move(padding_out);
}
}  // namespace

ConvTranspose1d ConvTranspose1dConfig::init(const Device& device) const {
  static constexpr const char* op = "ConvTranspose1dConfig::init";
  ConvTranspose1d l;
  detail::init_conv<ConvTranspose1d, 3>(l, op, channels[0], channels[1], {kernel_size}, {stride}, {dilation}, groups,
                                        bias, initializer, device, true);
  set_transpose_padding(l, op, {padding}, {padding_out});
  return l;
}

ConvTranspose2d ConvTranspose2dConfig::init(const Device& device) const {
  static constexpr const char* op = "ConvTranspose2dConfig::init";
  ConvTranspose2d l;
  detail::init_conv<ConvTranspose2d, 4>(l, op, channels[0], channels[1], detail::vec(kernel_size), detail::vec(stride),
                                        detail::vec(dilation), groups, bias, initializer, device, true);
  set_transpose_padding(l, op, detail::vec(padding), detail::vec(padding_out));
  return l;
}

ConvTranspose3d ConvTranspose3dConfig::init(const Device& device) const {
  static constexpr const char* op = "ConvTranspose3dConfig::init";
  ConvTranspose3d l;
  detail::init_conv<ConvTranspose3d, 5>(l, op, channels[0], channels[1], detail::vec(kernel_size), detail::vec(stride),
                                        detail::vec(dilation), groups, bias, initializer, device, true);
  set_transpose_padding(l, op, detail::vec(padding), detail::vec(padding_out));
  return l;
}

// --- Unfold4d, Fold4d, PixelShuffle, PixelUnshuffle

Tensor<3> Unfold4d::forward(const Tensor<4>& x) const {
  return module::unfold(x, UnfoldOptions{kernel_size, stride, padding, dilation});
}

std::string Unfold4d::extra_repr() const {
  return "kernel_size=" + detail::list_string(kernel_size) + ", stride=" + detail::list_string(stride) +
         ", dilation=" + detail::list_string(dilation) + ", padding=" + detail::list_string(padding);
}

Unfold4d Unfold4dConfig::init() const {
  static constexpr const char* op = "Unfold4dConfig::init";
  detail::check_positive(op, "kernel_size", detail::vec(kernel_size));
  detail::check_positive(op, "stride", detail::vec(stride));
  detail::check_positive(op, "dilation", detail::vec(dilation));
  detail::check_non_negative(op, "padding", detail::vec(padding));
  return Unfold4d{detail::vec(kernel_size), detail::vec(stride), detail::vec(dilation), detail::vec(padding)};
}

Tensor<4> Fold4d::forward(const Tensor<3>& cols) const {
  return module::fold(cols, output_size, UnfoldOptions{kernel_size, stride, padding, dilation});
}

std::string Fold4d::extra_repr() const {
  return "output_size=" + detail::list_string(output_size) + ", kernel_size=" + detail::list_string(kernel_size) +
         ", stride=" + detail::list_string(stride) + ", dilation=" + detail::list_string(dilation) +
         ", padding=" + detail::list_string(padding);
}

Fold4d Fold4dConfig::init() const {
  static constexpr const char* op = "Fold4dConfig::init";
  detail::check_positive(op, "output_size", detail::vec(output_size));
  detail::check_positive(op, "kernel_size", detail::vec(kernel_size));
  detail::check_positive(op, "stride", detail::vec(stride));
  detail::check_positive(op, "dilation", detail::vec(dilation));
  detail::check_non_negative(op, "padding", detail::vec(padding));
  return Fold4d{detail::vec(output_size), detail::vec(kernel_size), detail::vec(stride), detail::vec(dilation),
                detail::vec(padding)};
}

Tensor<4> PixelShuffle::forward(const Tensor<4>& x) const { return module::pixel_shuffle(x, upscale_factor); }
std::string PixelShuffle::extra_repr() const { return "upscale_factor=" + std::to_string(upscale_factor); }
PixelShuffle PixelShuffleConfig::init() const {
  detail::check_positive("PixelShuffleConfig::init", "upscale_factor", {upscale_factor});
  return PixelShuffle{upscale_factor};
}

Tensor<4> PixelUnshuffle::forward(const Tensor<4>& x) const { return module::pixel_unshuffle(x, downscale_factor); }
std::string PixelUnshuffle::extra_repr() const { return "downscale_factor=" + std::to_string(downscale_factor); }
PixelUnshuffle PixelUnshuffleConfig::init() const {
  detail::check_positive("PixelUnshuffleConfig::init", "downscale_factor", {downscale_factor});
  return PixelUnshuffle{downscale_factor};
}

}  // namespace burn::nn
