// L-BFGS (torch.optim.LBFGS, with its optional strong-Wolfe line search). Unlike the per-tensor rules
// it works on all trainable parameters as one flat vector and re-evaluates the loss several times per
// step, so `step` takes a closure that computes the loss and gradients at the module's current values:
//
//   optim::Lbfgs lbfgs = optim::LbfgsConfig{.line_search_fn = "strong_wolfe"}.init();
//   model = lbfgs.step(model, [&](const Model& m) {
//     Tensor<1> loss = loss_fn(m.forward(x), y);
//     Gradients g = loss.backward();
//     return optim::Lbfgs::Eval{loss.item<double>(), optim::GradientsParams::from_grads(g, m)};
//   });
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "burn/nn/config.hpp"
#include "burn/optim/grads.hpp"
#include "burn/record/record.hpp"

namespace burn::optim {

class Lbfgs;

// PyTorch's arguments and defaults; max_eval 0 means max_iter * 5 / 4.
struct BURN_OPTIM_API LbfgsConfig {
  double lr = 1.0;
  int64_t max_iter = 20;
  int64_t max_eval = 0;
  double tolerance_grad = 1e-7;
  double tolerance_change = 1e-9;
  int64_t history_size = 100;
  std::string line_search_fn;  // "" (a fixed step of lr) or "strong_wolfe"
  Lbfgs init() const;
  BURN_CONFIG(LbfgsConfig)
};

class BURN_OPTIM_API Lbfgs {
 public:
  // The loss at the module's current parameters, and their gradients.
  struct Eval {
    double loss;
    GradientsParams grads;
  };

  explicit Lbfgs(const LbfgsConfig& config);

  // One step (up to max_iter iterations); the closure sees the module as it is being updated.
  template <nn::detail::Module M, class F>
  M step(M module, F&& closure) {
    step_module(nn::ModuleRef(module), [&]() -> Eval { return closure(std::as_const(module)); });
    return module;
  }
  // The same on a module reference; returns the loss of the first evaluation (PyTorch's return value).
  double step_module(nn::ModuleRef module, const std::function<Eval()>& closure);

  int64_t n_iter() const { return n_iter_; }          // iterations over all steps
  int64_t func_evals() const { return func_evals_; }  // closure calls over all steps

  // "rule": "lbfgs", the direction, step, history and counters; flat tensors in walk order.
  record::Record to_record() const;
  void load_record(const record::Record& rec);

 private:
  LbfgsConfig c_;
  int64_t n_iter_ = 0, func_evals_ = 0;
  // Between steps, as torch keeps them: flat vectors on the parameters' inner device.
  TensorHandle d_, prev_flat_grad_;
  double t_ = 0, h_diag_ = 1, prev_loss_ = 0;
  std::vector<TensorHandle> old_dirs_, old_stps_;
  std::vector<double> ro_;
  std::optional<record::Record> pending_;  // a loaded state, put on the device at the next step
};

}  // namespace burn::optim
