// quantize_dynamic and quantize_weights: a module walk that finds the Linear and Conv layers by type and quantizes
// their weights. Calibration: the observers Linear::forward feeds while a scope is open on its thread.
#include "burn/nn/quant.hpp"

#include <algorithm>
#include <cmath>
#include <typeinfo>
#include <utility>

#include "quantized_slot.hpp"

namespace burn::nn {

namespace detail {

namespace {

template <class L>
L* layer_of(const ModuleInfo& info) {
  // The walkers hand modules as const void*; the caller owns the module it walks.
  return info.type && *info.type == typeid(L) ? const_cast<L*>(static_cast<const L*>(info.self)) : nullptr;
}

bool is_conv(const ModuleInfo& info) {
  return info.type && (*info.type == typeid(Conv1d) || *info.type == typeid(Conv2d) || *info.type == typeid(Conv3d));
}

// Walks the module with the dotted path of each module ("fc1", "blocks.0.ffn").
class ModulePaths : public ModuleVisitor {
 public:
  void enter(std::string_view name, const ModuleInfo& info) override {
    stack_.push_back(prefix_.size());
    if (!name.empty()) prefix_ += (prefix_.empty() ? "" : ".") + std::string(name);
    at(prefix_, info);
  }
  void leave() override {
    prefix_.resize(stack_.back());
    stack_.pop_back();
  }
  void param(std::string_view, ParamBase&) override {}
  virtual void at(const std::string& path, const ModuleInfo& info) = 0;

 private:
  std::string prefix_;
  std::vector<size_t> stack_;
};

class QuantizeLayers : public ModulePaths {
 public:
  QuantizeLayers(const WeightQuantization& schemes, const QuantPathFilter& filter, bool weight_only)
      : schemes_(schemes), filter_(filter), weight_only_(weight_only) {}

  void at(const std::string& path, const ModuleInfo& info) override {
    Linear* l = layer_of<Linear>(info);
    if (!l && !is_conv(info)) return;
    if (filter_ && !filter_(path)) return;
    std::optional<QTensor>* slot = quantized_slot(info, "weight");
    const TensorHandle& w = l ? l->weight.handle() : conv_weight(info);
    *slot = quantize(api::to_device(w, valid_device(w.device)), l ? schemes_.linear : schemes_.conv);
    if (l) l->dequantize_at_forward = weight_only_;
    quantized.push_back(path);
  }

  std::vector<std::string> quantized;

 private:
  static const TensorHandle& conv_weight(const ModuleInfo& info) {
    if (auto* c = layer_of<Conv1d>(info)) return c->weight.handle();
    if (auto* c = layer_of<Conv2d>(info)) return c->weight.handle();
    return layer_of<Conv3d>(info)->weight.handle();
  }
  const WeightQuantization& schemes_;
  const QuantPathFilter& filter_;
  bool weight_only_;
};

class FindLinears : public ModulePaths {
 public:
  explicit FindLinears(const QuantPathFilter& filter) : filter_(filter) {}
  void at(const std::string& path, const ModuleInfo& info) override {
    if (layer_of<Linear>(info) && (!filter_ || filter_(path))) found.emplace_back(info.self, path);
  }
  std::vector<std::pair<const void*, std::string>> found;

