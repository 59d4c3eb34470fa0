// The autodiff contract of burn-tensor, as Burn's AutodiffBackend trait: what the tensor API needs from
// an autodiff decorator (reached through query_interface("autodiff")), the Gradients it returns and
// the no-grad scope. The decorator itself lives in burn-autodiff; burn-tensor does not link it.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "burn/tensor/api.hpp"

namespace burn {

// The gradients of one backward pass, keyed by the graph node of each tensor that required a grad.
// Read them with tensor.grad(grads); a gradient lives on the inner (non-autodiff) device, or on the
// autodiff device itself when backward built a graph (create_graph).
class BURN_TENSOR_API Gradients {
 public:
  std::optional<TensorHandle> get(uint64_t key) const;
  std::optional<TensorHandle> remove(uint64_t key);
  void set(uint64_t key, TensorHandle grad);
  size_t size() const { return grads_.size(); }
  bool empty() const { return grads_.empty(); }

 private:
  std::unordered_map<uint64_t, TensorHandle> grads_;
};

struct BackwardOptions {
  // Keep the graph after backward so that backward can run on it again (PyTorch's retain_graph).
  bool retain_graph = false;
  // Record the backward pass itself, so the gradients are differentiable (second order); implies
  // retain_graph, as in PyTorch.
  bool create_graph = false;
};

// What an autodiff decorator provides to the tensor API; prims are the decorator's own.
class BURN_TENSOR_API AutodiffInterface {
 public:
  virtual ~AutodiffInterface();
  virtual Device inner_device() = 0;
  virtual Checkpointing checkpointing() const = 0;
  // A float tensor marked (or unmarked) as a leaf whose gradient backward keeps.
  virtual Prim set_require_grad(const Prim& x, bool require) = 0;
  virtual bool is_require_grad(const Prim& x) const = 0;
  // The same values, cut from the graph.
  virtual Prim detach(const Prim& x) = 0;
  virtual Prim to_inner(const Prim& x) = 0;
  virtual Prim from_inner(Prim inner) = 0;
  // The key of x's gradient in a Gradients; none when x is not tracked.
  virtual std::optional<uint64_t> grad_key(const Prim& x) const = 0;
  virtual Gradients backward(const Prim& root, const BackwardOptions& options) = 0;
};

// The autodiff interface of a device's chain; nullptr when it has none.
BURN_TENSOR_API AutodiffInterface* autodiff_of(const Device& d);

// Whether ops on this thread record the graph (false inside a NoGradGuard).
BURN_TENSOR_API bool grad_enabled();

// Turns graph recording off on this thread for its lifetime (PyTorch's torch.no_grad()).
class BURN_TENSOR_API NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

namespace api {
BURN_TENSOR_API H set_require_grad(const H& h, bool require);
BURN_TENSOR_API bool is_require_grad(const H& h);
BURN_TENSOR_API H detach(const H& h);
BURN_TENSOR_API Gradients backward(const H& h, const BackwardOptions& options);
BURN_TENSOR_API std::optional<H> grad(const H& h, const Gradients& grads);
BURN_TENSOR_API std::optional<H> grad_remove(const H& h, Gradients& grads);
BURN_TENSOR_API void grad_replace(const H& h, Gradients& grads, const H& grad);
BURN_TENSOR_API H inner(const H& h);
BURN_TENSOR_API H from_inner(const H& inner, const Device& autodiff_device);
}  // namespace api

}  // namespace burn
