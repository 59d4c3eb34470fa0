// The norm module ops on the device (burn-gpu/kernels/norm.kernel, the vulkan plugin's kernel too; the plan
// is burn/gpu/norm.hpp): layer, rms and group norm as rows (a work-group per row, or a work-item per short
// row), batch norm as per-channel statistics then an elementwise pass; the backward ops add per-parameter
// sums (a work-group per parameter, fixed-order tree sums, so the gradients are deterministic). Return
// conventions as the cpu backend (burn-tensor/src/defaults/norm.cpp): {y or grad_x, grad_weight (null
// without a weight), grad_bias (null for rms_norm)}; batch_norm gives {y, new_running_mean,
// new_running_var}, the last two only when training with running statistics. f32 and f64.
#include <algorithm>
#include <cstdint>
#include <string>

#include "burn/gpu/norm.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"
#include "ops/nn_operands.hpp"

namespace burn::opencl {

namespace {

using gpu::NormFlags;
using gpu::NormNcs;
using gpu::NormPass;
using gpu::NormRows;
using gpu::NormSums;

// Work-items of a work-group folding one row, parameter or channel (a power of two, as softmax's rows).
constexpr size_t kRowWorkgroup = 64;

// The sums' dtype: the input's (f32 or f64).
DType acc_dtype(DType d) { return d == DType::F64 ? DType::F64 : DType::F32; }

// A launch of norm.kernel's `pass` with every operand's defines (X's dtype; statistics and sums in the
// sums' dtype).
Launch norm_launch(const OpenClBackend& be, NormPass pass, DType dtype, bool lanes, int64_t span, const char* op) {
  const DeviceProfile& p = be.context().profile();
  Launch lc(be.context(), "norm", op);
  gpu::Defines d{{gpu::norm_pass_define(pass), "1"}};
  for (const char* name : {"X", "G", "W", "B", "Y", "GW", "GB", "RM", "RV", "NM", "NV"})
    add_operand_defines(d, name, dtype, p, op);
  add_operand_defines(d, "ST", acc_dtype(dtype), p, op);
  add_operand_defines(d, "SU", acc_dtype(dtype), p, op);
  if (lanes) d.emplace_back("LANES", "1");
  if (span >= kIndex32) d.emplace_back("INDEX64", "1");
  lc.use(d);
  return lc;
}

void tensor_or_none(Launch& lc, const ClPtr& t, bool write) {
  if (t)
    lc.buffer(*t, write);
  else
    lc.no_tensor();
}

void acc_arg(Launch& lc, DType d, double v) {
  if (acc_dtype(d) == DType::F64)
    lc.f64(v);
  else
    lc.f32(static_cast<float>(v));
}

void run_items(Launch& lc, int64_t items, bool lanes, const OpenClBackend& be) {
  if (lanes)
    lc.run_1d(items);
  else
    lc.run_groups(items, std::min(kRowWorkgroup, be.context().profile().max_work_group));
}

int32_t groups_arg(int64_t groups, const char* op) {
  if (groups > INT32_MAX) throw Unsupported(op, "num_groups " + std::to_string(groups) + " needs more than 32 bits");
  return static_cast<int32_t>(groups);
}

// layer/rms/group norm forward over rows.
Prim rows_forward(const OpenClBackend& be, const Prim& xp, const Prim& wp, const Prim& bp, const NormRows& r,
                  double eps, bool rms, const char* op) {
  const ClPtr x = nn::float_operand(be, xp, nullptr, op, "input");
  const DType d = x->dtype();
  const ClPtr w = nn::optional_operand(be, wp, d, op, "weight");
  const ClPtr b = nn::optional_operand(be, bp, d, op, "bias");
  const ClPtr y = be.alloc(x->shape(), d, op);
  if (r.rows * r.n == 0) return y;
  const bool lanes = gpu::norm_lanes(NormPass::rows_fwd, false, r.n);
  Launch lc = norm_launch(be, NormPass::rows_fwd, d, lanes, x->shape().num_elements(), op);
  NormFlags fl;
  fl.rms = rms;
  fl.has_w = w != nullptr;
  fl.has_b = b != nullptr;
  lc.buffer(*x, false).no_tensor();
  tensor_or_none(lc, w, false);
  tensor_or_none(lc, b, false);
  lc.buffer(*y, true).no_tensor();
  lc.i64(r.rows).i64(r.n).i64(r.cg).i64(r.inner).i32(groups_arg(r.groups, op)).u32(fl.bits());
  acc_arg(lc, d, eps);
  run_items(lc, r.rows, lanes, be);
  return y;
}

// Per-parameter sums of g * xhat (into gw) and of g (into gb, and with su the sums' pair per parameter).
void param_sums(const OpenClBackend& be, const ClPtr& x, const ClPtr& g, const ClPtr& st, const ClPtr& gw,
                const ClPtr& gb, const ClPtr& su, const NormSums& p, const char* op) {
  if (p.params == 0) return;
  const bool lanes = gpu::norm_lanes(NormPass::param_sums, false, p.outer * p.inner);
  Launch lc = norm_launch(be, NormPass::param_sums, x->dtype(), lanes, x->shape().num_elements(), op);
  NormFlags fl;
  fl.has_gw = gw != nullptr;
  fl.has_gb = gb != nullptr;
  fl.has_su = su != nullptr;
  lc.buffer(*x, false).buffer(*g, false).buffer(*st, false);
  tensor_or_none(lc, gw, true);
  tensor_or_none(lc, gb, true);
  tensor_or_none(lc, su, true);
  lc.i64(p.params).i64(p.outer).i64(p.inner).i64(p.so).i64(p.cg).u32(fl.bits());
  run_items(lc, p.params, lanes, be);
}

// grad_out: a float tensor of x's shape and dtype.
ClPtr grad_operand(const OpenClBackend& be, const Prim& gp, const ClPtr& x, const char* op) {
  const DType d = x->dtype();
  ClPtr g = nn::float_operand(be, gp, &d, op, "grad_out");
  if (g->shape() != x->shape())
    throw ShapeError(op, "grad_out " + g->shape().to_string() + " and input " + x->shape().to_string() + " differ");
  return g;
}

// layer/rms/group norm backward: grad_x and the rows' statistics, then the parameter sums `p`.
Prims rows_backward(const OpenClBackend& be, const Prim& xp, const Prim& wp, const Prim& gp, const NormRows& r,
                    double eps, bool rms, const Shape& param_shape, const NormSums& p, const char* op) {
  const ClPtr x = nn::float_operand(be, xp, nullptr, op, "input");
  const DType d = x->dtype();
  const ClPtr g = grad_operand(be, gp, x, op);
  const ClPtr w = nn::optional_operand(be, wp, d, op, "weight");
  const ClPtr gx = be.alloc(x->shape(), d, op);
  const ClPtr gw = w ? be.alloc(param_shape, d, op) : nullptr;
  const ClPtr gb = rms ? nullptr : be.alloc(param_shape, d, op);
  const ClPtr st = be.alloc(Shape{r.rows, 2}, acc_dtype(d), op);
  if (r.rows * r.n > 0) {
    const bool lanes = gpu::norm_lanes(NormPass::rows_bwd, false, r.n);
    Launch lc = norm_launch(be, NormPass::rows_bwd, d, lanes, x->shape().num_elements(), op);
    NormFlags fl;
    fl.rms = rms;
    fl.has_w = w != nullptr;
    lc.buffer(*x, false).buffer(*g, false);
    tensor_or_none(lc, w, false);
    lc.no_tensor().buffer(*gx, true).buffer(*st, true);
    lc.i64(r.rows).i64(r.n).i64(r.cg).i64(r.inner).i32(groups_arg(r.groups, op)).u32(fl.bits());
    acc_arg(lc, d, eps);
    run_items(lc, r.rows, lanes, be);
  }
  if (gw || gb) param_sums(be, x, g, st, gw, gb, nullptr, p, op);
  return {gx, gw, gb};
}

// Batch norm statistics per channel into a new [C, 2] (mean, rstd) tensor; training with running
// statistics also writes the new ones into nm and nv.
ClPtr channel_stats(const OpenClBackend& be, const ClPtr& x, const NormNcs& d, const ClPtr& rm, const ClPtr& rv,
                    const ClPtr& nm, const ClPtr& nv, bool training, double momentum, double eps, const char* op) {
  const ClPtr st = be.alloc(Shape{d.c, 2}, acc_dtype(x->dtype()), op);
  if (d.c == 0) return st;
  const bool lanes = gpu::norm_lanes(NormPass::ch_stats, training, d.n * d.s);
  Launch lc = norm_launch(be, NormPass::ch_stats, x->dtype(), lanes, x->shape().num_elements(), op);
  NormFlags fl;
  fl.training = training;
  fl.running = training && nm != nullptr;  // the backward reads no running statistics
  lc.buffer(*x, false);
  tensor_or_none(lc, rm, false);
  tensor_or_none(lc, rv, false);
  tensor_or_none(lc, nm, true);
  tensor_or_none(lc, nv, true);
  lc.buffer(*st, true).i64(d.n).i64(d.c).i64(d.s).u32(fl.bits());
  acc_arg(lc, x->dtype(), eps);
  acc_arg(lc, x->dtype(), momentum);
  run_items(lc, d.c, lanes, be);
  return st;
}

}  // namespace

Prim OpenClBackend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) {
  const NormRows r = gpu::trailing_rows(x->shape(), normalized_dims, "layer_norm");
  return rows_forward(*this, x, weight, bias, r, eps, false, "layer_norm");
}

