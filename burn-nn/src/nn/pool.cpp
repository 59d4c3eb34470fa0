// Pooling modules (max, avg, adaptive; 1-D to 3-D): configs and forwards onto the module ops.
#include "burn/nn/pool.hpp"

#include "burn/tensor/module.hpp"
#include "layer_common.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(MaxPool1dConfig, kernel_size, stride, padding, dilation, ceil_mode)
BURN_CONFIG_JSON(MaxPool2dConfig, kernel_size, strides, padding, dilation, ceil_mode)
BURN_CONFIG_JSON(MaxPool3dConfig, kernel_size, strides, padding, dilation, ceil_mode)
BURN_CONFIG_JSON(AvgPool1dConfig, kernel_size, stride, padding, count_include_pad, ceil_mode)
BURN_CONFIG_JSON(AvgPool2dConfig, kernel_size, strides, padding, count_include_pad, ceil_mode)
BURN_CONFIG_JSON(AvgPool3dConfig, kernel_size, strides, padding, count_include_pad, ceil_mode)
BURN_CONFIG_JSON(AdaptiveAvgPool1dConfig, output_size)
BURN_CONFIG_JSON(AdaptiveAvgPool2dConfig, output_size)
BURN_CONFIG_JSON(AdaptiveAvgPool3dConfig, output_size)
BURN_CONFIG_JSON(AdaptiveMaxPool1dConfig, output_size)
BURN_CONFIG_JSON(AdaptiveMaxPool2dConfig, output_size)

namespace {

PoolOptions pool_options(const char* layer, const TensorHandle& x, const std::vector<int64_t>& kernel,
                         const std::vector<int64_t>& stride, const std::vector<int64_t>& dilation,
                         const PaddingConfig& padding, bool ceil_mode, bool count_include_pad) {
  detail::check_rank(layer, x, kernel.size() + 2, "[batch, channels, spatial...]");
  const std::vector<int64_t> ones(kernel.size(), 1);
  auto [start, end] =
      detail::resolve_padding(padding, layer, x.prim->shape(), kernel, stride, dilation.empty() ? ones : dilation);
  // (with ceil_mode a window may hang over the end, as PyTorch allows; the op checks that case)
  if (!ceil_mode) detail::check_window_fits(layer, x.prim->shape(), kernel, dilation, start, end);
  return PoolOptions{kernel, stride, start, end, dilation, ceil_mode, count_include_pad};
}

std::string pool_repr(const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                      const PaddingConfig& padding, bool ceil_mode) {
  std::string p = padding.kind == PaddingConfig::Kind::Valid  ? "valid"
                  : padding.kind == PaddingConfig::Kind::Same ? "same"
                                                              : detail::list_string(padding.start);
  if (padding.kind == PaddingConfig::Kind::Explicit && !padding.end.empty())
    p += " to " + detail::list_string(padding.end);
  return "kernel_size=" + detail::list_string(kernel) + ", stride=" + detail::list_string(stride) + ", padding=" + p +
         ", ceil_mode=" + (ceil_mode ? "true" : "false");
}

// Checks a pool config and fills the layer; a stride of 0 is the kernel size.
template <class Layer>
Layer make_pool(const char* op, std::vector<int64_t> kernel, std::vector<int64_t> stride, const PaddingConfig& padding,
                bool ceil_mode) {
  detail::check_positive(op, "kernel_size", kernel);
  detail::check_non_negative(op, "stride", stride);
  for (size_t i = 0; i < stride.size(); ++i)
    if (stride[i] == 0) stride[i] = kernel[i];
  Layer l;
  l.kernel_size = std::move(kernel);
  l.stride = std::move(stride);
  l.padding = padding;
  l.ceil_mode = ceil_mode;
  return l;
}

}  // namespace

