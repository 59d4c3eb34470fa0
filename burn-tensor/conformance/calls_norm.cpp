// burn-conformance: the calls of the norm module ops. Inputs come in order x, [weight], [bias],
// [running_mean, running_var], [grad_out]; attrs "weight", "bias", "running" say which are present.
// Null outputs (absent parameters' gradients, running stats that were not updated) are dropped.
#include <optional>

#include "burn/tensor/module.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

namespace {

// Reads the optional inputs in order (a default TensorHandle cannot be made, so x and grad_out stay
// optional until read).
struct Args {
  std::optional<H> x_, grad_out_;
  api::OptH weight, bias, running_mean, running_var;
  H x() { return std::move(*x_); }
  const H& grad_out() const { return *grad_out_; }
};

Args args(Hs& in, const json& a, bool with_bias, bool backward) {
  Args r;
  size_t i = 0;
  r.x_ = std::move(in.at(i++));
  if (a.value("weight", false)) r.weight = in.at(i++);
  if (with_bias && a.value("bias", false)) r.bias = in.at(i++);
  if (a.value("running", false)) {
    r.running_mean = in.at(i++);
    r.running_var = in.at(i++);
  }
  if (backward) r.grad_out_ = in.at(i++);
  return r;
}

Hs non_null(Hs hs) {
  Hs out;
  for (H& h : hs)
    if (h.prim) out.push_back(std::move(h));
  return out;
}

size_t dims(const json& a) { return static_cast<size_t>(i64(a, "normalized_dims")); }

}  // namespace

void add_norm_calls(CallTable& t) {
  t["layer_norm"] = [](const Device&, Hs& in, const json& a) {
    Args r = args(in, a, true, false);
    return one(api::layer_norm(r.x(), r.weight, r.bias, dims(a), f64(a, "eps")));
  };
  t["layer_norm_backward"] = [](const Device&, Hs& in, const json& a) {
    Args r = args(in, a, false, true);
    return non_null(api::layer_norm_backward(r.x(), r.weight, r.grad_out(), dims(a), f64(a, "eps")));
  };
  t["group_norm"] = [](const Device&, Hs& in, const json& a) {
    Args r = args(in, a, true, false);
    return one(api::group_norm(r.x(), r.weight, r.bias, i64(a, "num_groups"), f64(a, "eps")));
  };
  t["group_norm_backward"] = [](const Device&, Hs& in, const json& a) {
    Args r = args(in, a, false, true);
    return non_null(api::group_norm_backward(r.x(), r.weight, r.grad_out(), i64(a, "num_groups"), f64(a, "eps")));
  };
  t["batch_norm"] = [](const Device&, Hs& in, const json& a) {
    Args r = args(in, a, true, false);
    return non_null(api::batch_norm(r.x(), r.weight, r.bias, r.running_mean, r.running_var, flag(a, "training"),
                                    f64(a, "momentum"), f64(a, "eps")));
  };
  t["batch_norm_backward"] = [](const Device&, Hs& in, const json& a) {
    Args r = args(in, a, false, true);
    return non_null(api::batch_norm_backward(r.x(), r.weight, r.running_mean, r.running_var, r.grad_out(),
                                             flag(a, "training"), f64(a, "eps")));
  };
  t["rms_norm"] = [](const Device&, Hs& in, const json& a) {
    Args r = args(in, a, false, false);
    return one(api::rms_norm(r.x(), r.weight, dims(a), f64(a, "eps")));
  };
  t["rms_norm_backward"] = [](const Device&, Hs& in, const json& a) {
    Args r = args(in, a, false, true);
    return non_null(api::rms_norm_backward(r.x(), r.weight, r.grad_out(), dims(a), f64(a, "eps")));
  };
}

}  // namespace burn::conformance
