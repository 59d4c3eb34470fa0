// The optimizers: configs with Burn's fields and defaults (JSON via BURN_CONFIG) whose init() gives
// an Optimizer over the config's rule. Each rule follows torch.optim's update (the tests check 20
// steps against PyTorch); Adan follows its paper (Xie et al. 2022, the official code's no_prox form).
#pragma once

#include "burn/nn/config.hpp"
#include "burn/optim/optimizer.hpp"

namespace burn::optim {

// Stochastic gradient descent with momentum (PyTorch's dampening and Nesterov variants).
struct BURN_OPTIM_API SgdConfig {
  double momentum = 0.0;
  double dampening = 0.0;
  bool nesterov = false;
  double weight_decay = 0.0;     // L2, folded into the gradient
  double grad_clip_norm = 0.0;   // 0: no clipping by norm
  double grad_clip_value = 0.0;  // 0: no clipping by value
  std::shared_ptr<const Rule> rule() const;
  Optimizer init() const;
  BURN_CONFIG(SgdConfig)
};

// Adam (Kingma & Ba) with PyTorch's bias correction and optional AMSGrad; weight decay is L2.
struct BURN_OPTIM_API AdamConfig {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-5;  // Burn's default (PyTorch's is 1e-8)
  bool amsgrad = false;
  double weight_decay = 0.0;
  double grad_clip_norm = 0.0;
  double grad_clip_value = 0.0;
  std::shared_ptr<const Rule> rule() const;
  Optimizer init() const;
  BURN_CONFIG(AdamConfig)
};

// Adam with decoupled weight decay (Loshchilov & Hutter): the same rule, decay applied as a shrink.
struct BURN_OPTIM_API AdamWConfig {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-5;
  bool amsgrad = false;
  double weight_decay = 1e-4;
  double grad_clip_norm = 0.0;
  double grad_clip_value = 0.0;
  std::shared_ptr<const Rule> rule() const;
  Optimizer init() const;
  BURN_CONFIG(AdamWConfig)
};

struct BURN_OPTIM_API AdaGradConfig {
  double lr_decay = 0.0;
  double epsilon = 1e-5;
  double initial_accumulator_value = 0.0;
  double weight_decay = 0.0;
  double grad_clip_norm = 0.0;
  double grad_clip_value = 0.0;
  std::shared_ptr<const Rule> rule() const;
  Optimizer init() const;
  BURN_CONFIG(AdaGradConfig)
};

struct BURN_OPTIM_API RmsPropConfig {
  double alpha = 0.99;
  double epsilon = 1e-5;
  bool centered = false;
  double momentum = 0.0;
  double weight_decay = 0.0;
  double grad_clip_norm = 0.0;
  double grad_clip_value = 0.0;
  std::shared_ptr<const Rule> rule() const;
  Optimizer init() const;
  BURN_CONFIG(RmsPropConfig)
};

// Adaptive Nesterov momentum (Xie et al. 2022); weight decay is decoupled, as in the paper's code.
struct BURN_OPTIM_API AdanConfig {
  double beta_1 = 0.98;
  double beta_2 = 0.92;
  double beta_3 = 0.99;
  double epsilon = 1e-8;
  double weight_decay = 0.0;
  double grad_clip_norm = 0.0;
  double grad_clip_value = 0.0;
  std::shared_ptr<const Rule> rule() const;
  Optimizer init() const;
  BURN_CONFIG(AdanConfig)
};

// Muon (K. Jordan et al. 2024, the `muon` package's update): an EMA momentum (Nesterov by default)
// whose update is orthogonalised by a quintic Newton-Schulz iteration and scaled by
// sqrt(max(1, fan_out / fan_in)) (a rank-2 tensor is a Burn Linear weight [d_input, d_output], a
// rank > 2 one a conv weight [out, in, k...] seen as [out, the rest]); weight decay is decoupled. Muon has no rule for
// vectors (biases, norms): a 1-D tensor is a ValueError, so give those a group with another rule (AdamW), as the
// reference does.
struct BURN_OPTIM_API MuonConfig {
  double momentum = 0.95;
  bool nesterov = true;
  int64_t ns_steps = 5;
  double weight_decay = 0.0;
  double grad_clip_norm = 0.0;
  double grad_clip_value = 0.0;
  std::shared_ptr<const Rule> rule() const;
  Optimizer init() const;
  BURN_CONFIG(MuonConfig)
};

}  // namespace burn::optim
