// The walkers of a module: every function of module.hpp is one visitor here.
#include "burn/nn/module.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "burn/record/file.hpp"
#include "burn/record/quant.hpp"
#include "quantized_slot.hpp"

namespace burn::nn {

ModuleVisitor::~ModuleVisitor() = default;
void ModuleVisitor::enter(std::string_view, const ModuleInfo&) {}
void ModuleVisitor::leave() {}

std::string ModuleInfo::type_name() const {
  if (!type) return "";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(type->name(), nullptr, nullptr, &status),
                                                   std::free);
  std::string name = status == 0 && demangled ? demangled.get() : type->name();
  // "burn::nn::Linear" -> "Linear"; template arguments are kept ("Block<4>").
  const size_t angle = name.find('<');
  const size_t colon = name.rfind("::", angle);
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

void ModuleRef::walk(ModuleVisitor& v) const {
  v.enter("", info_);
  visit_(self_, v);
  v.leave();
}

std::string LoadReport::to_string() const {
  std::ostringstream s;
  s << loaded.size() << " loaded";
  auto list = [&](const char* what, const std::vector<std::string>& xs) {
    if (xs.empty()) return;
    s << "; " << xs.size() << " " << what << ":";
    for (const auto& x : xs) s << " " << x << (&x == &xs.back() ? "" : ",");
  };
  list("missing", missing);
  list("unexpected", unexpected);
  list("mismatched", mismatched);
  return s.str();
}

namespace detail {

std::vector<std::string> split_field_names(const char* list, size_t count) {
  std::vector<std::string> names;
  if (count == 0) return names;  // BURN_MODULE(): a module with no parameters (Dropout)
  std::string cur;
  for (const char* p = list;; ++p) {
    if (*p == ',' || *p == '\0') {
      names.push_back(cur);
      cur.clear();
      if (*p == '\0') break;
    } else if (*p != ' ' && *p != '\t' && *p != '\n') {
      cur += *p;
    }
  }
  // A field written as an expression (`a[0]`, `f()`) would not be a path segment.
  for (const auto& n : names)
    if (n.empty() || n.find_first_of("()[]<>.*&") != std::string::npos)
      throw ValueError("BURN_MODULE", "'" + n + "' in (" + list + ") is not a plain field name");
  if (names.size() != count)
    throw ValueError("BURN_MODULE", "(" + std::string(list) + ") names " + std::to_string(names.size()) +
                                        " fields but lists " + std::to_string(count));
  return names;
}

namespace {

// Tracks the dotted path of the current position; the root module has no segment.
class PathVisitor : public ModuleVisitor {
 public:
  void enter(std::string_view name, const ModuleInfo&) override {
    stack_.push_back(prefix_.size());
    if (!name.empty()) prefix_ += std::string(name) + ".";
  }
  void leave() override {
    prefix_.resize(stack_.back());
    stack_.pop_back();
  }
  std::string path(std::string_view name) const { return prefix_ + std::string(name); }

 private:
  std::string prefix_;
  std::vector<size_t> stack_;
};

class Collect : public PathVisitor {
 public:
  void param(std::string_view name, ParamBase& p) override { out.push_back({path(name), &p}); }
  std::vector<NamedParam> out;
};

// A parameter with the slot where its layer keeps a quantized form (nullptr: the layer has none).
struct RecordParam {
  std::string path;
  ParamBase* param;
  std::optional<QTensor>* quantized;
};

class CollectForRecord : public PathVisitor {
 public:
  void enter(std::string_view name, const ModuleInfo& info) override {
    PathVisitor::enter(name, info);
    infos_.push_back(info);
  }
  void leave() override {
    PathVisitor::leave();
    infos_.pop_back();
  }
  void param(std::string_view name, ParamBase& p) override {
    out.push_back({path(name), &p, infos_.empty() ? nullptr : quantized_slot(infos_.back(), name)});
  }
  std::vector<RecordParam> out;

 private:
  std::vector<ModuleInfo> infos_;
};

std::vector<RecordParam> record_params(ModuleRef m) {
  CollectForRecord c;
  m.walk(c);
  return std::move(c.out);
}

// A visitor from a lambda over each parameter, for the walkers that need no path.
template <class F>
class EachParam : public ModuleVisitor {
 public:
  explicit EachParam(F f) : f_(std::move(f)) {}
  void param(std::string_view, ParamBase& p) override { f_(p); }

