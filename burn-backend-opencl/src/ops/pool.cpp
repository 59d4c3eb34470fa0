// The pool module ops on the device (burn-gpu/kernels/pool.kernel, the vulkan plugin's kernel too; the plan
// is burn/gpu/pool.hpp): max, average and adaptive pools and their backward ops, an invocation per output
// (forward) or per input element (backward: a gather over the outputs whose window holds it, so no float
// atomics and deterministic results). Output sizes and option checks come from shape_rules' pool rules.
// Index tensors of the backward ops may be i64 or i32; an index outside its plane is an IndexError raised
// at the next read (a device fault), as the cpu raises it. f32 and f64 (with cl_khr_fp64).
#include <algorithm>
#include <string>
#include <vector>

#include "burn/gpu/pool.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"
#include "ops/nn_operands.hpp"

namespace burn::opencl {

namespace {

using gpu::PoolGeo;
using gpu::PoolPass;

// One launch of pool.kernel: every tensor is optional.
struct PoolLaunch {
  ClPtr x, g, y, idx, flag;
  DType dtype = DType::F32, index_dtype = DType::I64;
  int64_t planes = 0;
  int64_t items = 0;  // invocations wanted
  uint32_t tag = 0, flags = 0;
  bool index64 = false;
};

void run_pool(const OpenClBackend& be, PoolPass pass, const PoolGeo& geo, const PoolLaunch& l, const char* op) {
  Context& ctx = be.context();
  const DeviceProfile& p = ctx.profile();
  Launch lc(ctx, "pool", op);
  gpu::Defines d{{gpu::pool_pass_define(pass), "1"}};
  for (const char* name : {"X", "G", "Y"}) add_operand_defines(d, name, l.dtype, p, op);
  add_operand_defines(d, "I", l.index_dtype, p, op);
  add_operand_defines(d, "F", DType::I32, p, op);
  if (l.index64) d.emplace_back("INDEX64", "1");
  lc.use(d);
  const bool writes_indices = pass == PoolPass::max_fwd;
  for (const ClPtr* t : {&l.x, &l.g, &l.y, &l.idx, &l.flag}) {
    if (*t)
      lc.buffer(**t, t == &l.y || (t == &l.idx && writes_indices) || (t == &l.flag && pass == PoolPass::max_bwd_check));
    else
      lc.no_tensor();
  }
  lc.index_block(geo.entries(op, "the OpenCL device " + p.name), l.index64);
  lc.faults(pass == PoolPass::max_bwd_check);
  lc.i64(l.planes).u32(l.tag).u32(l.flags);
  lc.run_1d(l.items);
}

// max or avg pool forward (and adaptive ones): values, and with `indices` the flat in-plane indices.
PrimPair forward(const OpenClBackend& be, const Prim& xp, const PoolGeo& geo, PoolPass pass, uint32_t flags,
                 bool indices, const char* op) {
  const ClPtr x = nn::float_operand(be, xp, nullptr, op, "input");
  const Shape& s = x->shape();
  gpu::check_pool_rank(s, op);
  const Shape os = gpu::pool_out_shape(s, geo);
  PoolLaunch l;
  l.x = x;
  l.dtype = x->dtype();
  l.y = be.alloc(os, x->dtype(), op);
  if (indices) l.idx = be.alloc(os, DType::I64, op);
  l.planes = gpu::pool_planes(s);
  l.items = os.num_elements();
  l.flags = flags;
  l.index64 = std::max(s.num_elements(), os.num_elements()) >= kIndex32;
  if (l.items > 0 && geo.in_len() > 0) run_pool(be, pass, geo, l, op);
  return {l.y, l.idx};
}

// avg pool backward (and adaptive): grad_in gathered from the outputs whose window holds each element.
Prim avg_backward(const OpenClBackend& be, const Prim& xp, const Prim& gp, const PoolGeo& geo, uint32_t flags,
                  const char* op) {
  const ClPtr x = be.cl(xp, op);
  const DType dt = x->dtype();
  const ClPtr g = nn::float_operand(be, gp, &dt, op, "grad_out");
  gpu::check_pool_rank(x->shape(), op);
  const Shape os = gpu::pool_out_shape(x->shape(), geo);
  if (g->shape() != os)
    throw ShapeError(op, "grad_out " + g->shape().to_string() + " does not match the output " + os.to_string());
  PoolLaunch l;
  l.g = g;
  l.dtype = x->dtype();
  l.y = be.alloc(x->shape(), x->dtype(), op);
  l.planes = gpu::pool_planes(x->shape());
  l.items = x->shape().num_elements();
  l.flags = flags;
  l.index64 = std::max(l.items, g->shape().num_elements()) >= kIndex32;
  if (l.items > 0) run_pool(be, PoolPass::avg_bwd, geo, l, op);
  return l.y;
}

// max pool backward (and adaptive): the check, the gather, and the serial scatter when an index is
// outside its window.
Prim max_backward(const OpenClBackend& be, const Prim& xp, const Prim& gp, const Prim& ip, const PoolGeo& geo,
                  bool adaptive, const char* op) {
  Context& ctx = be.context();
  const ClPtr x = be.cl(xp, op);
  const DType dt = x->dtype();
  const ClPtr g = nn::float_operand(be, gp, &dt, op, "grad_out");
  if (!ip) throw ValueError(op, "a tensor argument is missing");
  const ClPtr idx = be.contiguous(be.cl(ip, op), op);
  const Shape os = gpu::check_max_backward_operands(x->shape(), geo, g->shape(), idx->shape(), idx->dtype(), op);
  PoolLaunch l;
  l.g = g;
  l.idx = idx;
  l.dtype = x->dtype();
  l.index_dtype = idx->dtype();
  l.y = be.alloc(x->shape(), x->dtype(), op);
  l.planes = gpu::pool_planes(x->shape());
  l.flags = gpu::pool_flags(adaptive, false, false);
  l.index64 = std::max(x->shape().num_elements(), os.num_elements()) >= kIndex32;
  if (l.y->shape().num_elements() == 0) return l.y;
  l.flag = be.alloc(Shape{1}, DType::I32, op);
  const int32_t zero = 0;
  ctx.write(l.flag->allocation(), 0, &zero, sizeof zero, op);
  l.tag = ctx.fault_tag(op, "an index into the input plane");
  l.items = os.num_elements();
  if (l.items > 0) run_pool(be, PoolPass::max_bwd_check, geo, l, op);
  l.items = x->shape().num_elements();
  run_pool(be, PoolPass::max_bwd, geo, l, op);
  l.items = l.planes;
  run_pool(be, PoolPass::max_bwd_serial, geo, l, op);
  return l.y;
}

}  // namespace

Prim OpenClBackend::max_pool(Prim x, const PoolOptions& options) {
  const PoolGeo geo = gpu::pool_geo(x->shape(), options, true, "max_pool");
  return forward(*this, x, geo, PoolPass::max_fwd, 0, false, "max_pool").first;
}

PrimPair OpenClBackend::max_pool_with_indices(Prim x, const PoolOptions& options) {
  const PoolGeo geo = gpu::pool_geo(x->shape(), options, true, "max_pool_with_indices");
  return forward(*this, x, geo, PoolPass::max_fwd, gpu::pool_flags(false, false, true), true, "max_pool_with_indices");
}

Prim OpenClBackend::max_pool_backward(Prim x, Prim grad_out, Prim indices, const PoolOptions& options) {
  return max_backward(*this, x, grad_out, indices, gpu::pool_geo(x->shape(), options, true, "max_pool_backward"), false,
                      "max_pool_backward");
}

Prim OpenClBackend::avg_pool(Prim x, const PoolOptions& options) {
  const PoolGeo geo = gpu::pool_geo(x->shape(), options, false, "avg_pool");
  return forward(*this, x, geo, PoolPass::avg_fwd, gpu::pool_flags(false, options.count_include_pad, false), false,
                 "avg_pool")
      .first;
}

Prim OpenClBackend::avg_pool_backward(Prim x, Prim grad_out, const PoolOptions& options) {
  return avg_backward(*this, x, grad_out, gpu::pool_geo(x->shape(), options, false, "avg_pool_backward"),
                      gpu::pool_flags(false, options.count_include_pad, false), "avg_pool_backward");
}

Prim OpenClBackend::adaptive_avg_pool(Prim x, const Shape& output_size) {
  const PoolGeo geo = gpu::adaptive_geo(x->shape(), output_size.dims(), "adaptive_avg_pool");
  return forward(*this, x, geo, PoolPass::avg_fwd, gpu::pool_flags(true, false, false), false, "adaptive_avg_pool")
      .first;
}

Prim OpenClBackend::adaptive_avg_pool_backward(Prim x, Prim grad_out) {
  const PoolGeo geo = gpu::adaptive_backward_geo(x->shape(), grad_out->shape(), "adaptive_avg_pool_backward");
  return avg_backward(*this, x, grad_out, geo, gpu::pool_flags(true, false, false), "adaptive_avg_pool_backward");
}

PrimPair OpenClBackend::adaptive_max_pool(Prim x, const Shape& output_size) {
  const PoolGeo geo = gpu::adaptive_geo(x->shape(), output_size.dims(), "adaptive_max_pool");
  return forward(*this, x, geo, PoolPass::max_fwd, gpu::pool_flags(true, false, true), true, "adaptive_max_pool");
}

Prim OpenClBackend::adaptive_max_pool_backward(Prim x, Prim grad_out, Prim indices) {
  const PoolGeo geo = gpu::adaptive_backward_geo(x->shape(), grad_out->shape(), "adaptive_max_pool_backward");
  return max_backward(*this, x, grad_out, indices, geo, true, "adaptive_max_pool_backward");
}

}  // namespace burn::opencl
