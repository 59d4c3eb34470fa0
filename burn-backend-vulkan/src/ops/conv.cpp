// conv, conv_backward, conv_transpose and conv_transpose_backward on the device (kernels/conv.comp): one
// implicit-GEMM kernel in three products (forward, input gradient, weight gradient) and a channel sum for
// the bias gradient. As the cpu backend (burn-backend-cpu/src/ops/conv.cpp), a transposed conv is the input
// gradient of the conv from its output to its input, and its backward the forward and weight gradient of
// that conv. The GEMM shape follows the profile (shared_memory_gemm: tiles staged in shared memory on
// GPUs, register blocking on CPU-type devices), shaped to the product so that few output channels (a
// depthwise conv) or few rows do not leave most of a tile idle. Shapes and options come from shape_rules.
#include <algorithm>
#include <string>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

namespace {

// A conv's geometry from its input side, right-aligned into (D, H, W) (cpu: conv_detail::Geo3), with the
// channel counts of the conv (c in, cout out).
struct ConvGeo {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t n = 0, c = 0, cout = 0, groups = 1;
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t ksize() const { return k[0] * k[1] * k[2]; }
  int64_t cg() const { return c / groups; }
  int64_t mo() const { return cout / groups; }
};

ConvGeo make_geo(const std::vector<int64_t>& in, const std::vector<int64_t>& out, const Shape& ws,
                 const std::vector<int64_t>& s, const std::vector<int64_t>& p, const std::vector<int64_t>& d) {
  ConvGeo g;
  const size_t r = in.size(), lead = 3 - r;
  for (size_t i = 0; i < r; ++i) {
    g.in[lead + i] = in[i];
    g.out[lead + i] = out[i];
    g.k[lead + i] = ws[i + 2];
    g.s[lead + i] = s[i];
    g.p[lead + i] = p[i];
    g.d[lead + i] = d[i];
  }
  return g;
}

std::vector<int64_t> spatial(const Shape& s) { return {s.begin() + 2, s.end()}; }

// conv(x, w) whose output shape `ys` the conv rule gave (with `o` normalised) (cpu: conv_geo).
ConvGeo conv_geo(const Shape& xs, const Shape& ws, const ConvOptions& o, const Shape& ys) {
  ConvGeo g = make_geo(spatial(xs), spatial(ys), ws, o.stride, o.padding, o.dilation);
  g.n = xs[0];
  g.c = xs[1];
  g.cout = ws[0];
  g.groups = o.groups;
  return g;
}

// conv_transpose(x, w): the conv from the transposed conv's output `ys` (the conv_transpose rule's, cout
// channels) to x (cpu: transpose_geo).
ConvGeo transpose_geo(const Shape& xs, const Shape& ws, const ConvTransposeOptions& o, const Shape& ys) {
  ConvGeo g = make_geo(spatial(ys), spatial(xs), ws, o.stride, o.padding, o.dilation);
  g.n = xs[0];
  g.c = ys[1];
  g.cout = ws[0];
  g.groups = o.groups;
  return g;
}

// The GEMM of a product: rows, columns and depth.
struct Gemm {
  int64_t m = 0, n = 0, k = 0;
};
Gemm gemm_of(ConvMode mode, const ConvGeo& g) {
  switch (mode) {
    case ConvMode::forward: return {g.n * g.out_size(), g.mo(), g.cg() * g.ksize()};
    case ConvMode::grad_input: return {g.n * g.in_size(), g.cg(), g.mo() * g.ksize()};
    case ConvMode::grad_weight: return {g.mo(), g.cg() * g.ksize(), g.n * g.out_size()};
    case ConvMode::bias_grad: break;
  }
  return {g.cout, 1, g.n * g.out_size()};
}

std::vector<uint8_t> geo_block(const ConvGeo& g, const Gemm& p, const char* op) {
  std::vector<int32_t> b;
  for (const int64_t* row : {g.in, g.out, g.k, g.s, g.p, g.d})
    for (int a = 0; a < 3; ++a) b.push_back(nn::i32(row[a], op, "a conv size"));
  for (int64_t v : {g.n, g.c, g.cout, g.groups, g.cg(), g.mo(), g.ksize(), g.in_size(), g.out_size(), p.m, p.n, p.k})
    b.push_back(nn::i32(v, op, "a conv size"));
  return nn::bytes_of(b);
}

// One product of kernels/conv.comp into y. Operands absent from the mode are null.
void launch(const VulkanBackend& be, ConvMode mode, const ConvGeo& g, const VkPtr& x, const VkPtr& gy, const VkPtr& w,
            const VkPtr& bias, const VkPtr& y, const char* op, const ConvEpilogue* epilogue = nullptr) {
  if (y->shape().num_elements() == 0) return;
  Context& ctx = be.context();
  const Gemm p = gemm_of(mode, g);
  ConvVariant v{mode, y->dtype()};
  v.tiled = ctx.profile().features.shared_memory_gemm;
  v.has_bias = bias != nullptr;
  int64_t span = y->shape().num_elements();
  for (const VkPtr* t : {&x, &gy, &w})
    if (*t) span = std::max(span, (*t)->shape().num_elements());
  v.index64 = nn::needs_index64(span) || (epilogue && epilogue->index64);
  v.tiles = mode == ConvMode::bias_grad
                ? ConvTiles{nn::kRowWorkgroup, 1, 1, 1, 0}
                : conv_tiles(ctx.profile(), v.tiled, p.m, p.n, dtype_size(nn::acc_dtype(v.dtype)));
  Dispatch dp(ctx, "conv", op);
  Defines defs = conv_defines(v, ctx.profile().features, ctx.profile().name);
  if (epilogue) add_conv_epilogue_defines(defs, *epilogue);
  dp.use(defs);
  for (const VkPtr* t : {&x, &gy, &w, &bias}) {
    if (*t)
      dp.address(**t, false);
    else
      dp.push_u64(0);
  }
  dp.address(*y, true).args(geo_block(g, p, op));
  if (epilogue && epilogue->bind) epilogue->bind(dp);
  if (mode == ConvMode::bias_grad) return nn::run_groups(dp, g.cout, nn::kRowWorkgroup);
  const ConvTiles& t = v.tiles;
  const auto& count = ctx.profile().limits.max_workgroup_count;
  const int64_t tiles_n = (p.n + t.wg_x * t.tn - 1) / (t.wg_x * t.tn);
  const int64_t tiles_m = (p.m + t.wg_y * t.tm - 1) / (t.wg_y * t.tm);
  auto cap = [](int64_t v, uint32_t limit) { return static_cast<uint32_t>(std::min<int64_t>(v, std::max(limit, 1u))); };
  dp.run({cap(tiles_n, std::min<uint32_t>(count[0], 65535)), cap(tiles_m, std::min<uint32_t>(count[1], 65535)),
          cap(g.groups, std::min<uint32_t>(count[2], 65535))},
         {t.wg_x, t.wg_y, 1});
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
  // Invocations per workgroup: 64 on CPU-type devices (a workgroup is one thread's SIMD lanes), else 256.
  uint32_t budget = profile.cpu_type() && !tiled ? 64 : 256;
  budget = std::min<uint32_t>(budget, std::max<uint32_t>(lim.max_workgroup_invocations, 1));
  // Three shapes, so that few of them need compiling: a square tile of 4 x 4 blocks, a column of rows for
  // products with few columns (a depthwise conv), a row of columns for those with few rows.
  ConvTiles t;
  if (cols <= 4) {
    t = {1, budget, 1, 1, 0};
  } else if (rows <= 4) {
    t = {budget, 1, 1, 1, 0};
  } else {
    uint32_t side = 1;
    while (side * side * 4 <= budget) side *= 2;
    t = {side, budget / side, 4, 4, 0};
  }
  while (t.wg_x > std::max<uint32_t>(lim.max_workgroup_size[0], 1)) t.wg_x /= 2;
  while (t.wg_y > std::max<uint32_t>(lim.max_workgroup_size[1], 1)) t.wg_y /= 2;
  if (tiled) {
    t.bk = 16;
    auto bytes = [&] { return uint64_t{t.bk} * (t.wg_y * t.tm + 1 + t.wg_x * t.tn + 1) * acc_bytes; };
    while (bytes() > lim.max_shared_memory && t.bk > 1) t.bk /= 2;
    while (bytes() > lim.max_shared_memory && (t.tm > 1 || t.tn > 1)) (t.tm >= t.tn ? t.tm : t.tn) /= 2;
  }
  return t;
}

Defines conv_defines(const ConvVariant& v, const DeviceFeatures& features, const std::string& device) {
  static const char* const kModes[] = {"FORWARD", "GRAD_INPUT", "GRAD_WEIGHT", "BIAS_GRAD"};
  const char* op = "conv";
  Defines d;
  d.emplace_back(kModes[static_cast<int>(v.mode)], "1");
  for (const char* name : {"X", "G", "W", "B", "Y"}) add_operand_defines(d, name, v.dtype, features, device, op);
  if (v.mode == ConvMode::bias_grad) {
    d.emplace_back("WG_REDUCE_T", glsl_type(v.dtype, features, device, op).compute);
  } else {
    d.emplace_back("TM", std::to_string(v.tiles.tm));
    d.emplace_back("TN", std::to_string(v.tiles.tn));
    if (v.tiled) d.emplace_back("TILED", "1");
    if (v.tiled) d.emplace_back("BK", std::to_string(v.tiles.bk));
  }
  if (v.has_bias) d.emplace_back("HAS_BIAS", "1");
  if (v.index64) d.emplace_back("INDEX64", "1");
  return d;
}

void add_conv_epilogue_defines(Defines& d, const ConvEpilogue& e) {
  if (!e.expression.empty()) d.emplace_back("EPILOGUE(v, i)", e.expression);
  if (!e.push.empty()) d.emplace_back("EPILOGUE_PUSH", e.push);
  if (!e.preamble.empty()) {
    d.emplace_back("EPILOGUE_PREAMBLE", e.preamble);
    d.emplace_back("EPILOGUE_ONCE", "1");
  }
}

Prim VulkanBackend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) {
  return conv_with_epilogue(*this, std::move(x), std::move(weight), std::move(bias), options, {});
}

