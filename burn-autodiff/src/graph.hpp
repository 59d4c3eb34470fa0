// The autodiff graph: an AdPrim wraps the inner backend's primitive and, when tracked, the Node that
// made it. Nodes point at their parents' nodes, so a graph lives exactly as long as its tensors.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "burn/tensor/api.hpp"
#include "burn/tensor/backend.hpp"

namespace burn::autodiff {

using H = TensorHandle;
using Hs = std::vector<TensorHandle>;

struct Node;
using NodePtr = std::shared_ptr<Node>;

// A tensor a backward step reads: kept (strong), or checkpointed (weak, recomputed through its node
// once the forward pass let it go).
struct SavedRef {
  Prim strong;
  std::weak_ptr<Primitive> weak;
  NodePtr node;  // the tensor's node: for recomputation and, in create_graph mode, for re-tracking
  bool present() const { return strong || node || !weak.expired(); }
};

class Step;
// Returns one gradient per input of the op, in input order; an empty handle means none.
using BackwardFn = std::function<Hs(Step& step, const H& grad)>;
// Recomputes a node's output from its inputs on the inner backend (balanced checkpointing).
using ForwardFn = std::function<Prim(Backend& inner, Prims inputs)>;

struct Node {
  Node(OpId op, Shape shape, DType dtype);
  ~Node();  // unlinks long parent chains iteratively, so a deep graph cannot overflow the stack

  const uint64_t id;  // creation order: every parent has a smaller id than its children
  const OpId op;
  const Shape shape;  // of the (first) output
  const DType dtype;

  std::vector<NodePtr> parents;  // one per tensor input; null where the input is untracked
  BackwardFn backward;           // empty for a leaf
  std::vector<SavedRef> saved;   // by input index; empty refs where backward does not read it
  SavedRef output;               // this node's output when backward reads it (node field unused)
  Prims extra_outputs;           // outputs 1.. of a multi-output op (indices), untracked, kept
  ForwardFn recompute;           // set for memory-bound nodes under balanced checkpointing
  std::vector<SavedRef> recompute_inputs;
  Prim recomputed;                         // the recomputed output, cached until this node's backward step
  std::atomic<bool> output_needed{false};  // some backward step reads this (checkpointed) output

  std::atomic<bool> keep_grad{false};  // a leaf that requires grad, or a non-leaf whose grad is kept
  bool freed = false;                  // backward released it (no retain_graph)

  bool is_leaf() const { return !backward; }
  // Drops everything backward needed, after a backward without retain_graph.
  void release();
};

NodePtr make_leaf(const Shape& shape, DType dtype);

// The autodiff decorator's primitive.
class AdPrim final : public Primitive {
 public:
  AdPrim(Prim inner, NodePtr node)
      : Primitive(inner->shape(), inner->dtype()), inner_(std::move(inner)), node_(std::move(node)) {}
  const Prim& inner() const { return inner_; }
  // The inner primitive, moved out when this wrapper is its only owner's (so the inner backend may
  // reuse the buffer).
  Prim take_inner(bool sole_owner) { return sole_owner ? std::move(inner_) : inner_; }
  const NodePtr& node() const { return node_; }

 private:
  Prim inner_;
  NodePtr node_;
};

inline Prim wrap(Prim inner, NodePtr node = nullptr) {
  if (!inner) return nullptr;
  return std::make_shared<AdPrim>(std::move(inner), std::move(node));
}

// The AdPrim behind a primitive; DeviceError naming `op` if it came from another device.
AdPrim& ad_prim(const Prim& p, const char* op);
inline AdPrim* ad_prim_or_null(const Prim& p) {
  if (!p) return nullptr;
  return &ad_prim(p, "autodiff");
}
inline bool tracked(const Prim& p) {
  return p && static_cast<const AdPrim&>(*p).node() != nullptr;  // only called on checked AdPrims
}

}  // namespace burn::autodiff
