// Backward of the conv module ops. conv and conv_transpose call the backend's own backward kernels
// (conv_backward, conv_transpose_backward) on the step's device, so they run on any inner backend;
// unfold and fold are each other's adjoint. deform_conv2d has no rule: with a tracked input its
// composite default body runs on this backend (UnwrapBackend), so each of its steps is recorded.
#include "burn/tensor/module.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

namespace {

// The backend kernels' {grad_x, grad_weight, grad_bias} as the step's gradients of {x, weight, bias}:
// only those the step needs; a kernel that left grad_bias out gets it from the channel sums.
Hs conv_grads(Step& s, const H& g, Prims r) {
  Hs out(3);
  r.resize(3);
  for (size_t i = 0; i < 2; ++i)
    if (s.needs(i)) out[i] = on_step(s, std::move(r[i]));
  if (s.needs(2)) out[2] = r[2] ? on_step(s, std::move(r[2])) : H(channel_sum(g));
  return out;
}

// Both conv backward kernels read x and the weight; with only the bias tracked neither is kept.
uint32_t conv_saves(const Prim& x, const Prim& weight) { return tracked(x) || tracked(weight) ? in(0) | in(1) : 0u; }

// The kernels compute only the gradients the step needs (no input gradient for a conv over plain data).
ConvGradMask needed(Step& s) { return {s.needs(0), s.needs(1), s.needs(2)}; }

}  // namespace

Prim AutodiffBackend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) {
  if (!any_tracked({&x, &weight, &bias}))
    return UnwrapBackend::conv(std::move(x), std::move(weight), std::move(bias), options);
  const uint32_t save = conv_saves(x, weight);
  return record1(
      {OpId::conv, save}, {std::move(x), std::move(weight), std::move(bias)},
      [options](Backend& b, Prims p) { return b.conv(std::move(p[0]), std::move(p[1]), std::move(p[2]), options); },
      [options](Step& s, const H& g) -> Hs {
        if (!s.needs(0) && !s.needs(1)) return {H{}, H{}, channel_sum(g)};
        return conv_grads(s, g,
                          s.device()->conv_backward(s.input(0).prim, s.input(1).prim, g.prim, options, needed(s)));
      });
}

Prim AutodiffBackend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) {
  if (!any_tracked({&x, &weight, &bias}))
    return UnwrapBackend::conv_transpose(std::move(x), std::move(weight), std::move(bias), options);
  const uint32_t save = conv_saves(x, weight);
  return record1(
      {OpId::conv_transpose, save}, {std::move(x), std::move(weight), std::move(bias)},
      [options](Backend& b, Prims p) {
        return b.conv_transpose(std::move(p[0]), std::move(p[1]), std::move(p[2]), options);
      },
      [options](Step& s, const H& g) -> Hs {
        if (!s.needs(0) && !s.needs(1)) return {H{}, H{}, channel_sum(g)};
        return conv_grads(
            s, g, s.device()->conv_transpose_backward(s.input(0).prim, s.input(1).prim, g.prim, options, needed(s)));
      });
}

// unfold (im2col) copies each input element into every block that reads it; its adjoint, fold (col2im),
// sums them back, so d/dx unfold = fold of g, and d/dcols fold = unfold of g.
Prim AutodiffBackend::unfold(Prim x, const UnfoldOptions& options) {
  return record1(
      {OpId::unfold}, {std::move(x)}, [options](Backend& b, Prims p) { return b.unfold(std::move(p[0]), options); },
      [options](Step& s, const H& g) -> Hs {
        const Shape& xs = s.input_shape(0);
        return {api::fold(g, {xs[2], xs[3]}, options)};
      });
}

Prim AutodiffBackend::fold(Prim cols, const Shape& output_size, const UnfoldOptions& options) {
  return record1(
      {OpId::fold}, {std::move(cols)},
      [output_size, options](Backend& b, Prims p) { return b.fold(std::move(p[0]), output_size, options); },
      [options](Step&, const H& g) -> Hs { return {api::unfold(g, options)}; });
}

}  // namespace burn::autodiff