 private:
  const QuantPathFilter& filter_;
};

thread_local Calibration* active_calibration = nullptr;

}  // namespace

std::optional<QTensor>* quantized_slot(const ModuleInfo& info, std::string_view param) {
  if (param != "weight") return nullptr;
  if (auto* l = layer_of<Linear>(info)) return &l->quantized_weight;
  if (auto* c = layer_of<Conv1d>(info)) return &c->quantized_weight;
  if (auto* c = layer_of<Conv2d>(info)) return &c->quantized_weight;
  if (auto* c = layer_of<Conv3d>(info)) return &c->quantized_weight;
  return nullptr;
}

std::vector<std::string> quantize_layers(ModuleRef m, const WeightQuantization& schemes, const QuantPathFilter& filter,
                                         bool weight_only) {
  QuantizeLayers v(schemes, filter, weight_only);
  m.walk(v);
  return std::move(v.quantized);
}

bool calibrating() noexcept { return active_calibration != nullptr; }

void observe_input(const void* layer, const TensorHandle& x) {
  if (active_calibration) active_calibration->observe(layer, x);
}

}  // namespace detail

std::pair<double, int64_t> ActivationRange::scale_zero_point(const QuantScheme& scheme) const {
  const auto qmin = static_cast<double>(scheme.qmin()), qmax = static_cast<double>(scheme.qmax());
  constexpr double kSmallest = 0x1p-126;
  if (scheme.mode == QuantMode::Symmetric)
    return {std::max(std::max(std::abs(min), std::abs(max)) / qmax, kSmallest), 0};
  const double lo = std::min(min, 0.0), hi = std::max(max, 0.0);
  const double scale = std::max((hi - lo) / (qmax - qmin), kSmallest);
  return {scale, static_cast<int64_t>(std::clamp(qmin - std::nearbyint(lo / scale), qmin, qmax))};
}

Calibration::Calibration(ModuleRef m, Observer observer, const QuantPathFilter& filter) : observer_(observer) {
  if (observer.kind == Observer::Kind::Percentile && !(observer.percentile >= 50 && observer.percentile <= 100))
    throw ValueError("Calibration", "the percentile must lie in [50, 100], got " + std::to_string(observer.percentile));
  detail::FindLinears v(filter);
  m.walk(v);
  layers_ = std::move(v.found);
  for (const auto& [layer, path] : layers_) seen_[path] = ActivationRange{};
  previous_ = detail::active_calibration;
  detail::active_calibration = this;
}

Calibration::~Calibration() {
  // Scopes end in reverse order on their thread; one ended out of order leaves the newer one active.
  if (detail::active_calibration == this) detail::active_calibration = previous_;
}

void Calibration::observe(const void* layer, const TensorHandle& x) {
  const auto it = std::find_if(layers_.begin(), layers_.end(), [&](const auto& l) { return l.first == layer; });
  if (it == layers_.end()) {
    if (previous_) previous_->observe(layer, x);  // an outer scope may watch it
    return;
  }
  if (!x.prim) return;
  ActivationRange& r = seen_[it->second];
  const std::vector<double> v = api::into_data(x).to_f64_vec();
  std::vector<float>* keep = observer_.kind == Observer::Kind::Percentile ? &samples_[it->second] : nullptr;
  ++r.calls;
  for (double e : v) {
    if (!std::isfinite(e)) {
      ++r.non_finite;
      continue;
    }
    r.min = r.count ? std::min(r.min, e) : e;
    r.max = r.count ? std::max(r.max, e) : e;
    ++r.count;
    if (keep) keep->push_back(static_cast<float>(e));
  }
  if (previous_) previous_->observe(layer, x);
}

std::vector<std::string> Calibration::paths() const {
  std::vector<std::string> out;
  for (const auto& l : layers_) out.push_back(l.second);
  return out;
}

namespace {
// NumPy's default percentile: linear interpolation between the closest ranks of the sorted values.
double percentile(std::vector<float> v, double p) {
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  const double b = hi == lo ? a : *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (rank - static_cast<double>(lo)) * (b - a);
}
}  // namespace

ActivationRange Calibration::range(std::string_view path) const {
  const auto it = seen_.find(std::string(path));
  if (it == seen_.end()) {
    std::string known;
    for (const auto& l : layers_) known += (known.empty() ? "" : ", ") + l.second;
    throw ValueError("Calibration::range", "no observed layer '" + std::string(path) + "' (observed: " + known + ")");
  }
  ActivationRange r = it->second;
  if (observer_.kind == Observer::Kind::Percentile && r.count > 0) {
    const std::vector<float>& v = samples_.at(it->first);
    r.min = percentile(v, 100.0 - observer_.percentile);
    r.max = percentile(v, observer_.percentile);
  }
  return r;
}

std::map<std::string, ActivationRange> Calibration::ranges() const {
  std::map<std::string, ActivationRange> out;
  for (const auto& l : layers_) out[l.second] = range(l.second);
  return out;
}

}  // namespace burn::nn
