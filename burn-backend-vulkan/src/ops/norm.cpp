// The norm module ops on the device (burn-gpu/kernels/norm.kernel, the opencl plugin's kernel too; the plan is
// burn/gpu/norm.hpp): layer, rms and group norm as rows (a workgroup per row, or an invocation per short
// row), batch norm as per-channel statistics then an elementwise pass; the backward ops add per-parameter
// sums (a workgroup per parameter, fixed-order tree sums, so the gradients are deterministic).
// Return conventions as the cpu backend (burn-tensor/src/defaults/norm.cpp): {y or grad_x, grad_weight
// (null without a weight), grad_bias (null for rms_norm)}; batch_norm gives {y, new_running_mean,
// new_running_var}, the last two only when training with running statistics.
#include <string>

#include "burn/gpu/norm.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

namespace {

using gpu::NormFlags;
using gpu::NormNcs;
using gpu::NormRows;
using gpu::NormSums;

Dispatch norm_dispatch(const VulkanBackend& be, const NormVariant& v, const char* op) {
  Context& ctx = be.context();
  Dispatch dp(ctx, "norm", op);
  dp.use(norm_defines(v, ctx.profile().features, ctx.profile().name));
  return dp;
}

// Pushes an optional operand's address (0 when absent) and records the access.
void address_or_zero(Dispatch& dp, const VkPtr& t, bool write) {
  if (t)
    dp.address(*t, write);
  else
    dp.push_u64(0);
}

void run_items(Dispatch& dp, int64_t items, bool lanes) {
  if (lanes)
    dp.run_1d(items);
  else
    nn::run_groups(dp, items, nn::kRowWorkgroup);
}

// layer/rms/group norm forward over rows.
Prim rows_forward(const VulkanBackend& be, Prim xp, const Prim& wp, const Prim& bp, const NormRows& r, double eps,
                  bool rms, const char* op) {
  const VkPtr x = nn::float_operand(be, xp, op);
  xp.reset();
  const DType d = x->dtype();
  const VkPtr w = nn::optional_operand(be, wp, d, op, "weight");
  const VkPtr b = nn::optional_operand(be, bp, d, op, "bias");
  VkPtr y = be.alloc(x->shape(), d);
  if (r.rows * r.n == 0) return y;
  NormVariant v{NormMode::rows_fwd, d};
  v.lanes = gpu::norm_lanes(v.mode, false, r.n);
  v.index64 = nn::needs_index64(x->shape().num_elements());
  NormFlags fl;
  fl.rms = rms;
  fl.has_w = w != nullptr;
  fl.has_b = b != nullptr;
  Dispatch dp = norm_dispatch(be, v, op);
  dp.address(*x, false).push_u64(0);
  address_or_zero(dp, w, false);
  address_or_zero(dp, b, false);
  dp.address(*y, true).push_u64(0);
  dp.push_i64(r.rows).push_i64(r.n).push_i64(r.cg).push_i64(r.inner).push_i32(nn::i32(r.groups, op, "groups"));
  dp.push_i32(static_cast<int32_t>(fl.bits()));
  nn::push_acc(dp, d, eps);
  run_items(dp, r.rows, v.lanes);
  return y;
}

// Per-parameter sums of g * xhat (into gw) and of g (into gb, and with su the ACC pair per parameter).
void param_sums(const VulkanBackend& be, const VkPtr& x, const VkPtr& g, const VkPtr& st, const VkPtr& gw,
                const VkPtr& gb, const VkPtr& su, const NormSums& p, const char* op) {
  if (p.params == 0) return;
  NormVariant v{NormMode::param_sums, x->dtype()};
  v.lanes = gpu::norm_lanes(v.mode, false, p.outer * p.inner);
  v.index64 = nn::needs_index64(x->shape().num_elements());
  NormFlags fl;
  fl.has_gw = gw != nullptr;
  fl.has_gb = gb != nullptr;
  fl.has_su = su != nullptr;
  Dispatch dp = norm_dispatch(be, v, op);
  dp.address(*x, false).address(*g, false).address(*st, false);
  address_or_zero(dp, gw, true);
  address_or_zero(dp, gb, true);
  address_or_zero(dp, su, true);
  dp.push_i64(p.params).push_i64(p.outer).push_i64(p.inner).push_i64(p.so).push_i64(p.cg);
  dp.push_i32(static_cast<int32_t>(fl.bits()));
  run_items(dp, p.params, v.lanes);
}

// layer/rms/group norm backward: grad_x and the rows' statistics, then the parameter sums `p`.
Prims rows_backward(const VulkanBackend& be, Prim xp, const Prim& wp, const Prim& gp, const NormRows& r, double eps,
                    bool rms, const Shape& param_shape, const NormSums& p, const char* op) {
  const VkPtr x = nn::float_operand(be, xp, op);
  xp.reset();
  const DType d = x->dtype();
  const VkPtr g = nn::optional_operand(be, gp, d, op, "grad_out");
  const VkPtr w = nn::optional_operand(be, wp, d, op, "weight");
  if (g->shape() != x->shape())
    throw ShapeError(op, "grad_out " + g->shape().to_string() + " and input " + x->shape().to_string() + " differ");
  VkPtr gx = be.alloc(x->shape(), d);
  VkPtr gw = w ? be.alloc(param_shape, d) : nullptr;
  VkPtr gb = rms ? nullptr : be.alloc(param_shape, d);
  VkPtr st = be.alloc(Shape{r.rows, 2}, nn::acc_dtype(d));
  if (r.rows * r.n > 0) {
    NormVariant v{NormMode::rows_bwd, d};
    v.lanes = gpu::norm_lanes(v.mode, false, r.n);
    v.index64 = nn::needs_index64(x->shape().num_elements());
    NormFlags fl;
    fl.rms = rms;
    fl.has_w = w != nullptr;
    Dispatch dp = norm_dispatch(be, v, op);
    dp.address(*x, false).address(*g, false);
    address_or_zero(dp, w, false);
    dp.push_u64(0).address(*gx, true).address(*st, true);
    dp.push_i64(r.rows).push_i64(r.n).push_i64(r.cg).push_i64(r.inner).push_i32(nn::i32(r.groups, op, "groups"));
    dp.push_i32(static_cast<int32_t>(fl.bits()));
    nn::push_acc(dp, d, eps);
    run_items(dp, r.rows, v.lanes);
  }
  if (gw || gb) param_sums(be, x, g, st, gw, gb, nullptr, p, op);
  return {gx, gw, gb};
}

// Batch norm statistics per channel into a new [C, 2] (mean, rstd) tensor; training with running
// statistics also writes the new ones into nm and nv.
VkPtr channel_stats(const VulkanBackend& be, const VkPtr& x, const NormNcs& d, const VkPtr& rm, const VkPtr& rv,
                    const VkPtr& nm, const VkPtr& nv, bool training, double momentum, double eps, const char* op) {
  VkPtr st = be.alloc(Shape{d.c, 2}, nn::acc_dtype(x->dtype()));
  if (d.c == 0) return st;
  NormVariant v{NormMode::ch_stats, x->dtype()};
  v.lanes = gpu::norm_lanes(v.mode, training, d.n * d.s);
  v.index64 = nn::needs_index64(x->shape().num_elements());
  NormFlags fl;
  fl.training = training;
  fl.running = training && nm != nullptr;  // the backward reads no running statistics
  Dispatch dp = norm_dispatch(be, v, op);
  dp.address(*x, false);
  address_or_zero(dp, rm, false);
  address_or_zero(dp, rv, false);
  address_or_zero(dp, nm, true);
  address_or_zero(dp, nv, true);
  dp.address(*st, true).push_i64(d.n).push_i64(d.c).push_i64(d.s).push_i32(static_cast<int32_t>(fl.bits()));
  nn::push_acc(dp, x->dtype(), eps);
  nn::push_acc(dp, x->dtype(), momentum);
  run_items(dp, d.c, v.lanes);
  return st;
}

}  // namespace

