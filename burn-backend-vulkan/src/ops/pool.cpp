// The pool module ops on the device (burn-gpu/kernels/pool.kernel, the opencl plugin's kernel too; the plan is
// burn/gpu/pool.hpp): max, average and adaptive pools and their
// backward ops, an invocation per output (forward) or per input element (backward: a gather over the
// outputs whose window holds it, so that no float atomics are needed and results are deterministic).
// Output sizes and option checks come from shape_rules' pool rules, which the api and the cpu backend use. Index
// tensors of the backward ops may be i64 or i32; an index outside its plane is an IndexError raised at the next read (a
// device fault), as the cpu raises it.
#include <algorithm>
#include <string>
#include <vector>

#include "burn/gpu/pool.hpp"
#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

namespace {

using gpu::PoolGeo;

// One launch of pool.kernel: every operand is optional but the geometry.
struct PoolLaunch {
  VkPtr x, g, y, idx, flag;
  int64_t planes = 0;
  int64_t items = 0;  // invocations wanted (run_1d)
  uint32_t tag = 0;
};

void run_pool(const VulkanBackend& be, const PoolVariant& v, const PoolGeo& geo, const PoolLaunch& l, const char* op) {
  Context& ctx = be.context();
  Dispatch dp(ctx, "pool", op);
  dp.use(pool_defines(v, ctx.profile().features, ctx.profile().name));
  for (const VkPtr* t : {&l.x, &l.g, &l.y, &l.idx, &l.flag}) {
    if (*t)
      dp.address(**t, t == &l.y || (t == &l.idx && v.mode == PoolMode::max_fwd) ||
                          (t == &l.flag && v.mode == PoolMode::max_bwd_check));
    else
      dp.push_u64(0);
  }
  dp.args(Dispatch::index_array(geo.entries(op, "the Vulkan device " + ctx.profile().name), v.index64));
  dp.push_u64(v.mode == PoolMode::max_bwd_check ? ctx.faults_address() : 0);
  dp.push_i64(l.planes).push_i32(static_cast<int32_t>(l.tag));
  dp.push_i32(static_cast<int32_t>(gpu::pool_flags(v.adaptive, v.count_pad, v.with_indices)));
  dp.run_1d(l.items);
}

// max or avg pool forward (and adaptive ones): values, and with `indices` the flat in-plane indices.
PrimPair forward(const VulkanBackend& be, Prim xp, const PoolGeo& geo, PoolVariant v, const char* op) {
  const VkPtr x = nn::float_operand(be, xp, op);
  xp.reset();
  const Shape& s = x->shape();
  gpu::check_pool_rank(s, op);
  v.dtype = x->dtype();
  const Shape os = gpu::pool_out_shape(s, geo);
  PoolLaunch l;
  l.x = x;
  l.y = be.alloc(os, x->dtype());
  if (v.with_indices) l.idx = be.alloc(os, DType::I64);
  l.planes = gpu::pool_planes(s);
  l.items = os.num_elements();
  v.index64 = nn::needs_index64(std::max(s.num_elements(), os.num_elements()));
  if (l.items > 0 && geo.in_len() > 0) run_pool(be, v, geo, l, op);
  return {l.y, l.idx};
}

// avg pool backward (and adaptive): grad_in gathered from the outputs whose window holds each element.
Prim avg_backward(const VulkanBackend& be, const Prim& xp, const Prim& gp, const PoolGeo& geo, PoolVariant v,
                  const char* op) {
  const VkPtr x = be.vk(xp, op);
  const VkPtr g = nn::optional_operand(be, gp, x->dtype(), op, "grad_out");
  gpu::check_pool_rank(x->shape(), op);
  if (g->shape() != gpu::pool_out_shape(x->shape(), geo))
    throw ShapeError(op, "grad_out " + g->shape().to_string() + " does not match the output " +
                             gpu::pool_out_shape(x->shape(), geo).to_string());
  v.dtype = x->dtype();
  PoolLaunch l;
  l.g = g;
  l.y = be.alloc(x->shape(), x->dtype());
  l.planes = gpu::pool_planes(x->shape());
  l.items = x->shape().num_elements();
  v.index64 = nn::needs_index64(std::max(l.items, g->shape().num_elements()));
  if (l.items > 0) run_pool(be, v, geo, l, op);
  return l.y;
}

// max pool backward (and adaptive): the check, the gather, and the serial scatter when an index is
// outside its window.
Prim max_backward(const VulkanBackend& be, const Prim& xp, const Prim& gp, const Prim& ip, const PoolGeo& geo,
                  bool adaptive, const char* op) {
  Context& ctx = be.context();
  const VkPtr x = be.vk(xp, op);
  const VkPtr g = nn::optional_operand(be, gp, x->dtype(), op, "grad_out");
  const VkPtr idx = be.contiguous(be.vk(ip, op), op);
  const Shape os = gpu::check_max_backward_operands(x->shape(), geo, g->shape(), idx->shape(), idx->dtype(), op);
  PoolVariant v{PoolMode::max_bwd_check, x->dtype()};
  v.adaptive = adaptive;
  v.index_dtype = idx->dtype();
  v.index64 = nn::needs_index64(std::max(x->shape().num_elements(), os.num_elements()));
  PoolLaunch l;
  l.g = g;
  l.idx = idx;
  l.y = be.alloc(x->shape(), x->dtype());
  l.planes = gpu::pool_planes(x->shape());
  if (l.y->shape().num_elements() == 0) return l.y;
  l.flag = be.alloc(Shape{1}, DType::I32);
  const int32_t zero = 0;
  ctx.write(l.flag->allocation(), 0, &zero, sizeof zero);
  l.tag = ctx.fault_tag(op, "an index into the input plane");
  l.items = os.num_elements();
  if (l.items > 0) run_pool(be, v, geo, l, op);
  v.mode = PoolMode::max_bwd;
  l.items = x->shape().num_elements();
  run_pool(be, v, geo, l, op);
  v.mode = PoolMode::max_bwd_serial;
  l.items = l.planes;
  run_pool(be, v, geo, l, op);
  return l.y;
}

PoolVariant variant(PoolMode mode, bool adaptive) {
  PoolVariant v{mode, DType::F32};
  v.adaptive = adaptive;
  return v;
}

}  // namespace

