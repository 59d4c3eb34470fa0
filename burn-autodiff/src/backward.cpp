// The backward pass: walks the graph from the root in reverse creation order, runs each node's
// backward once all of its consumers have contributed, accumulates the gradients of tensors used
// more than once, keeps those of the tensors that require grad (telling the thread's GradReadyScope
// as each one is final), and frees the graph afterwards.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "autodiff_backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/grad_ready.hpp"

namespace burn::autodiff {

namespace {

// Every node reachable from root, sorted so that a node comes before all of its parents.
std::vector<NodePtr> reverse_topological(const NodePtr& root) {
  std::vector<NodePtr> nodes;
  std::unordered_set<const Node*> seen;
  std::vector<const NodePtr*> stack{&root};
  seen.insert(root.get());
  while (!stack.empty()) {
    const NodePtr& n = *stack.back();
    stack.pop_back();
    nodes.push_back(n);
    for (const NodePtr& p : n->parents)
      if (p && seen.insert(p.get()).second) stack.push_back(&p);
  }
  // Parents are always created before their children, so decreasing ids are a valid order.
  std::sort(nodes.begin(), nodes.end(), [](const NodePtr& a, const NodePtr& b) { return a->id > b->id; });
  return nodes;
}

}  // namespace

Gradients AutodiffBackend::backward(const Prim& root_prim, const BackwardOptions& options) {
  const AdPrim& root = ad_prim(root_prim, "backward");
  if (!root.node()) {
    throw ValueError("backward",
                     "the tensor is not tracked: none of the tensors it was computed from requires "
                     "grad (call require_grad() on the parameters first)");
  }
  const bool graph = options.create_graph;
  const bool retain = options.retain_graph || options.create_graph;
  const Device device = graph ? self_device() : inner_device();

  std::vector<NodePtr> order = reverse_topological(root.node());
  for (const NodePtr& n : order) {
    if (n->freed) {
      throw ValueError("backward", std::string("the graph was freed by an earlier backward() (at op '") +
                                       op_info(n->op).name +
                                       "'); pass BackwardOptions{.retain_graph = true} to run backward twice");
    }
  }

  std::unordered_map<const Node*, H> pending;
  pending.reserve(order.size());
  pending[root.node().get()] = api::full(device, root.shape(), 1, root.dtype());
  Gradients grads;
  const GradReadyHook* ready = current_grad_ready_hook();

  // A backward that throws must not leave recomputed tensors cached in the graph.
  struct ClearRecomputed {
    std::vector<NodePtr>& nodes;
    ~ClearRecomputed() {
      for (const NodePtr& n : nodes) n->recomputed = nullptr;
    }
  } clear{order};

  for (const NodePtr& node : order) {
    // Every consumer of this node's output has a larger id and has run: a recomputed output is
    // not read again in this pass.
    struct DropRecomputed {
      Node& n;
      ~DropRecomputed() { n.recomputed = nullptr; }
    } drop{*node};
    auto it = pending.find(node.get());
    if (it == pending.end()) continue;  // no path from the root carries a gradient here
    H grad = std::move(it->second);
    pending.erase(it);
    // Every consumer has contributed (they come earlier in the order): this gradient is final.
    if (node->keep_grad) {
      grads.set(node->id, grad);
      if (ready) (*ready)(node->id, grad);
    }
    if (node->is_leaf()) continue;

    Step step(*this, node, device, graph);
    Hs input_grads = node->backward(step, grad);
    for (size_t i = 0; i < node->parents.size() && i < input_grads.size(); ++i) {
      const NodePtr& parent = node->parents[i];
      H& g = input_grads[i];
      if (!parent || !g.prim) continue;
      if (g.prim->shape() != parent->shape) {
        throw Error("backward", std::string("internal: the backward of '") + op_info(node->op).name + "' gave input " +
                                    std::to_string(i) + " a gradient of shape " + g.prim->shape().to_string() +
                                    ", expected " + parent->shape.to_string());
      }
      auto [slot, fresh] = pending.try_emplace(parent.get(), g);
      if (!fresh) slot->second = api::add(std::move(slot->second), g);
    }
  }
  if (!retain)
    for (const NodePtr& n : order)
      if (!n->is_leaf()) n->release();  // leaves (parameters) serve the next step's graph too
  return grads;
}

}  // namespace burn::autodiff