Prim OpenClBackend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) {
  const NormRows r = gpu::trailing_rows(x->shape(), normalized_dims, "rms_norm");
  return rows_forward(*this, x, weight, nullptr, r, eps, true, "rms_norm");
}

Prim OpenClBackend::group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) {
  const NormRows r = gpu::group_rows(x->shape(), num_groups, "group_norm");
  return rows_forward(*this, x, weight, bias, r, eps, false, "group_norm");
}

Prims OpenClBackend::layer_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  static constexpr const char* op = "layer_norm_backward";
  const NormRows r = gpu::trailing_rows(x->shape(), normalized_dims, op);
  return rows_backward(*this, x, weight, grad_out, r, eps, false,
                       shape_rules::layer_norm_params(x->shape(), normalized_dims, op), gpu::trailing_sums(r), op);
}

Prims OpenClBackend::rms_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  static constexpr const char* op = "rms_norm_backward";
  const NormRows r = gpu::trailing_rows(x->shape(), normalized_dims, op);
  return rows_backward(*this, x, weight, grad_out, r, eps, true,
                       shape_rules::layer_norm_params(x->shape(), normalized_dims, op), gpu::trailing_sums(r), op);
}

Prims OpenClBackend::group_norm_backward(Prim x, Prim weight, Prim grad_out, int64_t num_groups, double eps) {
  static constexpr const char* op = "group_norm_backward";
  const NormNcs d = gpu::ncs_of(x->shape(), op);
  const NormRows r = gpu::group_rows(x->shape(), num_groups, op);
  return rows_backward(*this, x, weight, grad_out, r, eps, false, Shape{d.c}, gpu::group_sums(d, r), op);
}