Defines pool_defines(const PoolVariant& v, const DeviceFeatures& features, const std::string& device) {
  const char* op = "pool";
  Defines d;
  // adaptive, count_pad and with_indices are the kernel's flags argument (run_pool), not defines.
  d.emplace_back(gpu::pool_pass_define(static_cast<gpu::PoolPass>(static_cast<int>(v.mode))), "1");
  for (const char* name : {"X", "G", "Y"}) add_operand_defines(d, name, v.dtype, features, device, op);
  add_operand_defines(d, "I", v.index_dtype, features, device, op);
  add_operand_defines(d, "F", DType::I32, features, device, op);
  if (v.index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::max_pool(Prim x, const PoolOptions& options) {
  const PoolGeo geo = gpu::pool_geo(x->shape(), options, true, "max_pool");
  return forward(*this, std::move(x), geo, variant(PoolMode::max_fwd, false), "max_pool").first;
}

PrimPair VulkanBackend::max_pool_with_indices(Prim x, const PoolOptions& options) {
  const PoolGeo geo = gpu::pool_geo(x->shape(), options, true, "max_pool_with_indices");
  PoolVariant v = variant(PoolMode::max_fwd, false);
  v.with_indices = true;
  return forward(*this, std::move(x), geo, v, "max_pool_with_indices");
}

Prim VulkanBackend::max_pool_backward(Prim x, Prim grad_out, Prim indices, const PoolOptions& options) {
  return max_backward(*this, x, grad_out, indices, gpu::pool_geo(x->shape(), options, true, "max_pool_backward"), false,
                      "max_pool_backward");
}

Prim VulkanBackend::avg_pool(Prim x, const PoolOptions& options) {
  const PoolGeo geo = gpu::pool_geo(x->shape(), options, false, "avg_pool");
  PoolVariant v = variant(PoolMode::avg_fwd, false);
  v.count_pad = options.count_include_pad;
  return forward(*this, std::move(x), geo, v, "avg_pool").first;
}

Prim VulkanBackend::avg_pool_backward(Prim x, Prim grad_out, const PoolOptions& options) {
  PoolVariant v = variant(PoolMode::avg_bwd, false);
  v.count_pad = options.count_include_pad;
  return avg_backward(*this, x, grad_out, gpu::pool_geo(x->shape(), options, false, "avg_pool_backward"), v,
                      "avg_pool_backward");
}

Prim VulkanBackend::adaptive_avg_pool(Prim x, const Shape& output_size) {
  const PoolGeo geo = gpu::adaptive_geo(x->shape(), output_size.dims(), "adaptive_avg_pool");
  return forward(*this, std::move(x), geo, variant(PoolMode::avg_fwd, true), "adaptive_avg_pool").first;
}

Prim VulkanBackend::adaptive_avg_pool_backward(Prim x, Prim grad_out) {
  const PoolGeo geo = gpu::adaptive_backward_geo(x->shape(), grad_out->shape(), "adaptive_avg_pool_backward");
  return avg_backward(*this, x, grad_out, geo, variant(PoolMode::avg_bwd, true), "adaptive_avg_pool_backward");
}

PrimPair VulkanBackend::adaptive_max_pool(Prim x, const Shape& output_size) {
  const PoolGeo geo = gpu::adaptive_geo(x->shape(), output_size.dims(), "adaptive_max_pool");
  PoolVariant v = variant(PoolMode::max_fwd, true);
  v.with_indices = true;
  return forward(*this, std::move(x), geo, v, "adaptive_max_pool");
}

Prim VulkanBackend::adaptive_max_pool_backward(Prim x, Prim grad_out, Prim indices) {
  const PoolGeo geo = gpu::adaptive_backward_geo(x->shape(), grad_out->shape(), "adaptive_max_pool_backward");
  return max_backward(*this, x, grad_out, indices, geo, true, "adaptive_max_pool_backward");
}

}  // namespace burn::vulkan
