// Tensor API: normalisation module ops (layer, group, batch and RMS norm, and their backward): argument
// checks with tagged errors, then the backend op. Absent weight/bias/running stats travel as null prims.
#include <cmath>
#include <string>

#include "../defaults/helpers.hpp"
#include "autocast.hpp"
#include "burn/tensor/module.hpp"
#include "module_checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

void check_eps(double eps, const char* op) {
  if (!(eps >= 0.0) || !std::isfinite(eps))
    throw ValueError(op, "eps must be finite and >= 0, got " + burn::detail::num(eps));
}

// A float x; what the rest of the checks need.
Backend& float_input(const H& x, const char* op) {
  Backend& b = be(x, op);
  require_float(x, op);
  return b;
}

// An optional parameter (weight, bias, running stat) on x's device and dtype with exactly `want`'s shape.
Prim param(const OptH& p, const H& x, const Shape& want, const char* what, const char* op) {
  if (!p) return nullptr;
  same_device(x, *p, op);
  if (p->prim->dtype() != x.prim->dtype())
    throw DTypeError(op,
                     std::string(what) + " is " + dt(p->prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
  if (shape(*p) != want)
    throw ShapeError(op, std::string(what) + " has shape " + shape(*p).to_string() + ", expected " + want.to_string() +
                             " for input " + shape(x).to_string());
  return p->prim;
}

H null_like(const H& x) { return H{x.device, nullptr}; }

// Always three handles ({y or grad_x, ..., ...}); a backend's missing or null entries become null handles.
Hs wrap(const H& x, Prims ps) {
  ps.resize(3);
  Hs out;
  out.reserve(ps.size());
  for (Prim& p : ps) out.push_back(H{x.device, std::move(p)});
  return out;
}

// Values per channel in a batch-norm reduction: N * prod(spatial).
int64_t per_channel(const Shape& s) {
  int64_t n = s[0];
  for (size_t d = 2; d < s.rank(); ++d) n *= s[d];
  return n;
}

}  // namespace

H layer_norm(H x, const OptH& weight0, const OptH& bias0, size_t normalized_dims, double eps) {
  static constexpr const char* op = "layer_norm";
  CastArg weight(weight0), bias(bias0);
  autocast(OpId::layer_norm, {&x, weight.slot(), bias.slot()});
  Backend& b = float_input(x, op);
  check_eps(eps, op);
  const Shape want = shape_rules::layer_norm_params(shape(x), normalized_dims, op);
  Prim w = param(*weight, x, want, "weight", op);
  Prim bi = param(*bias, x, want, "bias", op);
  return with(x, b.layer_norm(std::move(x.prim), std::move(w), std::move(bi), normalized_dims, eps));
}

Hs layer_norm_backward(H x, const OptH& weight, const H& grad_out, size_t normalized_dims, double eps) {
  static constexpr const char* op = "layer_norm_backward";
  Backend& b = float_input(x, op);
  check_eps(eps, op);
  check_grad_out(x, grad_out, shape(x), op);
  const Shape want = shape_rules::layer_norm_params(shape(x), normalized_dims, op);
  Prim w = param(weight, x, want, "weight", op);
  const H like = null_like(x);
  return wrap(like, b.layer_norm_backward(std::move(x.prim), std::move(w), grad_out.prim, normalized_dims, eps));
}

H group_norm(H x, const OptH& weight0, const OptH& bias0, int64_t num_groups, double eps) {
  static constexpr const char* op = "group_norm";
  CastArg weight(weight0), bias(bias0);
  autocast(OpId::group_norm, {&x, weight.slot(), bias.slot()});
  Backend& b = float_input(x, op);
  check_eps(eps, op);
  const Shape want = shape_rules::group_norm_params(shape(x), num_groups, op);
  Prim w = param(*weight, x, want, "weight", op);
  Prim bi = param(*bias, x, want, "bias", op);
  return with(x, b.group_norm(std::move(x.prim), std::move(w), std::move(bi), num_groups, eps));
}

Hs group_norm_backward(H x, const OptH& weight, const H& grad_out, int64_t num_groups, double eps) {
  static constexpr const char* op = "group_norm_backward";
  Backend& b = float_input(x, op);
  check_eps(eps, op);
  check_grad_out(x, grad_out, shape(x), op);
  const Shape want = shape_rules::group_norm_params(shape(x), num_groups, op);
  Prim w = param(weight, x, want, "weight", op);
  const H like = null_like(x);
  return wrap(like, b.group_norm_backward(std::move(x.prim), std::move(w), grad_out.prim, num_groups, eps));
}

Hs batch_norm(H x, const OptH& weight0, const OptH& bias0, const OptH& running_mean0, const OptH& running_var0,
              bool training, double momentum, double eps) {
  static constexpr const char* op = "batch_norm";
  CastArg weight(weight0), bias(bias0), running_mean(running_mean0), running_var(running_var0);
  autocast(OpId::batch_norm, {&x, weight.slot(), bias.slot(), running_mean.slot(), running_var.slot()});
  Backend& b = float_input(x, op);
  check_eps(eps, op);
  const Shape want = shape_rules::batch_norm_params(shape(x), op);
  Prim w = param(*weight, x, want, "weight", op);
  Prim bi = param(*bias, x, want, "bias", op);
  Prim rm = param(*running_mean, x, want, "running_mean", op);
  Prim rv = param(*running_var, x, want, "running_var", op);
  if (static_cast<bool>(rm) != static_cast<bool>(rv))
    throw ValueError(op, "running_mean and running_var must be given together");
  if (!training && !rm) throw ValueError(op, "inference (training = false) needs running_mean and running_var");
  if (training && per_channel(shape(x)) <= 1)
    throw ValueError(op, "training needs more than 1 value per channel, got input " + shape(x).to_string());
  if (!std::isfinite(momentum)) throw ValueError(op, "momentum must be finite, got " + burn::detail::num(momentum));
  const H like = null_like(x);
  Prims r = b.batch_norm(std::move(x.prim), std::move(w), std::move(bi), std::move(rm), std::move(rv), training,
                         momentum, eps);
  return wrap(like, std::move(r));
}

Hs batch_norm_backward(H x, const OptH& weight, const OptH& running_mean, const OptH& running_var, const H& grad_out,
                       bool training, double eps) {
  static constexpr const char* op = "batch_norm_backward";
  Backend& b = float_input(x, op);
  check_eps(eps, op);
  check_grad_out(x, grad_out, shape(x), op);
  const Shape want = shape_rules::batch_norm_params(shape(x), op);
  Prim w = param(weight, x, want, "weight", op);
  Prim rm = param(running_mean, x, want, "running_mean", op);
  Prim rv = param(running_var, x, want, "running_var", op);
  if (static_cast<bool>(rm) != static_cast<bool>(rv))
    throw ValueError(op, "running_mean and running_var must be given together");
  if (!training && !rm) throw ValueError(op, "inference (training = false) needs running_mean and running_var");
  if (training && per_channel(shape(x)) <= 1)
    throw ValueError(op, "training needs more than 1 value per channel, got input " + shape(x).to_string());
  const H like = null_like(x);
  return wrap(like, b.batch_norm_backward(std::move(x.prim), std::move(w), std::move(rm), std::move(rv), grad_out.prim,
                                          training, eps));
}

H rms_norm(H x, const OptH& weight0, size_t normalized_dims, double eps) {
  static constexpr const char* op = "rms_norm";
  CastArg weight(weight0);
  autocast(OpId::rms_norm, {&x, weight.slot()});
  Backend& b = float_input(x, op);
  check_eps(eps, op);
  const Shape want = shape_rules::layer_norm_params(shape(x), normalized_dims, op);
  Prim w = param(*weight, x, want, "weight", op);
  return with(x, b.rms_norm(std::move(x.prim), std::move(w), normalized_dims, eps));
}

Hs rms_norm_backward(H x, const OptH& weight, const H& grad_out, size_t normalized_dims, double eps) {
  static constexpr const char* op = "rms_norm_backward";
  Backend& b = float_input(x, op);
  check_eps(eps, op);
  check_grad_out(x, grad_out, shape(x), op);
  const Shape want = shape_rules::layer_norm_params(shape(x), normalized_dims, op);
  Prim w = param(weight, x, want, "weight", op);
  const H like = null_like(x);
  return wrap(like, b.rms_norm_backward(std::move(x.prim), std::move(w), grad_out.prim, normalized_dims, eps));
}

}  // namespace burn::api
