// The Optimizer adaptor: the module walk, groups, weight decay, clipping and the state record.
#include "burn/optim/optimizer.hpp"

#include <algorithm>
#include <charconv>

namespace burn::optim {

namespace {
// The state tensor holding a half parameter's f32 master copy (set_master_weights).
constexpr const char* kMasterState = "master";
}  // namespace

Rule::~Rule() = default;

const TensorHandle& ParamState::at(const std::string& name, const char* rule) const {
  auto it = tensors.find(name);
  if (it == tensors.end())
    throw ValueError(rule, "the parameter state has no tensor '" + name + "' (a state of another optimizer?)");
  return it->second;
}

Optimizer::Optimizer(std::shared_ptr<const Rule> rule, WeightDecay weight_decay,
                     std::optional<GradientClipping> clipping)
    : rule_(std::move(rule)), weight_decay_(weight_decay), clipping_(clipping) {
  if (!rule_) throw ValueError("Optimizer", "no rule given");
  if (!(weight_decay_.penalty >= 0))
    throw ValueError("Optimizer", "weight decay must be >= 0, got " + std::to_string(weight_decay_.penalty));
}

Optimizer& Optimizer::add_group(ParamGroup group) {
  if (group.ids.empty() && group.prefix.empty())
    throw ValueError("Optimizer::add_group", "a group needs parameter ids or a path prefix");
  if (!(group.lr_scale >= 0))
    throw ValueError("Optimizer::add_group", "lr_scale must be >= 0, got " + std::to_string(group.lr_scale));
  groups_.push_back(std::move(group));
  return *this;
}

Optimizer& Optimizer::set_clipping(std::optional<GradientClipping> clipping) {
  clipping_ = clipping;
  return *this;
}

const ParamState* Optimizer::state(nn::ParamId id) const {
  auto it = states_.find(id);
  return it == states_.end() ? nullptr : &it->second;
}

Optimizer::Settings Optimizer::settings_for(nn::ParamId id, const std::string& path) const {
  for (const ParamGroup& g : groups_) {
    bool match = std::find(g.ids.begin(), g.ids.end(), id) != g.ids.end();
    // "enc" matches "enc.weight" and "enc" itself, not "encoder.weight".
    if (!match && !g.prefix.empty() && path.compare(0, g.prefix.size(), g.prefix) == 0)
      match = path.size() == g.prefix.size() || g.prefix.back() == '.' || path[g.prefix.size()] == '.';
    if (match)
      return {g.lr_scale,
              {g.weight_decay.value_or(weight_decay_.penalty), weight_decay_.decoupled},
              g.rule ? g.rule.get() : rule_.get()};
  }
  return {1.0, weight_decay_, rule_.get()};
}

void Optimizer::step_module(double lr, nn::ModuleRef module, GradientsParams& grads) {
  if (!(lr >= 0)) throw ValueError("Optimizer::step", "the learning rate must be >= 0, got " + std::to_string(lr));
  if (clipping_) clipping_->apply(grads);
  NoGradGuard no_grad;
  // Every new value and state is computed first and committed at the end, so a step that throws
  // (a rule refusing a tensor, a state of another rule) leaves the module and the optimizer as they were.
  struct Update {
    nn::ParamBase* param;
    TensorHandle value;
    ParamState state;
    std::string rule;
  };
  std::vector<Update> updates;
  for (const nn::NamedParam& np : nn::detail::named_params(module)) {
    nn::ParamBase& p = *np.param;
    if (p.is_buffer() || !p.require_grad() || !p.initialized() || p.kind() != Kind::Float) continue;
    std::optional<TensorHandle> grad = grads.get(p.id());
    if (!grad) continue;
    const Device device = p.handle().device;
    const bool tracked = autodiff_of(device) != nullptr;
    TensorHandle x = tracked ? api::inner(p.handle()) : p.handle();
    TensorHandle g = std::move(*grad);
    if (g.prim->shape() != x.prim->shape())
      throw ShapeError("Optimizer::step", "parameter '" + np.path + "' is " + x.prim->shape().to_string() +
                                              " but its gradient is " + g.prim->shape().to_string());
    if (!(g.device == x.device)) g = api::to_device(g, x.device);
    // Master weights: a bf16/f16 parameter is updated through an f32 copy kept in its state ("master"),
    // and gets that copy rounded once; the rule and its moments see f32 only.
    const DType param_dtype = x.prim->dtype();
    const bool master = master_weights_ && (param_dtype == DType::F16 || param_dtype == DType::BF16);
    const DType work = master ? DType::F32 : param_dtype;
    if (g.prim->dtype() != work) g = api::cast(g, work);

    const Settings s = settings_for(p.id(), np.path);
    if (auto r = state_rules_.find(p.id()); r != state_rules_.end() && r->second != s.rule->name())
      throw RecordError("Optimizer::step", "the state of parameter '" + np.path + "' was made by '" + r->second +
                                               "', its rule is now '" + s.rule->name() + "'");
    ParamState in;
    if (auto it = states_.find(p.id()); it != states_.end()) in = it->second;  // handles only: cheap
    if (auto it = loaded_.find(p.id()); it != loaded_.end())                   // state from a record: now on the device
      for (const auto& [name, data] : it->second)
        in.tensors[name] = api::from_data(x.device, data.dtype() == work ? data : data.convert(work), Kind::Float);
    if (master) {
      auto m = in.tensors.find(kMasterState);
      if (m != in.tensors.end()) {
        x = m->second;
        in.tensors.erase(m);
      } else {
        x = api::cast(x, DType::F32);  // first step: the parameter widened exactly
      }
    }
    const double plr = lr * s.lr_scale;
    if (s.weight_decay.penalty != 0) {
      if (s.weight_decay.decoupled)
        x = api::mul_scalar(x, 1.0 - plr * s.weight_decay.penalty);
      else
        g = api::add(g, api::mul_scalar(x, s.weight_decay.penalty));
    }
    in.step += 1;
    RuleStep out = s.rule->step(plr, x, g, std::move(in));
    if (master) {
      out.state.tensors[kMasterState] = out.tensor;
      out.tensor = api::cast(out.tensor, param_dtype);
    }
    updates.push_back({&p, tracked ? api::from_inner(out.tensor, device) : std::move(out.tensor), std::move(out.state),
                       s.rule->name()});
  }
  for (Update& u : updates) {
    const nn::ParamId id = u.param->id();
    u.param->set_handle(std::move(u.value));
    states_[id] = std::move(u.state);
    state_rules_[id] = std::move(u.rule);
    loaded_.erase(id);
    grads.remove(id);
  }
}

record::Record Optimizer::to_record() const {
  record::Record rec;
  rec.set("rule", rule_->name());
  // Sorted by id, so the same state always gives the same file.
  std::map<nn::ParamId, const ParamState*> sorted;
  for (const auto& [id, st] : states_) sorted[id] = &st;
  for (const auto& [id, st] : sorted) {
    const std::string base = "state." + std::to_string(id);
    rec.set(base + ".step", st->step);
    if (auto r = state_rules_.find(id); r != state_rules_.end() && r->second != rule_->name())
      rec.set(base + ".rule", r->second);  // only for a group's own rule, so plain records stay small
    for (const auto& [name, h] : st->tensors) rec.set(base + "." + name, api::into_data(h));
    if (auto it = loaded_.find(id); it != loaded_.end())
      for (const auto& [name, data] : it->second) rec.set(base + "." + name, data);
  }
  rec.metadata().producer = "burn-optim optimizer";
  return rec;
}

void Optimizer::load_record(const record::Record& rec) {
  const record::Value* rule = rec.find("rule");
  if (!rule || rule->kind() != record::EntryKind::String)
    throw RecordError("Optimizer::load_record", "the record has no string entry 'rule' (not an optimizer state)");
  if (rule->as_string() != rule_->name())
    throw RecordError("Optimizer::load_record", "the record holds the state of '" + rule->as_string() +
                                                    "', this optimizer is '" + rule_->name() + "'");
  std::unordered_map<nn::ParamId, ParamState> states;
  std::unordered_map<nn::ParamId, std::string> rules;
  std::unordered_map<nn::ParamId, std::map<std::string, TensorData>> loaded;
  if (const record::Value* group = rec.find("state")) {
    if (group->kind() != record::EntryKind::Group)
      throw RecordError("Optimizer::load_record",
                        "'state' is a " + std::string(record::entry_kind_name(group->kind())));
    for (const record::Entry& e : group->group().entries()) {
      nn::ParamId id = 0;
      const auto [end, ec] = std::from_chars(e.name.data(), e.name.data() + e.name.size(), id);
      if (ec != std::errc() || end != e.name.data() + e.name.size() || e.value.kind() != record::EntryKind::Group)
        throw RecordError("Optimizer::load_record", "'state." + e.name + "' is not a parameter id's group");
      const record::Value* step = e.value.group().find("step");
      if (!step || step->kind() != record::EntryKind::Int || step->as_int() < 0)
        throw RecordError("Optimizer::load_record", "'state." + e.name + ".step' is missing or not a step count");
      states[id].step = step->as_int();
      rules[id] = rule_->name();
      for (const record::Entry& t : e.value.group().entries()) {
        if (t.name == "step") continue;
        if (t.name == "rule" && t.value.kind() == record::EntryKind::String) {
          rules[id] = t.value.as_string();
          continue;
        }
        if (t.value.kind() != record::EntryKind::Tensor)
          throw RecordError("Optimizer::load_record", "'state." + e.name + "." + t.name + "' is not a tensor");
        loaded[id][t.name] = t.value.tensor();
      }
    }
  }
  states_ = std::move(states);
  state_rules_ = std::move(rules);
  loaded_ = std::move(loaded);
}

}  // namespace burn::optim
