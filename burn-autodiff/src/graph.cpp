// Graph nodes and the autodiff primitive.
#include "graph.hpp"

#include <typeinfo>

#include "burn/tensor/error.hpp"

namespace burn::autodiff {

namespace {
std::atomic<uint64_t> g_next_id{1};
}  // namespace

Node::Node(OpId op_, Shape shape_, DType dtype_)
    : id(g_next_id.fetch_add(1, std::memory_order_relaxed)), op(op_), shape(std::move(shape_)), dtype(dtype_) {}

Node::~Node() {
  // Destroying a parent whose last owner is this node would recurse once per graph level; move such
  // parents to a local list instead and unlink their own parents in a loop.
  std::vector<NodePtr> pending;
  auto take = [&](std::vector<NodePtr>& from) {
    for (NodePtr& p : from)
      if (p && p.use_count() == 1) pending.push_back(std::move(p));
    from.clear();
  };
  auto take_refs = [&](std::vector<SavedRef>& refs) {
    for (SavedRef& r : refs)
      if (r.node && r.node.use_count() == 1) pending.push_back(std::move(r.node));
    refs.clear();
  };
  take(parents);
  take_refs(saved);
  take_refs(recompute_inputs);
  while (!pending.empty()) {
    NodePtr n = std::move(pending.back());
    pending.pop_back();
    take(n->parents);
    take_refs(n->saved);
    take_refs(n->recompute_inputs);
    // n is destroyed here with no owned parents left, so its destructor does not recurse.
  }
}

void Node::release() {
  backward = nullptr;
  saved.clear();
  output = {};
  recompute = nullptr;
  recompute_inputs.clear();
  recomputed = nullptr;
  freed = true;
}

NodePtr make_leaf(const Shape& shape, DType dtype) {
  // A leaf records no op; `cast` stands in as a harmless id for logs.
  auto n = std::make_shared<Node>(OpId::cast, shape, dtype);
  n->keep_grad = true;
  return n;
}

AdPrim& ad_prim(const Prim& p, const char* op) {
  if (!p) throw ValueError(op, "null tensor primitive");
  // typeid of a final class is one comparison, cheaper than dynamic_cast on every op.
  if (typeid(*p) != typeid(AdPrim))
    throw DeviceError(op,
                      "the tensor does not belong to an autodiff device; move it there with to_device or "
                      "Tensor::from_inner");
  return static_cast<AdPrim&>(*p);
}

}  // namespace burn::autodiff
