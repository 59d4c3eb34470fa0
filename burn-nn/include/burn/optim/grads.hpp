// GradientsParams: the gradients of one backward pass keyed by parameter id (Burn's), taken out of
// the autodiff Gradients by walking a module; what optimizers consume.
#pragma once

#include <optional>
#include <unordered_map>

#include "burn/nn/module.hpp"
#include "burn/optim/export.hpp"

namespace burn::optim {

class BURN_OPTIM_API GradientsParams {
 public:
  GradientsParams() = default;
  // Moves each tracked parameter's gradient out of `grads` (it lives on the inner device).
  template <nn::detail::Module M>
  static GradientsParams from_grads(Gradients& grads, const M& module) {
    return from_grads(grads, nn::ModuleRef(const_cast<M&>(module)));  // reads the parameters only
  }
  static GradientsParams from_grads(Gradients& grads, nn::ModuleRef module);

  std::optional<TensorHandle> get(nn::ParamId id) const;
  std::optional<TensorHandle> remove(nn::ParamId id);
  void set(nn::ParamId id, TensorHandle grad);
  size_t size() const { return grads_.size(); }
  bool empty() const { return grads_.empty(); }
  const std::unordered_map<nn::ParamId, TensorHandle>& all() const { return grads_; }

 private:
  std::unordered_map<nn::ParamId, TensorHandle> grads_;
};

}  // namespace burn::optim