Prims OpenClBackend::batch_norm(Prim xp, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training,
                                double momentum, double eps) {
  static constexpr const char* op = "batch_norm";
  const ClPtr x = nn::float_operand(*this, xp, nullptr, op, "input");
  const DType dt = x->dtype();
  const NormNcs d = gpu::ncs_of(x->shape(), op);
  const ClPtr w = nn::optional_operand(*this, weight, dt, op, "weight");
  const ClPtr b = nn::optional_operand(*this, bias, dt, op, "bias");
  const ClPtr rm = nn::optional_operand(*this, running_mean, dt, op, "running_mean");
  const ClPtr rv = nn::optional_operand(*this, running_var, dt, op, "running_var");
  if (!rm != !rv) throw ValueError(op, "running_mean and running_var must be given together");
  if (!training && !rm) throw ValueError(op, "inference (training = false) needs running_mean and running_var");
  const ClPtr nm = training && rm ? alloc(Shape{d.c}, dt, op) : nullptr;
  const ClPtr nv = training && rm ? alloc(Shape{d.c}, dt, op) : nullptr;
  const ClPtr st = channel_stats(*this, x, d, rm, rv, nm, nv, training, momentum, eps, op);
  const ClPtr y = alloc(x->shape(), dt, op);
  const int64_t n = x->shape().num_elements();
  if (n > 0) {
    Launch lc = norm_launch(*this, NormPass::ch_apply, dt, true, n, op);
    NormFlags fl;
    fl.has_w = w != nullptr;
    fl.has_b = b != nullptr;
    lc.buffer(*x, false).no_tensor();
    tensor_or_none(lc, w, false);
    tensor_or_none(lc, b, false);
    lc.buffer(*st, false).no_tensor().buffer(*y, true);
    lc.i64(n).i64(d.c).i64(d.s).i64(d.n * d.s).u32(fl.bits());
    lc.run_1d(n);
  }
  return {y, nm, nv};
}

Prims OpenClBackend::batch_norm_backward(Prim xp, Prim weight, Prim running_mean, Prim running_var, Prim grad_out,
                                         bool training, double eps) {
  static constexpr const char* op = "batch_norm_backward";
  const ClPtr x = nn::float_operand(*this, xp, nullptr, op, "input");
  const DType dt = x->dtype();
  const NormNcs d = gpu::ncs_of(x->shape(), op);
  const ClPtr g = grad_operand(*this, grad_out, x, op);
  const ClPtr w = nn::optional_operand(*this, weight, dt, op, "weight");
  const ClPtr rm = nn::optional_operand(*this, running_mean, dt, op, "running_mean");
  const ClPtr rv = nn::optional_operand(*this, running_var, dt, op, "running_var");
  if (!training && !rm) throw ValueError(op, "inference (training = false) needs running_mean and running_var");
  const ClPtr st = channel_stats(*this, x, d, rm, rv, nullptr, nullptr, training, 0.0, eps, op);
  const ClPtr gx = alloc(x->shape(), dt, op);
  const ClPtr gw = w ? alloc(Shape{d.c}, dt, op) : nullptr;
  const ClPtr gb = alloc(Shape{d.c}, dt, op);
  const ClPtr su = alloc(Shape{d.c, 2}, acc_dtype(dt), op);
  param_sums(*this, x, g, st, gw, gb, su, gpu::channel_sums(d), op);
  const int64_t n = x->shape().num_elements();
  if (n > 0) {
    Launch lc = norm_launch(*this, NormPass::ch_grad, dt, true, n, op);
    NormFlags fl;
    fl.has_w = w != nullptr;
    fl.training = training;
    lc.buffer(*x, false).buffer(*g, false);
    tensor_or_none(lc, w, false);
    lc.no_tensor().buffer(*st, false).buffer(*su, false).buffer(*gx, true);
    lc.i64(n).i64(d.c).i64(d.s).i64(d.n * d.s).u32(fl.bits());
    lc.run_1d(n);
  }
  return {gx, gw, gb};
}

}  // namespace burn::opencl
