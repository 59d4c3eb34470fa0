// Optimizers as Burn builds them (docs/architecture.md §8): a per-tensor Rule (Burn's SimpleOptimizer) and one
// Optimizer adaptor that walks a module by ParamId, applies the rule on the inner device, and holds
// the per-parameter state. Weight decay, parameter groups and gradient clipping are settings of the
// adaptor, so no rule repeats them.
//
//   optim::Optimizer opt = optim::AdamConfig{}.init();
//   Gradients grads = loss.backward();
//   model = opt.step(1e-3, model, optim::GradientsParams::from_grads(grads, model));
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "burn/optim/clipping.hpp"
#include "burn/optim/grads.hpp"
#include "burn/record/record.hpp"

namespace burn::optim {

// The state a rule keeps for one parameter: named tensors on the parameter's inner device (Adam's
// "moment_1", "moment_2") and the number of the current step (1 on the first step of the parameter).
struct ParamState {
  std::map<std::string, TensorHandle> tensors;  // ordered, so records list them the same way
  int64_t step = 0;
  // The tensor called `name`; ValueError naming the rule when absent (a state from another rule).
  BURN_OPTIM_API const TensorHandle& at(const std::string& name, const char* rule) const;
  bool has(const std::string& name) const { return tensors.count(name) != 0; }
};

// What a rule returns: the new value of the tensor and its new state.
struct RuleStep {
  TensorHandle tensor;
  ParamState state;
};

// Burn's SimpleOptimizer: the update of one tensor. Everything is on the inner device (no graph);
// `state.step` is already the number of this step (the adaptor counts), the rest of `state` is what
// the rule returned last time (no tensors on the first step).
class BURN_OPTIM_API Rule {
 public:
  virtual ~Rule();
  virtual std::string name() const = 0;  // "adam": checked when a state record is loaded
  virtual RuleStep step(double lr, const TensorHandle& tensor, const TensorHandle& grad, ParamState state) const = 0;
};

// L2 penalty folded into the gradient (PyTorch's weight_decay of SGD, Adam, AdaGrad, RMSProp), or
// decoupled: the tensor shrinks by lr * penalty before the rule runs (AdamW, Loshchilov & Hutter).
struct WeightDecay {
  double penalty = 0.0;
  bool decoupled = false;
};

// Settings for a set of parameters, chosen by id or by path prefix ("encoder" matches "encoder.0.weight"
// but not "encoder2.weight"). The first group that matches a parameter applies to it.
struct ParamGroup {
  std::vector<nn::ParamId> ids;
  std::string prefix;                  // empty: matches by id only
  double lr_scale = 1.0;               // this group's lr = the step's lr * lr_scale
  std::optional<double> weight_decay;  // replaces the optimizer's penalty (same coupling)
  // Another rule for these parameters (Muon for matrices, AdamW for the rest); null: the optimizer's.
  std::shared_ptr<const Rule> rule;
};

class BURN_OPTIM_API Optimizer {
 public:
  explicit Optimizer(std::shared_ptr<const Rule> rule, WeightDecay weight_decay = {},
                     std::optional<GradientClipping> clipping = std::nullopt);

  // One step: each trainable parameter of `module` with a gradient in `grads` gets the rule's new
  // value, set back with Param::set_handle (a fresh tracked leaf on an autodiff device). Buffers,
  // frozen parameters and parameters without a gradient are left as they are. All or nothing: when a
  // rule throws, no parameter and no state has changed.
  template <nn::detail::Module M>
  M step(double lr, M module, GradientsParams grads) {
    step_module(lr, nn::ModuleRef(module), grads);
    return module;
  }
  // The same on a module reference; `grads` is clipped in place when clipping is set, and the
  // gradients used are removed from it (what is left had no parameter to go to).
  void step_module(double lr, nn::ModuleRef module, GradientsParams& grads);

  Optimizer& add_group(ParamGroup group);
  // Mixed precision: a bf16 or f16 parameter is updated through an f32 master copy kept in its state
  // (the state tensor "master", saved with the rest), its gradient and the rule's moments in f32, and
  // the parameter set to the master rounded once; small updates then accumulate instead of rounding
  // away. f32 parameters (autocast keeps them f32) are not affected. Off by default.
  Optimizer& set_master_weights(bool on) {
    master_weights_ = on;
    return *this;
  }
  bool master_weights() const { return master_weights_; }
  Optimizer& set_clipping(std::optional<GradientClipping> clipping);
  const Rule& rule() const { return *rule_; }
  // The state of a parameter, nullptr before its first step (or a loaded one not used yet).
  const ParamState* state(nn::ParamId id) const;

  // "rule": the rule's name; "state.<param id>.step", "state.<param id>.rule" and
  // "state.<param id>.<tensor>": each parameter's state as TensorData, so it goes through
  // burn::record::save/load and a run resumes bit for bit.
  record::Record to_record() const;
  // Replaces the state; tensors move to each parameter's inner device at its next step. RecordError
  // when the record is another rule's or is malformed, naming the entry.
  void load_record(const record::Record& rec);

 private:
  struct Settings {
    double lr_scale;
    WeightDecay weight_decay;
    const Rule* rule;
  };
  Settings settings_for(nn::ParamId id, const std::string& path) const;

  std::shared_ptr<const Rule> rule_;
  WeightDecay weight_decay_;
  std::optional<GradientClipping> clipping_;
  bool master_weights_ = false;
  std::vector<ParamGroup> groups_;
  std::unordered_map<nn::ParamId, ParamState> states_;
  std::unordered_map<nn::ParamId, std::string> state_rules_;                   // the rule that made each state
  std::unordered_map<nn::ParamId, std::map<std::string, TensorData>> loaded_;  // from load_record, not yet on a device
};

}  // namespace burn::optim
