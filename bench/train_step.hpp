// The epoch benchmark's training step (train_epoch.cpp), shared with its test
// (tests/learning_curve/learning_curve_test.cpp, AutocastStep) so that the test drives the step the benchmark times.
// With `autocast` set, the forward pass and the loss run under an AutocastGuard (the parameters stay
// f32, so no master copy is needed: the casts are recorded and f32 gradients come back); f16 also
// scales the loss through `scaler` (bf16 has f32's exponent range and needs no scaler).
#pragma once

#include <burn/nn/loss.hpp>
#include <burn/optim.hpp>
#include <burn/optim/grad_scaler.hpp>
#include <burn/tensor/autocast.hpp>
#include <optional>

#include "nn_models.hpp"

namespace burn::bench {

// Images [B, 28, 28] as the model's input: [B, 784] for the MLP, [B, 1, 28, 28] for the CNN.
inline Tensor<2> as_input(const Mlp&, const Tensor<3>& images) { return images.flatten<2>(1, 2); }
inline Tensor<4> as_input(const SmallCnn&, const Tensor<3>& images) {
  return images.reshape<4>({images.dim(0), 1, 28, 28});
}

struct StepResult {
  Tensor<1> loss;      // the unscaled loss, f32 (cross-entropy is on autocast's f32 list)
  DType logits_dtype;  // the model's output: bf16/f16 under autocast, what shows the step ran in it
};

// One Adam step at `lr` on a batch; `scaler` is used (and must be set) for f16 autocast only.
template <class M>
StepResult train_step(M& model, const Tensor<3>& images, const Tensor<1, Int>& targets, optim::Optimizer& opt,
                      const nn::loss::CrossEntropyLoss& loss, double lr, std::optional<DType> autocast,
                      optim::GradScaler* scaler) {
  if (!autocast) {
    const auto logits = model.forward(as_input(model, images));
    const Tensor<1> l = loss.forward(logits, targets);
    Gradients grads = l.backward();
    model = opt.step(lr, model, optim::GradientsParams::from_grads(grads, model));
    return {l, logits.dtype()};
  }
  Tensor<1> l;
  DType logits_dtype;
  {
    const AutocastGuard guard(*autocast);
    const auto logits = model.forward(as_input(model, images));
    logits_dtype = logits.dtype();
    l = loss.forward(logits, targets);
  }
  const bool scaled = *autocast == DType::F16;
  Gradients grads = scaled ? scaler->scale(l).backward() : l.backward();
  optim::GradientsParams gp = optim::GradientsParams::from_grads(grads, model);
  if (!scaled) {
    opt.step_module(lr, nn::ModuleRef(model), gp);
  } else {
    scaler->step(opt, lr, nn::ModuleRef(model), gp);
    scaler->update();
  }
  return {l, logits_dtype};
}

}  // namespace burn::bench
