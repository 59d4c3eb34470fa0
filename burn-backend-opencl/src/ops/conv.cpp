// conv, conv_backward, conv_transpose and conv_transpose_backward on the device (burn-gpu/kernels/conv.kernel,
// the vulkan plugin's kernel too; the plan is burn/gpu/conv.hpp): one implicit-GEMM kernel in three products
// (forward, input gradient, weight gradient) and a channel sum for the bias gradient. As the cpu backend, a
// transposed conv is the input gradient of the conv from its output to its input, and its backward the
// forward and weight gradient of that conv. Every device runs the register-blocked GEMM shape (the kernel's
// shared-memory tiles, the vulkan plugin's on GPUs, are not launched on OpenCL yet), shaped to the product.
// f32 and f64 (with cl_khr_fp64); shapes and options come from shape_rules. conv and conv_transpose take the
// fused executor's epilogue (ops/anchors.hpp).
#include <algorithm>
#include <string>
#include <utility>

#include "burn/gpu/conv.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"
#include "ops/anchors.hpp"
#include "ops/nn_operands.hpp"

namespace burn::opencl {

namespace {

using gpu::ConvGeo;
using gpu::ConvMode;

// Work-items of the bias sums' work-groups (one per channel, a tree in local memory).
constexpr size_t kBiasWorkgroup = 64;

// One product of conv.kernel into y. Operands absent from the mode are null.
void run_conv(const OpenClBackend& be, ConvMode mode, const ConvGeo& g, const ClPtr& x, const ClPtr& gy, const ClPtr& w,
              const ClPtr& bias, const ClPtr& y, const char* op, const AnchorEpilogue* epilogue = nullptr) {
  if (y->shape().num_elements() == 0) return;
  Context& ctx = be.context();
  const DeviceProfile& prof = ctx.profile();
  const gpu::ConvGemm p = gpu::conv_gemm(mode, g);
  int64_t span = y->shape().num_elements();
  for (const ClPtr* t : {&x, &gy, &w})
    if (*t) span = std::max(span, (*t)->shape().num_elements());
  const bool index64 = span >= kIndex32 || (epilogue && epilogue->index64);
  Launch lc(ctx, "conv", op);
  gpu::Defines d{{gpu::conv_mode_define(mode), "1"}};
  for (const char* name : {"X", "G", "W", "B", "Y"}) add_operand_defines(d, name, y->dtype(), prof, op);
  if (index64) d.emplace_back("INDEX64", "1");
  gpu::ConvTiles t;
  if (mode != ConvMode::bias_grad) {
    const auto wg = static_cast<uint32_t>(std::min<size_t>(prof.max_work_group, UINT32_MAX));
    const gpu::ConvDevice dev{!prof.is_gpu(), wg, wg, wg, prof.local_mem};
    t = gpu::conv_tiles(dev, false, p.m, p.n, y->dtype() == DType::F64 ? 8 : 4);
    d.emplace_back("TM", std::to_string(t.tm));
    d.emplace_back("TN", std::to_string(t.tn));
  }
  if (epilogue) d.insert(d.end(), epilogue->defines.begin(), epilogue->defines.end());
  lc.use(d);
  for (const ClPtr* o : {&x, &gy, &w, &bias}) {
    if (*o)
      lc.buffer(**o, false);
    else
      lc.no_tensor();
  }
  lc.buffer(*y, true);
  lc.index_block(gpu::conv_geo_entries(g, p, op, "the OpenCL device " + prof.name), index64);
  lc.u32(gpu::conv_flags(bias != nullptr));
  if (epilogue) epilogue->bind(lc);
  if (mode == ConvMode::bias_grad) return lc.run_groups(g.cout, std::min(kBiasWorkgroup, prof.max_work_group));
  const uint32_t max[3] = {kMaxGroups, kMaxGroups, kMaxGroups};
  const gpu::ConvGrid grid = gpu::conv_grid(t, p, g.groups, max);
  lc.run_grid({grid.x, grid.y, grid.z}, t.wg_x, t.wg_y);
}

}  // namespace

Prim conv_with_epilogue(const OpenClBackend& be, Prim x, Prim weight, Prim bias, const ConvOptions& options,
                        const AnchorEpilogue& e) {
  static constexpr const char* op = "conv";
  const ClPtr a = nn::float_operand(be, x, nullptr, op, "input");
  const DType dt = a->dtype();
  const ClPtr w = nn::float_operand(be, weight, &dt, op, "weight");
  const ClPtr b = bias ? nn::float_operand(be, bias, &dt, op, "bias") : nullptr;
  ConvOptions o = options;
  const Shape ys = shape_rules::conv(a->shape(), w->shape(), b ? &b->shape() : nullptr, o, op);
  const ConvGeo g = gpu::conv_geo(a->shape(), w->shape(), o, ys);
  const ClPtr y = be.alloc(ys, dt, op);
  run_conv(be, ConvMode::forward, g, a, nullptr, w, b, y, op, e.bind ? &e : nullptr);
  return y;
}

Prim OpenClBackend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) {
  return conv_with_epilogue(*this, std::move(x), std::move(weight), std::move(bias), options, {});
}

