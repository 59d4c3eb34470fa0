// The norm module ops on the device (kernels/norm.comp): layer, rms and group norm as rows (a workgroup
// per row, or an invocation per short row), batch norm as per-channel statistics then an elementwise
// pass; the backward ops add per-parameter sums (a workgroup per parameter, fixed-order tree sums, so the
// gradients are deterministic). Return conventions as the cpu backend (burn-tensor/src/defaults/norm.cpp):
// {y or grad_x, grad_weight (null without a weight), grad_bias (null for rms_norm)}; batch_norm gives
// {y, new_running_mean, new_running_var}, the last two only when training with running statistics.
#include <string>

#include "burn/tensor/shape_rules.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

namespace {

// Rows (and parameter sums) shorter than this take an invocation each instead of a workgroup.
constexpr int64_t kLaneMax = 128;

struct Rows {
  int64_t rows = 0, n = 0, cg = 1, inner = 1, groups = 1;
};

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
Prim rows_forward(const VulkanBackend& be, Prim xp, const Prim& wp, const Prim& bp, const Rows& r, double eps, bool rms,
                  const char* op) {
  const VkPtr x = nn::float_operand(be, xp, op);
  xp.reset();
  const DType d = x->dtype();
  const VkPtr w = nn::optional_operand(be, wp, d, op, "weight");
  const VkPtr b = nn::optional_operand(be, bp, d, op, "bias");
  VkPtr y = be.alloc(x->shape(), d);
  if (r.rows * r.n == 0) return y;
  NormVariant v{NormMode::rows_fwd, d};
  v.lanes = r.n < kLaneMax;
  v.rms = rms;
  v.has_w = w != nullptr;
  v.has_b = b != nullptr;
  v.index64 = nn::needs_index64(x->shape().num_elements());
  Dispatch dp = norm_dispatch(be, v, op);
  dp.address(*x, false).push_u64(0);
  address_or_zero(dp, w, false);
  address_or_zero(dp, b, false);
  dp.address(*y, true).push_u64(0);
  dp.push_i64(r.rows).push_i64(r.n).push_i64(r.cg).push_i64(r.inner).push_i32(nn::i32(r.groups, op, "groups"));
  nn::push_acc(dp, d, eps);
  run_items(dp, r.rows, v.lanes);
  return y;
}

// Per-parameter sums of g * xhat (into gw) and of g (into gb, and with su the ACC pair per parameter).
void param_sums(const VulkanBackend& be, const VkPtr& x, const VkPtr& g, const VkPtr& st, const VkPtr& gw,
                const VkPtr& gb, const VkPtr& su, int64_t params, int64_t outer, int64_t inner, int64_t so, int64_t cg,
                const char* op) {
  if (params == 0) return;
  NormVariant v{NormMode::param_sums, x->dtype()};
  v.lanes = outer * inner < kLaneMax;
  v.has_gw = gw != nullptr;
  v.has_gb = gb != nullptr;
  v.has_su = su != nullptr;
  v.index64 = nn::needs_index64(x->shape().num_elements());
  Dispatch dp = norm_dispatch(be, v, op);
  dp.address(*x, false).address(*g, false).address(*st, false);
  address_or_zero(dp, gw, true);
  address_or_zero(dp, gb, true);
  address_or_zero(dp, su, true);
  dp.push_i64(params).push_i64(outer).push_i64(inner).push_i64(so).push_i64(cg);
  run_items(dp, params, v.lanes);
}

// layer/rms/group norm backward: grad_x and the rows' statistics, then the parameter sums (`p` describes
// them: params, outer, inner, so, cg).
Prims rows_backward(const VulkanBackend& be, Prim xp, const Prim& wp, const Prim& gp, const Rows& r, double eps,
                    bool rms, const Shape& param_shape, const int64_t p[5], const char* op) {
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
    v.lanes = r.n < kLaneMax;
    v.rms = rms;
    v.has_w = w != nullptr;
    v.index64 = nn::needs_index64(x->shape().num_elements());
    Dispatch dp = norm_dispatch(be, v, op);
    dp.address(*x, false).address(*g, false);
    address_or_zero(dp, w, false);
    dp.push_u64(0).address(*gx, true).address(*st, true);
    dp.push_i64(r.rows).push_i64(r.n).push_i64(r.cg).push_i64(r.inner).push_i32(nn::i32(r.groups, op, "groups"));
    nn::push_acc(dp, d, eps);
    run_items(dp, r.rows, v.lanes);
  }
  if (gw || gb) param_sums(be, x, g, st, gw, gb, nullptr, p[0], p[1], p[2], p[3], p[4], op);
  return {gx, gw, gb};
}