Prim VulkanBackend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) {
  return conv_transpose_with_epilogue(*this, std::move(x), std::move(weight), std::move(bias), options, {});
}

Prim conv_with_epilogue(const VulkanBackend& be, Prim x, Prim weight, Prim bias, const ConvOptions& options,
                        const ConvEpilogue& e) {
  static constexpr const char* op = "conv";
  auto [a, w] = operands(be, x, weight, op);
  const VkPtr b = nn::optional_operand(be, bias, a->dtype(), op, "bias");
  ConvOptions o = options;
  const Shape ys = shape_rules::conv(a->shape(), w->shape(), b ? &b->shape() : nullptr, o, op);
  const ConvGeo g = conv_geo(a->shape(), w->shape(), o, ys);
  VkPtr y = be.alloc(ys, a->dtype());
  launch(be, ConvMode::forward, g, a, nullptr, w, b, y, op, e.bind || !e.expression.empty() ? &e : nullptr);
  return y;
}

Prims VulkanBackend::conv_backward(Prim x, Prim weight, Prim grad_out, const ConvOptions& options, bool bias_grad) {
  static constexpr const char* op = "conv_backward";
  auto [a, w] = operands(*this, x, weight, op);
  const VkPtr gy = nn::optional_operand(*this, grad_out, a->dtype(), op, "grad_out");
  ConvOptions o = options;
  const ConvGeo g = conv_geo(a->shape(), w->shape(), o, shape_rules::conv(a->shape(), w->shape(), nullptr, o, op));
  VkPtr gx = alloc(a->shape(), a->dtype()), gw = alloc(w->shape(), a->dtype());
  VkPtr gb = bias_grad ? alloc(Shape{g.cout}, a->dtype()) : nullptr;
  launch(*this, ConvMode::grad_input, g, nullptr, gy, w, nullptr, gx, op);
  launch(*this, ConvMode::grad_weight, g, a, gy, nullptr, nullptr, gw, op);
  if (gb) launch(*this, ConvMode::bias_grad, g, nullptr, gy, nullptr, nullptr, gb, op);
  return {gx, gw, gb};
}