Prims OpenClBackend::conv_backward(Prim x, Prim weight, Prim grad_out, const ConvOptions& options,
                                   const ConvGradMask& mask) {
  static constexpr const char* op = "conv_backward";
  const ClPtr a = nn::float_operand(*this, x, nullptr, op, "input");
  const DType dt = a->dtype();
  const ClPtr w = nn::float_operand(*this, weight, &dt, op, "weight");
  const ClPtr gy = nn::float_operand(*this, grad_out, &dt, op, "grad_out");
  ConvOptions o = options;
  const Shape ys = shape_rules::conv(a->shape(), w->shape(), nullptr, o, op);
  if (gy->shape() != ys)
    throw ShapeError(op, "grad_out " + gy->shape().to_string() + " does not match the output " + ys.to_string());
  const ConvGeo g = gpu::conv_geo(a->shape(), w->shape(), o, ys);
  const ClPtr gx = mask.x ? alloc(a->shape(), dt, op) : nullptr;
  const ClPtr gw = mask.weight ? alloc(w->shape(), dt, op) : nullptr;
  const ClPtr gb = mask.bias ? alloc(Shape{g.cout}, dt, op) : nullptr;
  if (gx) run_conv(*this, ConvMode::grad_input, g, nullptr, gy, w, nullptr, gx, op);
  if (gw) run_conv(*this, ConvMode::grad_weight, g, a, gy, nullptr, nullptr, gw, op);
  if (gb) run_conv(*this, ConvMode::bias_grad, g, nullptr, gy, nullptr, nullptr, gb, op);
  return {gx, gw, gb};
}

Prim conv_transpose_with_epilogue(const OpenClBackend& be, Prim x, Prim weight, Prim bias,
                                  const ConvTransposeOptions& options, const AnchorEpilogue& e) {
  static constexpr const char* op = "conv_transpose";
  const ClPtr a = nn::float_operand(be, x, nullptr, op, "input");
  const DType dt = a->dtype();
  const ClPtr w = nn::float_operand(be, weight, &dt, op, "weight");
  const ClPtr b = bias ? nn::float_operand(be, bias, &dt, op, "bias") : nullptr;
  ConvTransposeOptions o = options;
  const Shape ys = shape_rules::conv_transpose(a->shape(), w->shape(), b ? &b->shape() : nullptr, o, op);
  const ConvGeo g = gpu::transpose_geo(a->shape(), w->shape(), o, ys);
  const ClPtr y = be.alloc(ys, dt, op);
  run_conv(be, ConvMode::grad_input, g, nullptr, a, w, b, y, op, e.bind ? &e : nullptr);
  return y;
}

Prim OpenClBackend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) {
  return conv_transpose_with_epilogue(*this, std::move(x), std::move(weight), std::move(bias), options, {});
}

Prims OpenClBackend::conv_transpose_backward(Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options,
                                             const ConvGradMask& mask) {
  static constexpr const char* op = "conv_transpose_backward";
  const ClPtr a = nn::float_operand(*this, x, nullptr, op, "input");
  const DType dt = a->dtype();
  const ClPtr w = nn::float_operand(*this, weight, &dt, op, "weight");
  const ClPtr gy = nn::float_operand(*this, grad_out, &dt, op, "grad_out");
  ConvTransposeOptions o = options;
  const Shape ys = shape_rules::conv_transpose(a->shape(), w->shape(), nullptr, o, op);
  if (gy->shape() != ys)
    throw ShapeError(op, "grad_out " + gy->shape().to_string() + " does not match the output " + ys.to_string());
  const ConvGeo g = gpu::transpose_geo(a->shape(), w->shape(), o, ys);
  const ClPtr gx = mask.x ? alloc(a->shape(), dt, op) : nullptr;
  const ClPtr gw = mask.weight ? alloc(w->shape(), dt, op) : nullptr;
  const ClPtr gb = mask.bias ? alloc(Shape{g.c}, dt, op) : nullptr;
  if (gx) run_conv(*this, ConvMode::forward, g, gy, nullptr, w, nullptr, gx, op);
  if (gw) run_conv(*this, ConvMode::grad_weight, g, gy, a, nullptr, nullptr, gw, op);
  if (gb) run_conv(*this, ConvMode::bias_grad, gpu::transpose_bias_geo(g), nullptr, gy, nullptr, nullptr, gb, op);
  return {gx, gw, gb};
}

}  // namespace burn::opencl