// The rows of a layer or rms norm over the trailing `nd` dims (the rule checks nd).
Rows trailing_rows(const Shape& s, size_t nd, const char* op) {
  shape_rules::layer_norm_params(s, nd, op);
  Rows r;
  r.rows = 1;
  r.n = 1;
  for (size_t i = 0; i < s.rank(); ++i) (i + nd < s.rank() ? r.rows : r.n) *= s[i];
  r.cg = r.n;
  return r;
}

// [N, C, S] of an NC<spatial> shape.
struct Ncs {
  int64_t n = 0, c = 0, s = 1;
};
Ncs ncs_of(const Shape& sh, const char* op) {
  shape_rules::batch_norm_params(sh, op);
  Ncs d{sh[0], sh[1], 1};
  for (size_t i = 2; i < sh.rank(); ++i) d.s *= sh[i];
  return d;
}

Rows group_rows(const Shape& sh, int64_t groups, const char* op) {
  shape_rules::group_norm_params(sh, groups, op);
  const Ncs d = ncs_of(sh, op);
  Rows r;
  r.rows = d.n * groups;
  r.cg = d.c / groups;
  r.inner = d.s;
  r.n = r.cg * d.s;
  r.groups = groups;
  return r;
}

// Batch norm statistics per channel into a new [C, 2] (mean, rstd) tensor; training with running
// statistics also writes the new ones into nm and nv.
VkPtr channel_stats(const VulkanBackend& be, const VkPtr& x, const Ncs& d, const VkPtr& rm, const VkPtr& rv,
                    const VkPtr& nm, const VkPtr& nv, bool training, double momentum, double eps, const char* op) {
  VkPtr st = be.alloc(Shape{d.c, 2}, nn::acc_dtype(x->dtype()));
  if (d.c == 0) return st;
  NormVariant v{NormMode::ch_stats, x->dtype()};
  v.training = training;
  v.running = training && nm != nullptr;  // the backward reads no running statistics
  v.lanes = !training || d.n * d.s < kLaneMax;
  v.index64 = nn::needs_index64(x->shape().num_elements());
  Dispatch dp = norm_dispatch(be, v, op);
  dp.address(*x, false);
  address_or_zero(dp, rm, false);
  address_or_zero(dp, rv, false);
  address_or_zero(dp, nm, true);
  address_or_zero(dp, nv, true);
  dp.address(*st, true).push_i64(d.n).push_i64(d.c).push_i64(d.s);
  nn::push_acc(dp, x->dtype(), eps);
  nn::push_acc(dp, x->dtype(), momentum);
  run_items(dp, d.c, v.lanes);
  return st;
}

}  // namespace

Defines norm_defines(const NormVariant& v, const DeviceFeatures& features, const std::string& device) {
  static const char* const kModes[] = {"ROWS_FWD", "ROWS_BWD", "PARAM_SUMS", "CH_STATS", "CH_APPLY", "CH_GRAD"};
  const char* op = "norm";
  Defines d;
  d.emplace_back(kModes[static_cast<int>(v.mode)], "1");
  const DType acc = nn::acc_dtype(v.dtype);
  // Every operand a mode may read or write, in X's dtype; statistics and sums in the sums' dtype.
  for (const char* name : {"X", "G", "W", "B", "Y", "GW", "GB", "RM", "RV", "NM", "NV"})
    add_operand_defines(d, name, v.dtype, features, device, op);
  add_operand_defines(d, "ST", acc, features, device, op);
  add_operand_defines(d, "SU", acc, features, device, op);
  const bool reduces = (v.mode == NormMode::rows_fwd || v.mode == NormMode::rows_bwd ||
                        v.mode == NormMode::param_sums || (v.mode == NormMode::ch_stats && v.training));
  if (v.lanes || !reduces)
    d.emplace_back("LANES", "1");
  else
    d.emplace_back("WG_REDUCE_T", glsl_type(v.dtype, features, device, op).compute);
  if (v.rms) d.emplace_back("RMS", "1");
  if (v.has_w) d.emplace_back("HAS_W", "1");
  if (v.has_b) d.emplace_back("HAS_B", "1");
  if (v.training) d.emplace_back("TRAINING", "1");
  if (v.running) d.emplace_back("RUNNING", "1");
  if (v.has_gw) d.emplace_back("HAS_GW", "1");
  if (v.has_gb) d.emplace_back("HAS_GB", "1");
  if (v.has_su) d.emplace_back("HAS_SU", "1");
  if (v.index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) {
  const Rows r = trailing_rows(x->shape(), normalized_dims, "layer_norm");
  return rows_forward(*this, std::move(x), weight, bias, r, eps, false, "layer_norm");
}

Prim VulkanBackend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) {
  const Rows r = trailing_rows(x->shape(), normalized_dims, "rms_norm");
  return rows_forward(*this, std::move(x), weight, nullptr, r, eps, true, "rms_norm");
}