#define BURN_NN_MAX_POOL_IMPL(Name, D)                                                                         \
  Tensor<D> Name::forward(const Tensor<D>& x) const {                                                          \
    return module::max_pool<D>(                                                                                \
        x, pool_options(#Name, x.handle(), kernel_size, stride, dilation, padding, ceil_mode, true));          \
  }                                                                                                            \
  std::string Name::extra_repr() const {                                                                       \
    return pool_repr(kernel_size, stride, padding, ceil_mode) + ", dilation=" + detail::list_string(dilation); \
  }
BURN_NN_MAX_POOL_IMPL(MaxPool1d, 3)
BURN_NN_MAX_POOL_IMPL(MaxPool2d, 4)
BURN_NN_MAX_POOL_IMPL(MaxPool3d, 5)
#undef BURN_NN_MAX_POOL_IMPL

#define BURN_NN_AVG_POOL_IMPL(Name, D)                                                                       \
  Tensor<D> Name::forward(const Tensor<D>& x) const {                                                        \
    return module::avg_pool<D>(                                                                              \
        x, pool_options(#Name, x.handle(), kernel_size, stride, {}, padding, ceil_mode, count_include_pad)); \
  }                                                                                                          \
  std::string Name::extra_repr() const {                                                                     \
    return pool_repr(kernel_size, stride, padding, ceil_mode) +                                              \
           ", count_include_pad=" + (count_include_pad ? "true" : "false");                                  \
  }
BURN_NN_AVG_POOL_IMPL(AvgPool1d, 3)
BURN_NN_AVG_POOL_IMPL(AvgPool2d, 4)
BURN_NN_AVG_POOL_IMPL(AvgPool3d, 5)
#undef BURN_NN_AVG_POOL_IMPL

MaxPool1d MaxPool1dConfig::init() const {
  auto l = make_pool<MaxPool1d>("MaxPool1dConfig::init", {kernel_size}, {stride}, padding, ceil_mode);
  detail::check_positive("MaxPool1dConfig::init", "dilation", {dilation});
  l.dilation = {dilation};
  return l;
}
MaxPool2d MaxPool2dConfig::init() const {
  auto l =
      make_pool<MaxPool2d>("MaxPool2dConfig::init", detail::vec(kernel_size), detail::vec(strides), padding, ceil_mode);
  detail::check_positive("MaxPool2dConfig::init", "dilation", detail::vec(dilation));
  l.dilation = detail::vec(dilation);
  return l;
}
MaxPool3d MaxPool3dConfig::init() const {
  auto l =
      make_pool<MaxPool3d>("MaxPool3dConfig::init", detail::vec(kernel_size), detail::vec(strides), padding, ceil_mode);
  detail::check_positive("MaxPool3dConfig::init", "dilation", detail::vec(dilation));
  l.dilation = detail::vec(dilation);
  return l;
}
AvgPool1d AvgPool1dConfig::init() const {
  auto l = make_pool<AvgPool1d>("AvgPool1dConfig::init", {kernel_size}, {stride}, padding, ceil_mode);
  l.count_include_pad = count_include_pad;
  return l;
}
AvgPool2d AvgPool2dConfig::init() const {
  auto l =
      make_pool<AvgPool2d>("AvgPool2dConfig::init", detail::vec(kernel_size), detail::vec(strides), padding, ceil_mode);
  l.count_include_pad = count_include_pad;
  return l;
}
AvgPool3d AvgPool3dConfig::init() const {
  auto l =
      make_pool<AvgPool3d>("AvgPool3dConfig::init", detail::vec(kernel_size), detail::vec(strides), padding, ceil_mode);
  l.count_include_pad = count_include_pad;
  return l;
}

#define BURN_NN_ADAPTIVE_IMPL(Name, D, Call, Vec)                                                    \
  Tensor<D> Name::forward(const Tensor<D>& x) const {                                                \
    detail::check_rank(#Name, x.handle(), D, "[batch, channels, spatial...]");                       \
    return Call;                                                                                     \
  }                                                                                                  \
  std::string Name::extra_repr() const { return "output_size=" + detail::list_string(output_size); } \
  Name Name##Config::init() const {                                                                  \
    detail::check_positive(#Name "Config::init", "output_size", Vec);                                \
    return Name{Vec};                                                                                \
  }
BURN_NN_ADAPTIVE_IMPL(AdaptiveAvgPool1d, 3, module::adaptive_avg_pool<3>(x, output_size), {output_size})
BURN_NN_ADAPTIVE_IMPL(AdaptiveAvgPool2d, 4, module::adaptive_avg_pool<4>(x, output_size), detail::vec(output_size))
BURN_NN_ADAPTIVE_IMPL(AdaptiveAvgPool3d, 5, module::adaptive_avg_pool<5>(x, output_size), detail::vec(output_size))
BURN_NN_ADAPTIVE_IMPL(AdaptiveMaxPool1d, 3, module::adaptive_max_pool<3>(x, output_size).first, {output_size})
BURN_NN_ADAPTIVE_IMPL(AdaptiveMaxPool2d, 4, module::adaptive_max_pool<4>(x, output_size).first,
                      detail::vec(output_size))
#undef BURN_NN_ADAPTIVE_IMPL

}  // namespace burn::nn
