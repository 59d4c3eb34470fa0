// Tensor API: the autodiff calls (require_grad, backward, grad, inner/from_inner) and the no-grad
// scope. They reach the decorator through query_interface("autodiff"); on a device without autodiff
// they say so instead of silently doing nothing.
#include "burn/tensor/autodiff.hpp"

#include "burn/tensor/grad_ready.hpp"

#include "burn/tensor/autocast.hpp"
#include "checks.hpp"

namespace burn {

AutodiffInterface::~AutodiffInterface() = default;

std::optional<TensorHandle> Gradients::get(uint64_t key) const {
  const auto it = grads_.find(key);
  if (it == grads_.end()) return std::nullopt;
  return it->second;
}

std::optional<TensorHandle> Gradients::remove(uint64_t key) {
  const auto it = grads_.find(key);
  if (it == grads_.end()) return std::nullopt;
  TensorHandle g = std::move(it->second);
  grads_.erase(it);
  return g;
}

void Gradients::set(uint64_t key, TensorHandle grad) { grads_[key] = std::move(grad); }

AutodiffInterface* autodiff_of(const Device& d) {
  if (!d.backend()) return nullptr;
  return static_cast<AutodiffInterface*>(d->query_interface("autodiff"));
}

namespace {
thread_local bool t_grad_enabled = true;
}  // namespace

bool grad_enabled() { return t_grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(t_grad_enabled) { t_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { t_grad_enabled = previous_; }

namespace {
thread_local const GradReadyHook* t_grad_ready = nullptr;  // the innermost GradReadyScope's hook
}  // namespace

GradReadyScope::GradReadyScope(GradReadyHook hook) : hook_(std::move(hook)), previous_(t_grad_ready) {
  t_grad_ready = hook_ ? &hook_ : nullptr;
}
GradReadyScope::~GradReadyScope() { t_grad_ready = previous_; }
const GradReadyHook* current_grad_ready_hook() { return t_grad_ready; }

namespace api {
using namespace detail;

namespace {

AutodiffInterface& require_autodiff(const H& h, const char* op) {
  AutodiffInterface* ad = autodiff_of(h.device);
  be(h, op);
  if (!ad) {
    throw Unsupported(op, "device '" + h.device.name() + "' does not record gradients; use an autodiff device, e.g. '" +
                              "autodiff<" + h.device.name() + ">' (Device::autodiff())");
  }
  return *ad;
}

}  // namespace

H set_require_grad(const H& h, bool require) {
  be(h, "require_grad");
  if (!require && !autodiff_of(h.device)) return h;
  AutodiffInterface& ad = require_autodiff(h, "require_grad");
  if (require) require_float(h, "require_grad");
  return {h.device, ad.set_require_grad(h.prim, require)};
}

bool is_require_grad(const H& h) {
  be(h, "is_require_grad");
  AutodiffInterface* ad = autodiff_of(h.device);
  return ad && ad->is_require_grad(h.prim);
}

H detach(const H& h) {
  be(h, "detach");
  AutodiffInterface* ad = autodiff_of(h.device);
  return ad ? H{h.device, ad->detach(h.prim)} : h;
}

Gradients backward(const H& h, const BackwardOptions& options) {
  AutodiffInterface& ad = require_autodiff(h, "backward");
  require_float(h, "backward");
  NoAutocastGuard no_autocast;  // each backward op runs in the dtype its forward ran in
  return ad.backward(h.prim, options);
}

std::optional<H> grad(const H& h, const Gradients& grads) {
  be(h, "grad");
  AutodiffInterface* ad = autodiff_of(h.device);
  if (!ad) return std::nullopt;
  const auto key = ad->grad_key(h.prim);
  return key ? grads.get(*key) : std::nullopt;
}

std::optional<H> grad_remove(const H& h, Gradients& grads) {
  be(h, "grad_remove");
  AutodiffInterface* ad = autodiff_of(h.device);
  if (!ad) return std::nullopt;
  const auto key = ad->grad_key(h.prim);
  return key ? grads.remove(*key) : std::nullopt;
}

void grad_replace(const H& h, Gradients& grads, const H& g) {
  AutodiffInterface& ad = require_autodiff(h, "grad_replace");
  be(g, "grad_replace");
  if (g.prim->shape() != h.prim->shape())
    throw ShapeError("grad_replace", "gradient shape " + g.prim->shape().to_string() + " differs from the tensor's " +
                                         h.prim->shape().to_string());
  const auto key = ad.grad_key(h.prim);
  if (!key) throw ValueError("grad_replace", "the tensor does not require grad, so it has no gradient slot");
  grads.set(*key, g);
}

H inner(const H& h) {
  AutodiffInterface& ad = require_autodiff(h, "inner");
  return {ad.inner_device(), ad.to_inner(h.prim)};
}

H from_inner(const H& x, const Device& autodiff_device) {
  be(x, "from_inner");
  AutodiffInterface* ad = autodiff_of(autodiff_device);
  if (!ad) throw DeviceError("from_inner", "device '" + autodiff_device.name() + "' is not an autodiff device");
  if (x.device != ad->inner_device())
    throw DeviceError("from_inner", "the tensor is on '" + x.device.name() + "', but the inner device of '" +
                                        autodiff_device.name() + "' is '" + ad->inner_device().name() + "'");
  return {autodiff_device, ad->from_inner(x.prim)};
}

}  // namespace api
}  // namespace burn
