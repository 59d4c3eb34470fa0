// fold_batch_norm: a convolution that computes bn(conv(x)) with the running statistics, for inference.
#include "burn/nn/fold.hpp"

#include "burn/tensor/autodiff.hpp"

namespace burn::nn {

namespace {

template <class Conv, size_t D>
Conv fold(const Conv& conv, const BatchNorm& bn) {
  constexpr const char* op = "fold_batch_norm";
  const Tensor<D> w = conv.weight.val();
  const int64_t c_out = w.shape()[0];
  if (bn.gamma.shape()[0] != c_out)
    throw ShapeError(op, "the batch norm has " + std::to_string(bn.gamma.shape()[0]) + " features, the conv " +
                             std::to_string(c_out) + " output channels");
  const Device& dev = w.device();
  for (const ParamBase* p :
       {static_cast<const ParamBase*>(&bn.gamma), static_cast<const ParamBase*>(&bn.beta),
        static_cast<const ParamBase*>(&bn.running_mean), static_cast<const ParamBase*>(&bn.running_var)}) {
    if (!(p->handle().device == dev))
      throw ValueError(op, "the batch norm is on " + p->handle().device.name() + ", the conv on " + dev.name());
    if (p->dtype() != w.dtype())
      throw ValueError(op, "the batch norm's dtype is " + std::string(dtype_name(p->dtype())) + ", the conv's " +
                               std::string(dtype_name(w.dtype())));
  }
  // BatchNorm's own rule (norm.cpp): on an autodiff device with grad enabled it trains on batch statistics.
  if (autodiff_of(dev) != nullptr && grad_enabled())
    throw ValueError(op, "the batch norm is on the autodiff device " + dev.name() +
                             " with grad enabled, where it trains on batch statistics; fold the valid() "
                             "module, or under no_grad");
  const Tensor<1> s = (bn.gamma.val() / (bn.running_var.val() + bn.epsilon).sqrt()).detach();
  std::array<int64_t, D> dims{};
  dims.fill(1);
  dims[0] = c_out;
  Conv out = conv;
  out.weight =
      Param<Tensor<D>>((w * s.template reshape<D>(Shape(std::vector<int64_t>(dims.begin(), dims.end())))).detach());
  const Tensor<1> b = conv.bias ? conv.bias->val() : Tensor<1>::zeros(Shape{c_out}, dev, w.dtype());
  out.bias = Param<Tensor<1>>(((b - bn.running_mean.val()) * s + bn.beta.val()).detach());
  return out;
}

}  // namespace

Conv1d fold_batch_norm(const Conv1d& conv, const BatchNorm& bn) { return fold<Conv1d, 3>(conv, bn); }
Conv2d fold_batch_norm(const Conv2d& conv, const BatchNorm& bn) { return fold<Conv2d, 4>(conv, bn); }
Conv3d fold_batch_norm(const Conv3d& conv, const BatchNorm& bn) { return fold<Conv3d, 5>(conv, bn); }

}  // namespace burn::nn