Defines norm_defines(const NormVariant& v, const DeviceFeatures& features, const std::string& device) {
  const char* op = "norm";
  Defines d;
  d.emplace_back(gpu::norm_pass_define(v.mode), "1");
  const DType acc = nn::acc_dtype(v.dtype);
  // Every operand a pass may read or write, in X's dtype; statistics and sums in the sums' dtype.
  for (const char* name : {"X", "G", "W", "B", "Y", "GW", "GB", "RM", "RV", "NM", "NV"})
    add_operand_defines(d, name, v.dtype, features, device, op);
  add_operand_defines(d, "ST", acc, features, device, op);
  add_operand_defines(d, "SU", acc, features, device, op);
  if (v.lanes) d.emplace_back("LANES", "1");
  if (v.index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) {
  const NormRows r = gpu::trailing_rows(x->shape(), normalized_dims, "layer_norm");
  return rows_forward(*this, std::move(x), weight, bias, r, eps, false, "layer_norm");
}

Prim VulkanBackend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) {
  const NormRows r = gpu::trailing_rows(x->shape(), normalized_dims, "rms_norm");
  return rows_forward(*this, std::move(x), weight, nullptr, r, eps, true, "rms_norm");
}

Prim VulkanBackend::group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) {
  const NormRows r = gpu::group_rows(x->shape(), num_groups, "group_norm");
  return rows_forward(*this, std::move(x), weight, bias, r, eps, false, "group_norm");
}

Prims VulkanBackend::layer_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  const Shape s = x->shape();
  const NormRows r = gpu::trailing_rows(s, normalized_dims, "layer_norm_backward");
  return rows_backward(*this, std::move(x), weight, grad_out, r, eps, false,
                       shape_rules::layer_norm_params(s, normalized_dims, "layer_norm_backward"), gpu::trailing_sums(r),
                       "layer_norm_backward");
}

Prims VulkanBackend::rms_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  const Shape s = x->shape();
  const NormRows r = gpu::trailing_rows(s, normalized_dims, "rms_norm_backward");
  return rows_backward(*this, std::move(x), weight, grad_out, r, eps, true,
                       shape_rules::layer_norm_params(s, normalized_dims, "rms_norm_backward"), gpu::trailing_sums(r),
                       "rms_norm_backward");
}

