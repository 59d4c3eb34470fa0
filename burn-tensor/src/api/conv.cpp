// Tensor API: the conv module ops (conv, conv_transpose, deform_conv2d, unfold/fold and the conv
// backward functions): device and dtype checks, then the shape rules (which normalise the options),
// then the backend call.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "autocast.hpp"
#include "burn/tensor/module.hpp"
#include "module_checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

// x a float tensor; weight and bias (if any) on its device, of its dtype.
void check_tensors(const H& x, const H& w, const OptH& bias, const char* op) {
  be(x, op);
  same_device(x, w, op);
  require_float(x, op);
  same_dtype(x, w, op);
  if (!bias) return;
  same_device(x, *bias, op);
  if (bias->prim->dtype() != x.prim->dtype())
    throw DTypeError(op, "bias is " + dt(bias->prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
}

// A same-device, same-dtype tensor that goes with x (offset, mask).
void check_companion(const H& x, const H& t, const char* what, const char* op) {
  same_device(x, t, op);
  if (t.prim->dtype() != x.prim->dtype())
    throw DTypeError(op, std::string(what) + " is " + dt(t.prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
}

const Shape* shape_of(const OptH& h) { return h ? &shape(*h) : nullptr; }

// A conv backward kernel's {grad_x, grad_weight, grad_bias} on `dev`: always three, null where not asked for
// (whatever the backend returned there).
Hs mask_grads(const Device& dev, Prims r, const ConvGradMask& mask) {
  r.resize(3);
  const bool asked[3] = {mask.x, mask.weight, mask.bias};
  Hs hs;
  for (size_t i = 0; i < 3; ++i) hs.push_back(H{dev, asked[i] ? std::move(r[i]) : Prim{}});
  return hs;
}

}  // namespace

H conv(H x, const H& weight0, const OptH& bias0, const ConvOptions& options) {
  static constexpr const char* op = "conv";
  CastArg weight(weight0);
  CastArg bias(bias0);
  autocast(OpId::conv, {&x, weight.slot(), bias.slot()});
  check_tensors(x, *weight, *bias, op);
  ConvOptions o = options;
  check_output(shape_rules::conv(shape(x), shape(*weight), shape_of(*bias), o, op), x, op);
  Backend& b = be(x, op);
  return with(x, b.conv(std::move(x.prim), weight->prim, *bias ? (*bias)->prim : Prim{}, o));
}

Hs conv_backward(H x, const H& weight, const H& grad_out, const ConvOptions& options, const ConvGradMask& mask) {
  static constexpr const char* op = "conv_backward";
  check_tensors(x, weight, std::nullopt, op);
  ConvOptions o = options;
  const Shape out = shape_rules::conv(shape(x), shape(weight), nullptr, o, op);
  check_output(out, x, op);
  check_grad_out(x, grad_out, out, op);
  Backend& b = be(x, op);
  const Device dev = x.device;
  return mask_grads(dev, b.conv_backward(std::move(x.prim), weight.prim, grad_out.prim, o, mask), mask);
}

H conv_transpose(H x, const H& weight0, const OptH& bias0, const ConvTransposeOptions& options) {
  static constexpr const char* op = "conv_transpose";
  CastArg weight(weight0);
  CastArg bias(bias0);
  autocast(OpId::conv_transpose, {&x, weight.slot(), bias.slot()});
  check_tensors(x, *weight, *bias, op);
  ConvTransposeOptions o = options;
  check_output(shape_rules::conv_transpose(shape(x), shape(*weight), shape_of(*bias), o, op), x, op);
  Backend& b = be(x, op);
  return with(x, b.conv_transpose(std::move(x.prim), weight->prim, *bias ? (*bias)->prim : Prim{}, o));
}

Hs conv_transpose_backward(H x, const H& weight, const H& grad_out, const ConvTransposeOptions& options,
                           const ConvGradMask& mask) {
  static constexpr const char* op = "conv_transpose_backward";
  check_tensors(x, weight, std::nullopt, op);
  ConvTransposeOptions o = options;
  const Shape out = shape_rules::conv_transpose(shape(x), shape(weight), nullptr, o, op);
  check_output(out, x, op);
  check_grad_out(x, grad_out, out, op);
  Backend& b = be(x, op);
  const Device dev = x.device;
  return mask_grads(dev, b.conv_transpose_backward(std::move(x.prim), weight.prim, grad_out.prim, o, mask), mask);
}

H deform_conv2d(H x, const H& offset, const H& weight, const OptH& mask, const OptH& bias,
                const DeformConvOptions& options) {
  static constexpr const char* op = "deform_conv2d";
  check_tensors(x, weight, bias, op);
  check_companion(x, offset, "offset", op);
  if (mask) check_companion(x, *mask, "mask", op);
  DeformConvOptions o = options;
  check_output(
      shape_rules::deform_conv2d(shape(x), shape(offset), shape(weight), shape_of(mask), shape_of(bias), o, op), x, op);
  Backend& b = be(x, op);
  return with(x, b.deform_conv2d(std::move(x.prim), offset.prim, weight.prim, mask ? mask->prim : Prim{},
                                 bias ? bias->prim : Prim{}, o));
}

H unfold(H x, const UnfoldOptions& options) {
  static constexpr const char* op = "unfold";
  Backend& b = be(x, op);
  require_float(x, op);
  UnfoldOptions o = options;
  check_output(shape_rules::unfold(shape(x), o, op), x, op);
  return with(x, b.unfold(std::move(x.prim), o));
}

H fold(H cols, const std::vector<int64_t>& output_size, const UnfoldOptions& options) {
  static constexpr const char* op = "fold";
  Backend& b = be(cols, op);
  require_float(cols, op);
  UnfoldOptions o = options;
  const Shape out = shape_rules::fold(shape(cols), output_size, o, op);
  check_output(out, cols, op);
  return with(cols, b.fold(std::move(cols.prim), Shape{out[2], out[3]}, o));
}

}  // namespace burn::api
