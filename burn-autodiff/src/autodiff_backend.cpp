// The Autodiff decorator: recording nodes, saved tensors and recomputation, the interface the tensor
// API reaches through query_interface("autodiff"), and the decorator registration.
#include "autodiff_backend.hpp"

#include "burn/autodiff/autodiff.hpp"
#include "burn/tensor/error.hpp"

namespace burn::autodiff {

AutodiffBackend::AutodiffBackend(BackendPtr inner, Checkpointing checkpointing)
    : UnwrapBackend(std::move(inner)), checkpointing_(checkpointing) {}

std::string AutodiffBackend::decorator_name() const {
  return checkpointing_ == Checkpointing::Balanced ? "autodiff-balanced" : "autodiff";
}

void* AutodiffBackend::query_interface(std::string_view name) {
  if (name == "autodiff") return static_cast<AutodiffInterface*>(this);
  return UnwrapBackend::query_interface(name);
}

Device AutodiffBackend::inner_device() { return Device::from_backend(inner()); }
Device AutodiffBackend::self_device() { return Device::from_backend(shared_from_this()); }

Prim AutodiffBackend::set_require_grad(const Prim& x, bool require) {
  AdPrim& a = ad_prim(x, "require_grad");
  if (!require) return wrap(a.inner());
  if (!is_float(a.dtype()))
    throw DTypeError("require_grad", "only float tensors can require grad, got " + std::string(dtype_name(a.dtype())));
  if (a.node()) {
    // An op's result: keep its gradient too (PyTorch's retain_grad); a leaf already requires grad.
    a.node()->keep_grad = true;
    return x;
  }
  return wrap(a.inner(), make_leaf(a.shape(), a.dtype()));
}

bool AutodiffBackend::is_require_grad(const Prim& x) const { return ad_prim(x, "is_require_grad").node() != nullptr; }

Prim AutodiffBackend::detach(const Prim& x) {
  AdPrim& a = ad_prim(x, "detach");
  return a.node() ? wrap(a.inner()) : x;
}

Prim AutodiffBackend::to_inner(const Prim& x) { return ad_prim(x, "inner").inner(); }

Prim AutodiffBackend::from_inner(Prim inner_prim) {
  if (!inner_prim) throw ValueError("from_inner", "null tensor primitive");
  return wrap(std::move(inner_prim));
}

std::optional<uint64_t> AutodiffBackend::grad_key(const Prim& x) const {
  const AdPrim& a = ad_prim(x, "grad");
  if (!a.node()) return std::nullopt;
  return a.node()->id;
}

bool AutodiffBackend::any_tracked(std::initializer_list<const Prim*> inputs) {
  if (!grad_enabled()) return false;
  for (const Prim* p : inputs)
    if (*p && tracked(*p)) return true;
  return false;
}

SavedRef AutodiffBackend::save(const Prim& p, bool read_by_backward) const {
  if (!p) return {};
  const AdPrim& a = static_cast<const AdPrim&>(*p);
  const NodePtr& n = a.node();
  // Balanced checkpointing: a memory-bound op's output is not kept; it is rebuilt from its inputs.
  if (checkpointing_ == Checkpointing::Balanced && n && n->recompute) {
    if (read_by_backward) n->output_needed = true;
    return {nullptr, a.inner(), n};
  }
  return {a.inner(), {}, n};
}

Prims AutodiffBackend::record(const Record& r, Prims inputs, std::function<Prims(Backend&, Prims)> forward,
                              BackwardFn backward_fn) {
  const char* op = op_info(r.op).name;
  bool track = false;
  for (const Prim& p : inputs)
    if (p && ad_prim(p, op).node()) track = true;
  track = track && grad_enabled();

  Prims inner_inputs(inputs.size());
  if (!track) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i]) inner_inputs[i] = static_cast<AdPrim&>(*inputs[i]).take_inner(inputs[i].use_count() == 1);
    inputs.clear();
    Prims out = forward(*inner(), std::move(inner_inputs));
    for (Prim& p : out) p = wrap(std::move(p));
    return out;
  }

  std::vector<NodePtr> parents(inputs.size());
  std::vector<SavedRef> saved(inputs.size());
  // Compute-bound outputs are kept; memory-bound ones are cheap to recompute, so checkpointing drops them.
  const bool checkpoint = checkpointing_ == Checkpointing::Balanced && op_info(r.op).bound == OpBound::Memory;
  // One slot per input, absent ones (a null bias) included, so recomputation sees the same arguments.
  std::vector<SavedRef> recompute_inputs(checkpoint ? inputs.size() : 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) continue;
    AdPrim& a = static_cast<AdPrim&>(*inputs[i]);
    if (a.node() && is_float(a.dtype())) parents[i] = a.node();
    if (r.save_inputs & in(i)) saved[i] = save(inputs[i], true);
    if (checkpoint) recompute_inputs[i] = save(inputs[i], false);
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i]) inner_inputs[i] = static_cast<AdPrim&>(*inputs[i]).take_inner(inputs[i].use_count() == 1);
  inputs.clear();

  Prims out = forward(*inner(), std::move(inner_inputs));
  auto node = std::make_shared<Node>(r.op, out.at(0)->shape(), out[0]->dtype());
  node->parents = std::move(parents);
  node->saved = std::move(saved);
  node->backward = std::move(backward_fn);
  if (checkpoint) {
    node->recompute_inputs = std::move(recompute_inputs);
    node->recompute = [f = std::move(forward)](Backend& b, Prims xs) { return f(b, std::move(xs)).at(0); };
  }
  if (r.save_output) {
    if (checkpoint) {
      node->output.weak = out[0];
      node->output_needed = true;
    } else {
      node->output.strong = out[0];
    }
  }
  for (size_t k = 1; k < out.size(); ++k) node->extra_outputs.push_back(out[k]);
  out[0] = wrap(std::move(out[0]), std::move(node));
  for (size_t k = 1; k < out.size(); ++k) out[k] = wrap(std::move(out[k]));
  return out;
}