Prim conv_transpose_with_epilogue(const VulkanBackend& be, Prim x, Prim weight, Prim bias,
                                  const ConvTransposeOptions& options, const ConvEpilogue& e) {
  static constexpr const char* op = "conv_transpose";
  auto [a, w] = operands(be, x, weight, op);
  const VkPtr b = nn::optional_operand(be, bias, a->dtype(), op, "bias");
  ConvTransposeOptions o = options;
  const Shape ys = shape_rules::conv_transpose(a->shape(), w->shape(), b ? &b->shape() : nullptr, o, op);
  const ConvGeo g = transpose_geo(a->shape(), w->shape(), o, ys);
  VkPtr y = be.alloc(ys, a->dtype());
  launch(be, ConvMode::grad_input, g, nullptr, a, w, b, y, op, e.bind || !e.expression.empty() ? &e : nullptr);
  return y;
}

Prims VulkanBackend::conv_transpose_backward(Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options,
                                             bool bias_grad) {
  static constexpr const char* op = "conv_transpose_backward";
  auto [a, w] = operands(*this, x, weight, op);
  const VkPtr gy = nn::optional_operand(*this, grad_out, a->dtype(), op, "grad_out");
  ConvTransposeOptions o = options;
  const ConvGeo g =
      transpose_geo(a->shape(), w->shape(), o, shape_rules::conv_transpose(a->shape(), w->shape(), nullptr, o, op));
  VkPtr gx = alloc(a->shape(), a->dtype()), gw = alloc(w->shape(), a->dtype());
  VkPtr gb = bias_grad ? alloc(Shape{g.c}, a->dtype()) : nullptr;
  launch(*this, ConvMode::forward, g, gy, nullptr, w, nullptr, gx, op);
  launch(*this, ConvMode::grad_weight, g, gy, a, nullptr, nullptr, gw, op);
  if (gb) {
    // The channel sums of grad_out [N, cout, in]: the bias-gradient product of the conv seen from gy.
    ConvGeo s = g;
    s.cout = g.c;
    std::copy(g.in, g.in + 3, s.out);
    launch(*this, ConvMode::bias_grad, s, nullptr, gy, nullptr, nullptr, gb, op);
  }
  return {gx, gw, gb};
}

}  // namespace burn::vulkan
