// GradientsParams: a module's gradients taken out of Gradients, keyed by ParamId.
#include "burn/optim/grads.hpp"

namespace burn::optim {

namespace {
class TakeGrads : public nn::ModuleVisitor {
 public:
  TakeGrads(Gradients& grads, GradientsParams& out) : grads_(grads), out_(out) {}
  void param(std::string_view, nn::ParamBase& p) override {
    if (p.is_buffer() || !p.require_grad() || !p.initialized()) return;
    if (auto g = api::grad_remove(p.handle(), grads_)) out_.set(p.id(), std::move(*g));
  }

 private:
  Gradients& grads_;
  GradientsParams& out_;
};
}  // namespace

GradientsParams GradientsParams::from_grads(Gradients& grads, nn::ModuleRef module) {
  GradientsParams out;
  TakeGrads v(grads, out);
  module.walk(v);
  return out;
}

std::optional<TensorHandle> GradientsParams::get(nn::ParamId id) const {
  auto it = grads_.find(id);
  return it == grads_.end() ? std::nullopt : std::optional<TensorHandle>(it->second);
}

std::optional<TensorHandle> GradientsParams::remove(nn::ParamId id) {
  auto it = grads_.find(id);
  if (it == grads_.end()) return std::nullopt;
  TensorHandle g = std::move(it->second);
  grads_.erase(it);
  return g;
}

void GradientsParams::set(nn::ParamId id, TensorHandle grad) { grads_[id] = std::move(grad); }

}  // namespace burn::optim
