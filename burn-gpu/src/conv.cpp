// The conv ops' plan (conv.hpp).
#include "burn/gpu/conv.hpp"

#include <algorithm>
#include <string>

#include "burn/tensor/error.hpp"

namespace burn::gpu {

namespace {

ConvGeo make_geo(const Shape& in, const Shape& out, const Shape& ws, const std::vector<int64_t>& s,
                 const std::vector<int64_t>& p, const std::vector<int64_t>& d) {
  ConvGeo g;
  const size_t r = in.rank() - 2, lead = 3 - r;
  for (size_t i = 0; i < r; ++i) {
    g.in[lead + i] = in[i + 2];
    g.out[lead + i] = out[i + 2];
    g.k[lead + i] = ws[i + 2];
    g.s[lead + i] = s[i];
    g.p[lead + i] = p[i];
    g.d[lead + i] = d[i];
  }
  return g;
}

}  // namespace

ConvGeo conv_geo(const Shape& xs, const Shape& ws, const ConvOptions& o, const Shape& ys) {
  ConvGeo g = make_geo(xs, ys, ws, o.stride, o.padding, o.dilation);
  g.n = xs[0];
  g.c = xs[1];
  g.cout = ws[0];
  g.groups = o.groups;
  return g;
}

ConvGeo transpose_geo(const Shape& xs, const Shape& ws, const ConvTransposeOptions& o, const Shape& ys) {
  ConvGeo g = make_geo(ys, xs, ws, o.stride, o.padding, o.dilation);
  g.n = xs[0];
  g.c = ys[1];
  g.cout = ws[0];
  g.groups = o.groups;
  return g;
}

ConvGeo transpose_bias_geo(const ConvGeo& g) {
  ConvGeo s = g;
  s.cout = g.c;
  std::copy(g.in, g.in + 3, s.out);
  return s;
}

const char* conv_mode_define(ConvMode mode) {
  static const char* const kModes[] = {"FORWARD", "GRAD_INPUT", "GRAD_WEIGHT", "BIAS_GRAD"};
  return kModes[static_cast<int>(mode)];
}

ConvGemm conv_gemm(ConvMode mode, const ConvGeo& g) {
  switch (mode) {
    case ConvMode::forward: return {g.n * g.out_size(), g.mo(), g.cg() * g.ksize()};
    case ConvMode::grad_input: return {g.n * g.in_size(), g.cg(), g.mo() * g.ksize()};
    case ConvMode::grad_weight: return {g.mo(), g.cg() * g.ksize(), g.n * g.out_size()};
    case ConvMode::bias_grad: break;
  }
  return {g.cout, 1, g.n * g.out_size()};
}

std::vector<int64_t> conv_geo_entries(const ConvGeo& g, const ConvGemm& p, const char* op, const std::string& device) {
  std::vector<int64_t> e;
  for (const int64_t* row : {g.in, g.out, g.k, g.s, g.p, g.d})
    for (int a = 0; a < 3; ++a) e.push_back(row[a]);
  for (int64_t v : {g.n, g.c, g.cout, g.groups, g.cg(), g.mo(), g.ksize(), g.in_size(), g.out_size(), p.m, p.n, p.k})
    e.push_back(v);
  for (int64_t v : e)
    if (v > INT32_MAX || v < INT32_MIN)
      throw Unsupported(op, "a conv size " + std::to_string(v) + " needs more than 32 bits on " + device);
  return e;
}

ConvTiles conv_tiles(const ConvDevice& dev, bool tiled, int64_t rows, int64_t cols, uint32_t acc_bytes) {
  // Invocations per workgroup: 64 on CPU-type devices (a workgroup is one thread's SIMD lanes), else 256.
  uint32_t budget = dev.cpu_type && !tiled ? 64 : 256;
  budget = std::min<uint32_t>(budget, std::max<uint32_t>(dev.max_invocations, 1));
  // Three shapes, so that few of them need compiling.
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
  while (t.wg_x > std::max<uint32_t>(dev.max_x, 1)) t.wg_x /= 2;
  while (t.wg_y > std::max<uint32_t>(dev.max_y, 1)) t.wg_y /= 2;
  if (tiled) {
    t.bk = 16;
    auto bytes = [&] { return uint64_t{t.bk} * (t.wg_y * t.tm + 1 + t.wg_x * t.tn + 1) * acc_bytes; };
    while (bytes() > dev.shared_bytes && t.bk > 1) t.bk /= 2;
    while (bytes() > dev.shared_bytes && (t.tm > 1 || t.tn > 1)) (t.tm >= t.tn ? t.tm : t.tn) /= 2;
  }
  return t;
}

ConvGrid conv_grid(const ConvTiles& t, const ConvGemm& p, int64_t groups, const uint32_t max[3]) {
  auto cap = [](int64_t v, uint32_t limit) {
    return static_cast<uint32_t>(std::max<int64_t>(1, std::min<int64_t>(v, std::max(limit, 1u))));
  };
  const int64_t tiles_n = (p.n + t.wg_x * t.tn - 1) / (t.wg_x * t.tn);
  const int64_t tiles_m = (p.m + t.wg_y * t.tm - 1) / (t.wg_y * t.tm);
  return {cap(tiles_n, max[0]), cap(tiles_m, max[1]), cap(groups, max[2])};
}

}  // namespace burn::gpu