Prim VulkanBackend::group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) {
  const Rows r = group_rows(x->shape(), num_groups, "group_norm");
  return rows_forward(*this, std::move(x), weight, bias, r, eps, false, "group_norm");
}

Prims VulkanBackend::layer_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  const Shape s = x->shape();
  const Rows r = trailing_rows(s, normalized_dims, "layer_norm_backward");
  const int64_t p[5] = {r.n, r.rows, 1, 1, r.n};
  return rows_backward(*this, std::move(x), weight, grad_out, r, eps, false,
                       shape_rules::layer_norm_params(s, normalized_dims, "layer_norm_backward"), p,
                       "layer_norm_backward");
}

Prims VulkanBackend::rms_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  const Shape s = x->shape();
  const Rows r = trailing_rows(s, normalized_dims, "rms_norm_backward");
  const int64_t p[5] = {r.n, r.rows, 1, 1, r.n};
  return rows_backward(*this, std::move(x), weight, grad_out, r, eps, true,
                       shape_rules::layer_norm_params(s, normalized_dims, "rms_norm_backward"), p, "rms_norm_backward");
}

Prims VulkanBackend::group_norm_backward(Prim x, Prim weight, Prim grad_out, int64_t num_groups, double eps) {
  const Ncs d = ncs_of(x->shape(), "group_norm_backward");
  const Rows r = group_rows(x->shape(), num_groups, "group_norm_backward");
  const int64_t p[5] = {d.c, d.n, d.s, num_groups, r.cg};
  return rows_backward(*this, std::move(x), weight, grad_out, r, eps, false, Shape{d.c}, p, "group_norm_backward");
}

Prims VulkanBackend::batch_norm(Prim xp, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training,
                                double momentum, double eps) {
  static constexpr const char* op = "batch_norm";
  const VkPtr x = nn::float_operand(*this, xp, op);
  xp.reset();
  const DType dt = x->dtype();
  const Ncs d = ncs_of(x->shape(), op);
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
    v.has_w = w != nullptr;
    v.has_b = b != nullptr;
    v.index64 = nn::needs_index64(n);
    Dispatch dp = norm_dispatch(*this, v, op);
    dp.address(*x, false).push_u64(0);
    address_or_zero(dp, w, false);
    address_or_zero(dp, b, false);
    dp.address(*st, false).push_u64(0).address(*y, true);
    dp.push_i64(n).push_i64(d.c).push_i64(d.s).push_i64(d.n * d.s);
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
  const Ncs d = ncs_of(x->shape(), op);
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
  param_sums(*this, x, g, st, gw, gb, su, d.c, d.n, d.s, 0, 1, op);
  const int64_t n = x->shape().num_elements();
  if (n > 0) {
    NormVariant v{NormMode::ch_grad, dt};
    v.has_w = w != nullptr;
    v.training = training;
    v.index64 = nn::needs_index64(n);
    Dispatch dp = norm_dispatch(*this, v, op);
    dp.address(*x, false).address(*g, false);
    address_or_zero(dp, w, false);
    dp.push_u64(0).address(*st, false).address(*su, false).address(*gx, true);
    dp.push_i64(n).push_i64(d.c).push_i64(d.s).push_i64(d.n * d.s);
    dp.run_1d(n);
  }
  return {gx, gw, gb};
}

}  // namespace burn::vulkan
