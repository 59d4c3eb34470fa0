// conv, conv_backward, conv_transpose and conv_transpose_backward on the device (burn-gpu/kernels/conv.kernel,
// the opencl plugin's kernel too; the plan is burn/gpu/conv.hpp): one implicit-GEMM kernel in three products
// (forward, input gradient, weight gradient) and a channel sum for the bias gradient. As the cpu backend
// (burn-backend-cpu/src/ops/conv.cpp), a transposed conv is the input gradient of the conv from its output to its
// input, and its backward the forward and weight gradient of that conv. The GEMM shape follows the profile
// (shared_memory_gemm: tiles staged in shared memory on GPUs, register blocking on CPU-type devices), shaped to the
// product so that few output channels (a depthwise conv) or few rows do not leave most of a tile idle. Shapes and
// options come from shape_rules.
#include <algorithm>
#include <string>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

namespace {

using gpu::ConvGeo;

// One product of conv.kernel into y. Operands absent from the mode are null.
void launch(const VulkanBackend& be, ConvMode mode, const ConvGeo& g, const VkPtr& x, const VkPtr& gy, const VkPtr& w,
            const VkPtr& bias, const VkPtr& y, const char* op, const AnchorEpilogue* epilogue = nullptr) {
  if (y->shape().num_elements() == 0) return;
  Context& ctx = be.context();
  const gpu::ConvGemm p = gpu::conv_gemm(mode, g);
  ConvVariant v{mode, y->dtype()};
  v.tiled = ctx.profile().features.shared_memory_gemm;
  int64_t span = y->shape().num_elements();
  for (const VkPtr* t : {&x, &gy, &w})
    if (*t) span = std::max(span, (*t)->shape().num_elements());
  v.index64 = nn::needs_index64(span) || (epilogue && epilogue->index64);
  v.tiles = mode == ConvMode::bias_grad
                ? ConvTiles{nn::kRowWorkgroup, 1, 1, 1, 0}
                : conv_tiles(ctx.profile(), v.tiled, p.m, p.n, dtype_size(nn::acc_dtype(v.dtype)));
  Dispatch dp(ctx, "conv", op);
  Defines defs = conv_defines(v, ctx.profile().features, ctx.profile().name);
  if (epilogue) defs.insert(defs.end(), epilogue->defines.begin(), epilogue->defines.end());
  dp.use(defs);
  for (const VkPtr* t : {&x, &gy, &w, &bias}) {
    if (*t)
      dp.address(**t, false);
    else
      dp.push_u64(0);
  }
  dp.address(*y, true);
  dp.args(Dispatch::index_array(gpu::conv_geo_entries(g, p, op, "the Vulkan device " + ctx.profile().name), v.index64));
  dp.push_i32(static_cast<int32_t>(gpu::conv_flags(bias != nullptr)));
  if (epilogue && epilogue->bind) epilogue->bind(dp);
  if (mode == ConvMode::bias_grad) return nn::run_groups(dp, g.cout, nn::kRowWorkgroup);
  const ConvTiles& t = v.tiles;
  const auto& count = ctx.profile().limits.max_workgroup_count;
  const uint32_t max[3] = {std::min<uint32_t>(count[0], 65535), std::min<uint32_t>(count[1], 65535),
                           std::min<uint32_t>(count[2], 65535)};
  const gpu::ConvGrid grid = gpu::conv_grid(t, p, g.groups, max);
  dp.run({grid.x, grid.y, grid.z}, {t.wg_x, t.wg_y, 1});
}

// The float operands of a conv op, contiguous, of one dtype.
std::pair<VkPtr, VkPtr> operands(const VulkanBackend& be, Prim& x, const Prim& w, const char* op) {
  VkPtr a = nn::float_operand(be, x, op);
  x.reset();
  VkPtr b = nn::optional_operand(be, w, a->dtype(), op, "weight");
  return {a, b};
}

}  // namespace

ConvTiles conv_tiles(const DeviceProfile& profile, bool tiled, int64_t rows, int64_t cols, uint32_t acc_bytes) {
  const DeviceLimits& lim = profile.limits;
  const gpu::ConvDevice dev{profile.cpu_type(), lim.max_workgroup_invocations, lim.max_workgroup_size[0],
                            lim.max_workgroup_size[1], lim.max_shared_memory};
  return gpu::conv_tiles(dev, tiled, rows, cols, acc_bytes);
}