Prims VulkanBackend::group_norm_backward(Prim x, Prim weight, Prim grad_out, int64_t num_groups, double eps) {
  const NormNcs d = gpu::ncs_of(x->shape(), "group_norm_backward");
  const NormRows r = gpu::group_rows(x->shape(), num_groups, "group_norm_backward");
  return rows_backward(*this, std::move(x), weight, grad_out, r, eps, false, Shape{d.c}, gpu::group_sums(d, r),
                       "group_norm_backward");
}

Prims VulkanBackend::batch_norm(Prim xp, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training,
                                double momentum, double eps) {
  static constexpr const char* op = "batch_norm";
  const VkPtr x = nn::float_operand(*this, xp, op);
  xp.reset();
  const DType dt = x->dtype();
  const NormNcs d = gpu::ncs_of(x->shape(), op);
  const VkPtr w = nn::optional_operand(*this, weight, dt, op, "weight");
  const VkPtr b = nn::optional_operand(*this, bias, dt, op, "bias");
  const VkPtr rm = nn::optional_operand(*this, running_mean, dt, op, "running_mean");
  const VkPtr rv = nn::optional_operand(*this, running_var, dt, op, "running_var");
  if (!rm != !rv) throw ValueError(op, "running_mean and running_var must be given together");
  if (!training && !rm) throw ValueError(op, "inference (training = false) needs running_mean and running_var");
  VkPtr nm = training && rm ? alloc(Shape{d.c}, dt) : nullptr;
  VkPtr nv = training && rm ? alloc(Shape{d.c}, dt) : nullptr;
  const VkPtr st = channel_stats(*this, x, d, rm, rv, nm, nv, training, momentum, eps, op);
  VkPtr y = alloc(x->shape(), dt);
  const int64_t n = x->shape().num_elements();
  if (n > 0) {
    NormVariant v{NormMode::ch_apply, dt};
    v.lanes = true;
    v.index64 = nn::needs_index64(n);
    NormFlags fl;
    fl.has_w = w != nullptr;
    fl.has_b = b != nullptr;
    Dispatch dp = norm_dispatch(*this, v, op);
    dp.address(*x, false).push_u64(0);
    address_or_zero(dp, w, false);
    address_or_zero(dp, b, false);
    dp.address(*st, false).push_u64(0).address(*y, true);
    dp.push_i64(n).push_i64(d.c).push_i64(d.s).push_i64(d.n * d.s).push_i32(static_cast<int32_t>(fl.bits()));
    dp.run_1d(n);
  }
  return {y, nm, nv};
}

Prims VulkanBackend::batch_norm_backward(Prim xp, Prim weight, Prim running_mean, Prim running_var, Prim grad_out,
                                         bool training, double eps) {
  static constexpr const char* op = "batch_norm_backward";
  const VkPtr x = nn::float_operand(*this, xp, op);
  xp.reset();
  const DType dt = x->dtype();
  const NormNcs d = gpu::ncs_of(x->shape(), op);
  const VkPtr g = nn::optional_operand(*this, grad_out, dt, op, "grad_out");
  const VkPtr w = nn::optional_operand(*this, weight, dt, op, "weight");
  const VkPtr rm = nn::optional_operand(*this, running_mean, dt, op, "running_mean");
  const VkPtr rv = nn::optional_operand(*this, running_var, dt, op, "running_var");
  if (g->shape() != x->shape())
    throw ShapeError(op, "grad_out " + g->shape().to_string() + " and input " + x->shape().to_string() + " differ");
  if (!training && !rm) throw ValueError(op, "inference (training = false) needs running_mean and running_var");
  const VkPtr st = channel_stats(*this, x, d, rm, rv, nullptr, nullptr, training, 0.0, eps, op);
  VkPtr gx = alloc(x->shape(), dt);
  VkPtr gw = w ? alloc(Shape{d.c}, dt) : nullptr;
  VkPtr gb = alloc(Shape{d.c}, dt);
  VkPtr su = alloc(Shape{d.c, 2}, nn::acc_dtype(dt));
  param_sums(*this, x, g, st, gw, gb, su, gpu::channel_sums(d), op);
  const int64_t n = x->shape().num_elements();
  if (n > 0) {
    NormVariant v{NormMode::ch_grad, dt};
    v.lanes = true;
    v.index64 = nn::needs_index64(n);
    NormFlags fl;
    fl.has_w = w != nullptr;
    fl.training = training;
    Dispatch dp = norm_dispatch(*this, v, op);
    dp.address(*x, false).address(*g, false);
    address_or_zero(dp, w, false);
    dp.push_u64(0).address(*st, false).address(*su, false).address(*gx, true);
    dp.push_i64(n).push_i64(d.c).push_i64(d.s).push_i64(d.n * d.s).push_i32(static_cast<int32_t>(fl.bits()));
    dp.run_1d(n);
  }
  return {gx, gw, gb};
}

}  // namespace burn::vulkan
