// quantize_dynamic: a module walk that finds the Linear layers by type and quantizes their weights.
#include "burn/nn/quant.hpp"

#include <typeinfo>
#include <utility>

namespace burn::nn::detail {

namespace {

class QuantizeLinears : public ModuleVisitor {
 public:
  QuantizeLinears(const QuantScheme& scheme, const QuantPathFilter& filter) : scheme_(scheme), filter_(filter) {}

  void enter(std::string_view name, const ModuleInfo& info) override {
    stack_.push_back(prefix_.size());
    if (!name.empty()) prefix_ += (prefix_.empty() ? "" : ".") + std::string(name);
    if (info.type && *info.type == typeid(Linear) && (!filter_ || filter_(prefix_))) {
      // The walker hands modules as const void*; quantize_dynamic owns the copy it walks.
      auto* l = const_cast<Linear*>(static_cast<const Linear*>(info.self));
      const TensorHandle& w = l->weight.handle();
      l->quantized_weight = quantize(api::to_device(w, valid_device(w.device)), scheme_);
      quantized.push_back(prefix_);
    }
  }
  void leave() override {
    prefix_.resize(stack_.back());
    stack_.pop_back();
  }
  void param(std::string_view, ParamBase&) override {}

  std::vector<std::string> quantized;

 private:
  const QuantScheme& scheme_;
  const QuantPathFilter& filter_;
  std::string prefix_;
  std::vector<size_t> stack_;
};

}  // namespace

std::vector<std::string> quantize_dynamic(ModuleRef m, const QuantScheme& scheme, const QuantPathFilter& filter) {
  QuantizeLinears v(scheme, filter);
  m.walk(v);
  return std::move(v.quantized);
}

}  // namespace burn::nn::detail