Prim AutodiffBackend::record1(const Record& r, Prims inputs, std::function<Prim(Backend&, Prims)> forward,
                              BackwardFn backward_fn) {
  return record(
             r, std::move(inputs),
             [f = std::move(forward)](Backend& b, Prims xs) { return Prims{f(b, std::move(xs))}; },
             std::move(backward_fn))
      .at(0);
}

Prim AutodiffBackend::recompute(Node& node) {
  if (node.recomputed) return node.recomputed;
  if (!node.recompute)
    throw Error("backward", std::string("internal: a saved output of '") + op_info(node.op).name +
                                "' is gone and cannot be recomputed");
  Prims xs;
  xs.reserve(node.recompute_inputs.size());
  for (const SavedRef& r : node.recompute_inputs) xs.push_back(resolve(r));
  Prim out = node.recompute(*inner(), std::move(xs));
  // Cache only what a backward step reads; a link of the chain nobody saved is dropped at once, so a
  // recomputed chain holds no more than the keep-all strategy would.
  if (node.output_needed) node.recomputed = out;
  return out;
}

Prim AutodiffBackend::resolve(const SavedRef& ref) {
  if (ref.strong) return ref.strong;
  if (Prim p = ref.weak.lock()) return p;
  if (ref.node) return recompute(*ref.node);
  return nullptr;  // an absent optional input (bias)
}

// ---- Step ----

H Step::input(size_t i) {
  if (i >= node_->saved.size() || !node_->saved[i].present())
    throw Error("backward",
                std::string("internal: '") + op_info(node_->op).name + "' did not save input " + std::to_string(i));
  const SavedRef& ref = node_->saved[i];
  Prim p = ad_.resolve(ref);
  if (!graph_) return {device_, std::move(p)};
  return {device_, wrap(std::move(p), ref.node)};
}

H Step::output() {
  const SavedRef& ref = node_->output;
  Prim p = ref.strong ? ref.strong : ref.weak.lock();
  if (!p) p = ad_.recompute(*node_);
  if (!graph_) return {device_, std::move(p)};
  return {device_, wrap(std::move(p), node_)};
}

H Step::extra_output(size_t k) {
  if (k == 0 || k > node_->extra_outputs.size())
    throw Error("backward",
                std::string("internal: '") + op_info(node_->op).name + "' has no output " + std::to_string(k));
  return constant(node_->extra_outputs[k - 1]);
}

H Step::constant(const Prim& p) const {
  if (!graph_) return {device_, p};
  return {device_, wrap(p)};
}

// ---- registration ----

void register_decorators() {
  static const bool once = [] {
    register_decorator(
        "autodiff",
        [](BackendPtr inner) -> BackendPtr {
          return std::make_shared<AutodiffBackend>(std::move(inner), Checkpointing::None);
        },
        "reverse-mode gradients: float tensors can require_grad() and backward() (burn-autodiff)");
    register_decorator(
        "autodiff-balanced",
        [](BackendPtr inner) -> BackendPtr {
          return std::make_shared<AutodiffBackend>(std::move(inner), Checkpointing::Balanced);
        },
        "autodiff with balanced checkpointing: recomputes memory-bound outputs in backward (burn-autodiff)");
    return true;
  }();
  (void)once;
}

const char* version() { return BURN_AUTODIFF_VERSION; }

namespace {
// Linking burn::autodiff is enough for "autodiff<...>" specs to work.
const int g_registered = (register_decorators(), 0);
}  // namespace

}  // namespace burn::autodiff
