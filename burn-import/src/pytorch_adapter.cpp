// The PyTorch adapter's rules (pytorch_adapter.hpp), applied on import and on export.
#include "pytorch_adapter.hpp"

#include <cstring>
#include <typeinfo>
#include <unordered_map>

#include "burn/nn/linear.hpp"
#include "burn/nn/norm.hpp"

namespace burn::import::detail {

using record::EntryKind;
using record::Record;

namespace {

// Each parameter's path with the module holding it (its path and type) and its field name.
struct ParamSite {
  std::string path, module_path, field;
  const std::type_info* module_type;
};

class SiteCollector final : public nn::ModuleVisitor {
 public:
  void enter(std::string_view name, const nn::ModuleInfo& info) override { stack_.push_back({join(name), info.type}); }
  void leave() override { stack_.pop_back(); }
  void param(std::string_view name, nn::ParamBase&) override {
    sites.push_back({join(name), stack_.back().path, std::string(name), stack_.back().type});
  }
  std::vector<ParamSite> sites;

 private:
  std::string join(std::string_view name) const {
    if (stack_.empty() || stack_.back().path.empty()) return std::string(name);
    return name.empty() ? stack_.back().path : stack_.back().path + "." + std::string(name);
  }
  struct Frame {
    std::string path;
    const std::type_info* type;
  };
  std::vector<Frame> stack_;
};

bool is_norm(const std::type_info* t) {
  return t && (*t == typeid(nn::BatchNorm) || *t == typeid(nn::LayerNorm) || *t == typeid(nn::GroupNorm) ||
               *t == typeid(nn::InstanceNorm) || *t == typeid(nn::RmsNorm));
}

}  // namespace

TensorData transpose2(const TensorData& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  TensorData out = TensorData::uninitialized(Shape{cols, rows}, t.dtype());
  const size_t es = dtype_size(t.dtype());
  const auto* src = static_cast<const uint8_t*>(t.raw());
  auto* dst = static_cast<uint8_t*>(out.raw());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) std::memcpy(dst + (c * rows + r) * es, src + (r * cols + c) * es, es);
  }
  return out;
}

PyTorchLayout pytorch_layout(nn::ModuleRef m) {
  SiteCollector c;
  m.walk(c);
  PyTorchLayout layout;
  for (const ParamSite& s : c.sites) {
    const std::string prefix = s.module_path.empty() ? "" : s.module_path + ".";
    TorchName t{s.path, s.path, false};
    if (s.module_type && *s.module_type == typeid(nn::Linear) && s.field == "weight") t.transpose = true;
    if (is_norm(s.module_type) && (s.field == "gamma" || s.field == "beta"))
      t.torch_path = prefix + (s.field == "gamma" ? "weight" : "bias");
    // PyTorch counts batches for momentum=None (cumulative averages); burn's BatchNorm has no such mode.
    if (s.module_type && *s.module_type == typeid(nn::BatchNorm) && s.field == "running_var")
      layout.batch_counters.emplace_back(s.path, prefix + "num_batches_tracked");
    layout.params.push_back(std::move(t));
  }
  return layout;
}

std::vector<std::string> adapt_from_pytorch(nn::ModuleRef m, Record& rec) {
  const PyTorchLayout layout = pytorch_layout(m);
  for (const TorchName& t : layout.params) {
    if (t.transpose) {
      const record::Value* v = rec.find(t.burn_path);
      if (v && v->kind() == EntryKind::Tensor && v->tensor().shape().rank() == 2) {
        rec.at(t.burn_path).tensor() = transpose2(v->tensor());
      }
    } else if (t.torch_path != t.burn_path && !rec.contains(t.burn_path)) {
      if (const record::Value* v = rec.find(t.torch_path)) {
        record::Value moved = *v;
        rec.erase(t.torch_path);
        rec.set(t.burn_path, std::move(moved));
      }
    }
  }
  std::vector<std::string> ignored;
  for (const auto& [running_var, counter] : layout.batch_counters) {
    if (rec.erase(counter)) ignored.push_back(counter);
  }
  return ignored;
}

Record to_pytorch(nn::ModuleRef m, const Record& rec) {
  const PyTorchLayout layout = pytorch_layout(m);
  std::unordered_map<std::string, const TorchName*> by_path;
  for (const TorchName& t : layout.params) by_path.emplace(t.burn_path, &t);
  std::unordered_map<std::string, std::string> counter_after;
  for (const auto& [running_var, counter] : layout.batch_counters) counter_after.emplace(running_var, counter);
  Record out;
  out.metadata() = rec.metadata();
  const std::string ids = std::string(nn::kParamIdsGroup) + ".";
  for (const record::FlatEntry& e : rec.flatten()) {
    if (e.value->kind() == EntryKind::Group || e.path == nn::kParamIdsGroup || e.path.starts_with(ids)) continue;
    const auto it = by_path.find(e.path);
    if (it == by_path.end()) {
      out.set(e.path, *e.value);
      continue;
    }
    const TorchName& t = *it->second;
    if (t.transpose && e.value->kind() == EntryKind::Tensor && e.value->tensor().shape().rank() == 2) {
      out.set(t.torch_path, record::Value(transpose2(e.value->tensor())));
    } else {
      out.set(t.torch_path, *e.value);
    }
    if (const auto c = counter_after.find(e.path); c != counter_after.end()) {
      out.set(c->second, record::Value(TensorData::from_vector(std::vector<int64_t>{0}, Shape{})));
    }
  }
  return out;
}

}  // namespace burn::import::detail
