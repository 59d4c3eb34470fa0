// DeformConv2d: checks of the offset and mask shapes, then the deform_conv2d tensor op.
#include "burn/nn/deform_conv.hpp"

#include "burn/tensor/module.hpp"
#include "config_json.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(DeformConv2dConfig, channels, kernel_size, stride, dilation, padding, weight_groups, offset_groups,
                 bias, initializer)

Tensor<4> DeformConv2d::forward(const Tensor<4>& x, const Tensor<4>& offset,
                                const std::optional<Tensor<4>>& mask) const {
  const Shape& w = weight.shape();
  if (x.dim(1) != w[1] * weight_groups)
    throw ShapeError("DeformConv2d", "input " + x.shape().to_string() + " has not the " +
                                         std::to_string(w[1] * weight_groups) + " channels of the layer");
  const DeformConvOptions o{
      {stride[0], stride[1]}, {padding[0], padding[1]}, {dilation[0], dilation[1]}, weight_groups, offset_groups};
  return module::deform_conv2d(x, offset, weight.val(), mask, bias ? std::optional(bias->val()) : std::nullopt, o);
}

std::string DeformConv2d::extra_repr() const {
  const Shape& w = weight.shape();
  return "channels=[" + std::to_string(w[1] * weight_groups) + ", " + std::to_string(w[0]) + "], kernel_size=[" +
         std::to_string(w[2]) + ", " + std::to_string(w[3]) + "], weight_groups=" + std::to_string(weight_groups) +
         ", offset_groups=" + std::to_string(offset_groups);
}

DeformConv2d DeformConv2dConfig::init(const Device& device) const {
  const auto [in, out] = channels;
  if (in <= 0 || out <= 0 || kernel_size[0] <= 0 || kernel_size[1] <= 0 || weight_groups <= 0 || offset_groups <= 0 ||
      in % weight_groups != 0 || out % weight_groups != 0)
    throw ValueError("DeformConv2dConfig::init", "channels [" + std::to_string(in) + ", " + std::to_string(out) +
                                                     "] and kernel must be positive and channels divisible by "
                                                     "weight_groups " +
                                                     std::to_string(weight_groups));
  DeformConv2d d;
  const int64_t fan_in = in / weight_groups * kernel_size[0] * kernel_size[1];
  d.weight = Param<Tensor<4>>(
      initializer.init<4>(Shape{out, in / weight_groups, kernel_size[0], kernel_size[1]}, device, fan_in));
  if (bias) d.bias = Param<Tensor<1>>(initializer.init<1>(Shape{out}, device, fan_in));
  d.stride = stride;
  d.padding = padding;
  d.dilation = dilation;
  d.weight_groups = weight_groups;
  d.offset_groups = offset_groups;
  return d;
}

}  // namespace burn::nn