 private:
  F f_;
};
template <class F>
void each_param(ModuleRef m, F f) {
  EachParam<F> v(std::move(f));
  m.walk(v);
}

std::string shape_string(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string with_commas(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Builds the module tree, then prints it in PyTorch's layout with shapes and counts added.
class Printer : public ModuleVisitor {
 public:
  struct Node {
    std::string name, type, extra;
    bool container = false;
    std::vector<std::string> params;  // "weight [784, 512] f32"
    std::vector<std::unique_ptr<Node>> children;
    int64_t count = 0;
  };
  void enter(std::string_view name, const ModuleInfo& info) override {
    auto node = std::make_unique<Node>();
    node->name = name;
    node->type = info.type_name();
    node->extra = info.extra();
    node->container = info.type == nullptr;
    Node* raw = node.get();
    if (stack_.empty())
      root_ = std::move(node);
    else
      stack_.back()->children.push_back(std::move(node));
    stack_.push_back(raw);
  }
  void leave() override {
    Node* done = stack_.back();
    stack_.pop_back();
    if (!stack_.empty()) stack_.back()->count += done->count;
  }
  void param(std::string_view name, ParamBase& p) override {
    std::string line = std::string(name) + ": " + shape_string(p.shape()) + " " + std::string(dtype_name(p.dtype()));
    if (p.is_buffer())
      line += " (buffer)";
    else if (!p.require_grad())
      line += " (frozen)";
    if (!p.is_buffer()) stack_.back()->count += p.num_elements();
    stack_.back()->params.push_back(std::move(line));
  }
  std::string print() const {
    std::string out;
    print(*root_, 0, out);
    return out;
  }

 private:
  // A leaf on one line: "(fc1): Linear(d_input=4, d_output=2, bias=true) {weight: [4, 2] f32, ...}  # 10 params";
  // a module with sub-modules as a block, PyTorch's print(model) layout.
  static void print(const Node& n, int indent, std::string& out) {
    const std::string pad(indent, ' ');
    const std::string label = n.name.empty() ? "" : "(" + n.name + "): ";
    const std::string count = n.count ? "  # " + with_commas(n.count) + " params" : "";
    if (n.children.empty() && !n.container) {
      out += pad + label + n.type + "(" + n.extra + ")";
      if (!n.params.empty()) {
        out += " {";
        for (size_t i = 0; i < n.params.size(); ++i) out += (i ? ", " : "") + n.params[i];
        out += "}";
      }
      out += count + "\n";
      return;
    }
    out += pad + label + (n.container ? "[" : n.type + "(") + count + "\n";
    if (!n.extra.empty()) out += pad + "  " + n.extra + "\n";
    for (const auto& p : n.params) out += pad + "  " + p + "\n";
    for (const auto& c : n.children) print(*c, indent + 2, out);
    out += pad + (n.container ? "]" : ")") + "\n";
  }
  std::unique_ptr<Node> root_;
  std::vector<Node*> stack_;
};

}  // namespace

std::vector<NamedParam> named_params(ModuleRef m) {
  Collect c;
  m.walk(c);
  return std::move(c.out);
}

int64_t num_params(ModuleRef m) {
  int64_t n = 0;
  each_param(m, [&](ParamBase& p) {
    if (!p.is_buffer() && p.initialized()) n += p.num_elements();
  });
  return n;
}

void to_device(ModuleRef m, const Device& d) {
  each_param(m, [&](ParamBase& p) {
    if (p.initialized()) p.set_handle(api::to_device(p.handle(), d));
  });
}

void valid(ModuleRef m) {
  // Every autodiff layer is peeled: one inner() of autodiff<autodiff<cpu>> would still train dropout.
  each_param(m, [&](ParamBase& p) {
    if (!p.initialized()) return;
    TensorHandle h = p.handle();
    while (autodiff_of(h.device)) h = api::inner(h);
    if (h.device != p.handle().device) p.set_handle(std::move(h));
  });
}

void set_require_grad(ModuleRef m, bool require) {
  each_param(m, [&](ParamBase& p) { p.set_require_grad(require); });
}

void cast(ModuleRef m, DType dtype) {
  if (!is_float(dtype))
    throw DTypeError("cast", "a module is cast to a float dtype, not " + std::string(dtype_name(dtype)));
  each_param(m, [&](ParamBase& p) {
    if (p.initialized() && p.kind() == Kind::Float) p.set_handle(api::cast(p.handle(), dtype));
  });
}

std::string display(ModuleRef m) {
  Printer p;
  m.walk(p);
  return p.print();
}

record::Record into_record(ModuleRef m) {
  record::Record rec;
  const std::string ids(kParamIdsGroup);
  for (const RecordParam& rp : record_params(m)) {
    if (!rp.param->initialized()) continue;
    // A quantized layer saves its QTensor in the parameter's place (burn/record/quant.hpp); a load gives the
    // float parameter the dequantized weight.
    // Its id goes with the values tensor (`_param_ids.<path>.values`): Burn's formats keep ids on tensors only.
    const bool quantized = rp.quantized && *rp.quantized;
    if (quantized)
      rec.set(rp.path, record::quantized_record(**rp.quantized));
    else
      rec.set(rp.path, api::into_data(rp.param->handle()));
    rec.set(ids + "." + rp.path + (quantized ? ".values" : ""), static_cast<int64_t>(rp.param->id()));
  }
  rec.metadata().producer = "burn-nn module";
  return rec;
}

namespace {

std::string describe_param(const ParamBase& p) {
  return p.initialized() ? shape_string(p.shape()) + " " + std::string(dtype_name(p.dtype())) : "(no tensor)";
}

// Whether `path` is `group` or lies below it.
bool under(const std::string& path, const std::vector<std::string>& groups) {
  for (const std::string& g : groups)
    if (path.size() >= g.size() && path.compare(0, g.size(), g) == 0 &&
        (path.size() == g.size() || path[g.size()] == '.'))
      return true;
  return false;
}

}  // namespace

LoadReport load_record(ModuleRef m, const record::Record& full, const ModuleLoadOptions& options) {
  static constexpr const char* op = "load_record";
  const record::Record* rec = &full;
  if (!options.prefix.empty()) {
    const record::Value* g = full.find(options.prefix);
    if (!g || g->kind() != record::EntryKind::Group)
      throw RecordError(op, "the record has no group '" + options.prefix + "' (the prefix to load from)");
    rec = &g->group();
  }
  LoadReport report;
  std::vector<std::pair<ParamBase*, TensorHandle>> updates;  // applied only when the load succeeds
  std::vector<std::pair<std::optional<QTensor>*, QTensor>> quantized_updates;
  std::vector<std::string> read;
  for (const RecordParam& rp : record_params(m)) {
    ParamBase& p = *rp.param;
    const std::string& path = rp.path;
    const record::Value* v = rec->find(path);
    const bool module_quantized = rp.quantized && rp.quantized->has_value();
    if (v && record::is_quantized(*v)) {
      read.push_back(path);
      const record::QuantizedEntry e = record::check_quantized(*v, path, op);
      std::string problem;
      if (!rp.quantized) {
        // A parameter with no quantized form (a bias, a norm's weight: Rust Burn's Quantizer quantizes every
        // float parameter) takes the dequantized values.
        if (p.kind() != Kind::Float)
          problem = "the record holds a quantized tensor (" + e.describe() + ") for a non-float parameter";
        else if (e.shape.rank() != p.rank() || (p.initialized() && e.shape != p.shape()))
          problem = "record quantized " + e.describe() + ", module " + describe_param(p);
        if (!problem.empty()) {
          report.mismatched.push_back(path + ": " + problem);
          continue;
        }
        if (!p.initialized()) throw RecordError(op, "parameter '" + path + "' has no tensor to give a device to");
        const QTensor q = record::read_quantized(*v, path, valid_device(p.handle().device), op);
        updates.emplace_back(&p, api::to_device(q.dequantize_handle(p.dtype()), p.handle().device));
        report.loaded.push_back(path);
        continue;
      }
      if (!module_quantized)
        problem = "the record holds a quantized tensor (" + e.describe() + "), the module a float parameter " +
                  describe_param(p) + " (quantize the module before loading: quantize_dynamic)";
      else if (e.shape != p.shape())
        problem = "record quantized " + e.describe() + ", module " + shape_string(p.shape());
      if (!problem.empty()) {
        report.mismatched.push_back(path + ": " + problem);
        continue;
      }
      // Where quantize_dynamic puts it: the parameter's device without autodiff layers.
      QTensor q = record::read_quantized(*v, path, valid_device(p.handle().device), op);
      updates.emplace_back(&p, api::to_device(q.dequantize_handle(p.dtype()), p.handle().device));
      quantized_updates.emplace_back(rp.quantized, std::move(q));
      report.loaded.push_back(path);
      continue;
    }
    if (!v || v->kind() != record::EntryKind::Tensor) {
      report.missing.push_back(path);
      continue;
    }
    read.push_back(path);
    const TensorData& data = v->tensor();
    std::string problem;
    if (module_quantized)
      problem = "the record holds a float tensor " + shape_string(data.shape()) + " " +
                std::string(dtype_name(data.dtype())) + ", the module a quantized weight (" +
                (*rp.quantized)->scheme().to_string() + " " + (*rp.quantized)->shape().to_string() +
                "; load the float record first, then quantize)";
    else if (data.shape().rank() != p.rank())
      problem = "record rank " + std::to_string(data.shape().rank()) + ", module rank " + std::to_string(p.rank());
    else if (p.initialized() && data.shape() != p.shape())
      problem = "record " + shape_string(data.shape()) + ", module " + shape_string(p.shape());
    else if ((p.kind() == Kind::Float) != is_float(data.dtype()))
      problem = "record dtype " + std::string(dtype_name(data.dtype())) + " for a " +
                (p.kind() == Kind::Float ? "float" : "non-float") + " parameter";
    if (!problem.empty()) {
      report.mismatched.push_back(path + ": " + problem);
      continue;
    }
    if (!p.initialized()) throw RecordError(op, "parameter '" + path + "' has no tensor to give a device to");
    // The record's values at the module's precision, on the parameter's device.
    TensorData converted = data.dtype() == p.dtype() ? data : data.convert(p.dtype());
    updates.emplace_back(&p, api::from_data(p.handle().device, converted, p.kind()));
    report.loaded.push_back(path);
  }
  // Entries no parameter read: tensors, and quantized groups as one entry (not their parts).
  std::vector<std::string> covered = read;
  for (const record::FlatEntry& e : rec->flatten()) {
    if (under(e.path, covered)) continue;
    if (record::is_quantized(*e.value)) {
      report.unexpected.push_back(e.path);
      covered.push_back(e.path);
    } else if (e.value->kind() == record::EntryKind::Tensor) {
      report.unexpected.push_back(e.path);
    }
  }
  if (options.strict && !report.ok())
    throw RecordError(op, "the record does not match the module: " + report.to_string());
  const record::Value* ids = rec->find(kParamIdsGroup);
  for (auto& [p, h] : updates) {
    p->set_handle(std::move(h));
  }
  for (auto& [slot, q] : quantized_updates) *slot = std::move(q);
  if (options.keep_ids && ids && ids->kind() == record::EntryKind::Group) {
    for (const NamedParam& np : named_params(m)) {
      const record::Value* id = ids->group().find(np.path);
      // A quantized entry's id is its values tensor's (into_record).
      if (id && id->kind() == record::EntryKind::Group) id = id->group().find("values");
      if (id && id->kind() == record::EntryKind::Int) np.param->set_id(static_cast<ParamId>(id->as_int()));
    }
  }
  return report;
}

void save(ModuleRef m, const std::string& path, const record::SaveOptions& options) {
  record::save(path, into_record(m), options);
}

LoadReport load(ModuleRef m, const std::string& path, const ModuleLoadOptions& options) {
  try {
    return load_record(m, record::load(path), options);
  } catch (const RecordError& e) {
    if (std::string_view(e.what()).find(path) != std::string_view::npos) throw;
    throw RecordError("load", path + ": " + e.what());
  }
}

}  // namespace detail

Device valid_device(const Device& d) {
  Device out = d;
  while (AutodiffInterface* ad = autodiff_of(out)) out = ad->inner_device();
  return out;
}

}  // namespace burn::nn