Defines conv_defines(const ConvVariant& v, const DeviceFeatures& features, const std::string& device) {
  const char* op = "conv";
  Defines d;
  d.emplace_back(gpu::conv_mode_define(v.mode), "1");
  for (const char* name : {"X", "G", "W", "B", "Y"}) add_operand_defines(d, name, v.dtype, features, device, op);
  if (v.mode != ConvMode::bias_grad) {
    d.emplace_back("TM", std::to_string(v.tiles.tm));
    d.emplace_back("TN", std::to_string(v.tiles.tn));
    if (v.tiled) d.emplace_back("TILED", "1");
    if (v.tiled) d.emplace_back("BK", std::to_string(v.tiles.bk));
  }
  if (v.index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) {
  return conv_with_epilogue(*this, std::move(x), std::move(weight), std::move(bias), options, {});
}

Prim VulkanBackend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) {
  return conv_transpose_with_epilogue(*this, std::move(x), std::move(weight), std::move(bias), options, {});
}

Prim conv_with_epilogue(const VulkanBackend& be, Prim x, Prim weight, Prim bias, const ConvOptions& options,
                        const AnchorEpilogue& e) {
  static constexpr const char* op = "conv";
  auto [a, w] = operands(be, x, weight, op);
  const VkPtr b = nn::optional_operand(be, bias, a->dtype(), op, "bias");
  ConvOptions o = options;
  const Shape ys = shape_rules::conv(a->shape(), w->shape(), b ? &b->shape() : nullptr, o, op);
  const ConvGeo g = gpu::conv_geo(a->shape(), w->shape(), o, ys);
  VkPtr y = be.alloc(ys, a->dtype());
  launch(be, ConvMode::forward, g, a, nullptr, w, b, y, op, e.bind || !e.defines.empty() ? &e : nullptr);
  return y;
}

Prims VulkanBackend::conv_backward(Prim x, Prim weight, Prim grad_out, const ConvOptions& options,
                                   const ConvGradMask& mask) {
  static constexpr const char* op = "conv_backward";
  auto [a, w] = operands(*this, x, weight, op);
  const VkPtr gy = nn::optional_operand(*this, grad_out, a->dtype(), op, "grad_out");
  ConvOptions o = options;
  const ConvGeo g = gpu::conv_geo(a->shape(), w->shape(), o, shape_rules::conv(a->shape(), w->shape(), nullptr, o, op));
  VkPtr gx = mask.x ? alloc(a->shape(), a->dtype()) : nullptr;
  VkPtr gw = mask.weight ? alloc(w->shape(), a->dtype()) : nullptr;
  VkPtr gb = mask.bias ? alloc(Shape{g.cout}, a->dtype()) : nullptr;
  if (gx) launch(*this, ConvMode::grad_input, g, nullptr, gy, w, nullptr, gx, op);
  if (gw) launch(*this, ConvMode::grad_weight, g, a, gy, nullptr, nullptr, gw, op);
  if (gb) launch(*this, ConvMode::bias_grad, g, nullptr, gy, nullptr, nullptr, gb, op);
  return {gx, gw, gb};
}

Prim conv_transpose_with_epilogue(const VulkanBackend& be, Prim x, Prim weight, Prim bias,
                                  const ConvTransposeOptions& options, const AnchorEpilogue& e) {
  static constexpr const char* op = "conv_transpose";
  auto [a, w] = operands(be, x, weight, op);
  const VkPtr b = nn::optional_operand(be, bias, a->dtype(), op, "bias");
  ConvTransposeOptions o = options;
  const Shape ys = shape_rules::conv_transpose(a->shape(), w->shape(), b ? &b->shape() : nullptr, o, op);
  const ConvGeo g = gpu::transpose_geo(a->shape(), w->shape(), o, ys);
  VkPtr y = be.alloc(ys, a->dtype());
  launch(be, ConvMode::grad_input, g, nullptr, a, w, b, y, op, e.bind || !e.defines.empty() ? &e : nullptr);
  return y;
}

Prims VulkanBackend::conv_transpose_backward(Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options,
                                             const ConvGradMask& mask) {
  static constexpr const char* op = "conv_transpose_backward";
  auto [a, w] = operands(*this, x, weight, op);
  const VkPtr gy = nn::optional_operand(*this, grad_out, a->dtype(), op, "grad_out");
  ConvTransposeOptions o = options;
  const ConvGeo g = gpu::transpose_geo(a->shape(), w->shape(), o,
                                       shape_rules::conv_transpose(a->shape(), w->shape(), nullptr, o, op));
  VkPtr gx = mask.x ? alloc(a->shape(), a->dtype()) : nullptr;
  VkPtr gw = mask.weight ? alloc(w->shape(), a->dtype()) : nullptr;
  VkPtr gb = mask.bias ? alloc(Shape{g.c}, a->dtype()) : nullptr;
  if (gx) launch(*this, ConvMode::forward, g, gy, nullptr, w, nullptr, gx, op);
  if (gw) launch(*this, ConvMode::grad_weight, g, gy, a, nullptr, nullptr, gw, op);
  if (gb) launch(*this, ConvMode::bias_grad, gpu::transpose_bias_geo(g), nullptr, gy, nullptr, nullptr, gb, op);
  return {gx, gw, gb};
}

}  // namespace burn::vulkan
