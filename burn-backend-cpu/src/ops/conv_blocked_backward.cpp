// The blocked f32 conv's backward (see conv_blocked.hpp): the input gradient (as a forward conv when the
// stride is 1, else tile GEMMs and col2im) and the weight gradient (tile GEMMs over the input regions).
#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu_tensor.hpp"
#include "ops/conv_blocked.hpp"
#include "ops/conv_blocked_gemm.hpp"

namespace burn::cpu::conv_detail {

namespace {

// One output row's share of a tile of output pixels [p0, p1): input z/y of tap 0, the row's output
// columns [a, b), and the tile column of column a.
struct RowSpan {
  int64_t iz0, iy0, a, b, off;
};

void row_spans(const Geo3& g, int64_t p0, int64_t p1, std::vector<RowSpan>& out) {
  out.clear();
  const int64_t ow = g.out[2];
  for (int64_t r = p0 / ow; r * ow < p1; ++r) {
    const int64_t oz = r / g.out[1], oy = r % g.out[1];
    const int64_t a = std::max<int64_t>(p0 - r * ow, 0), b = std::min(p1 - r * ow, ow);
    out.push_back({oz * g.s[0] - g.p[0], oy * g.s[1] - g.p[1], a, b, r * ow + a - p0});
  }
}

// col2im of one tile of columns [channels * K, ld] (row (c, tap), one column per output pixel of the
// tile): adds each column back to the input position that tap reads for that pixel.
BURN_AVX2_FMA void col2im_tile(const float* buf, int64_t ld, int64_t channels, const Geo3& g, const RowSpan* spans,
                               int64_t nspans, float* x) {
  const int64_t s2 = g.s[2];
  for (int64_t c = 0; c < channels; ++c) {
    float* plane = x + c * g.in_size;
    for (int64_t kz = 0; kz < g.k[0]; ++kz)
      for (int64_t ky = 0; ky < g.k[1]; ++ky)
        for (int64_t kx = 0; kx < g.k[2]; ++kx) {
          const float* row = buf + (((c * g.k[0] + kz) * g.k[1] + ky) * g.k[2] + kx) * ld;
          const int64_t ix0 = kx * g.d[2] - g.p[2];
          int64_t lo, hi;
          valid_span(ix0, s2, g.in[2], g.out[2], lo, hi);
          for (int64_t q = 0; q < nspans; ++q) {
            const RowSpan& sp = spans[q];
            const int64_t iz = sp.iz0 + kz * g.d[0], iy = sp.iy0 + ky * g.d[1];
            const int64_t l = std::clamp(lo, sp.a, sp.b), h = std::clamp(hi, l, sp.b);
            if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1] || h == l) continue;
            const float* src = row + sp.off + (l - sp.a);
            float* d = plane + ((iz * g.in[1] + iy) * g.in[2] + (ix0 + l * s2));  // ix0 alone may be far outside
            const int64_t cnt = h - l;
            if (s2 == 1) {
              for (int64_t o = 0; o < cnt; ++o) d[o] += src[o];
            } else {
              for (int64_t o = 0; o < cnt; ++o) d[o * s2] += src[o];
            }
          }
        }
  }
}

// dst[j * ld + c] = src[c * plane + j] for c < channels, j < len (8 x 8 blocks transposed in registers).
BURN_AVX2_FMA void transpose_run(const float* src, int64_t plane, int64_t channels, int64_t len, float* dst,
                                 int64_t ld) {
  int64_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    int64_t j = 0;
    for (; j + 8 <= len; j += 8) {
      __m256 v[8];
      for (int i = 0; i < 8; ++i) v[i] = _mm256_loadu_ps(src + (c + i) * plane + j);
      const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
      const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
      const __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
      const __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
      const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
      const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
      const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
      const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
      const __m256 o[8] = {_mm256_permute2f128_ps(u0, u4, 0x20), _mm256_permute2f128_ps(u1, u5, 0x20),
                           _mm256_permute2f128_ps(u2, u6, 0x20), _mm256_permute2f128_ps(u3, u7, 0x20),
                           _mm256_permute2f128_ps(u0, u4, 0x31), _mm256_permute2f128_ps(u1, u5, 0x31),
                           _mm256_permute2f128_ps(u2, u6, 0x31), _mm256_permute2f128_ps(u3, u7, 0x31)};
      for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dst + (j + i) * ld + c, o[i]);
    }
    for (; j < len; ++j)
      for (int64_t i = 0; i < 8; ++i) dst[j * ld + c + i] = src[(c + i) * plane + j];
  }
  for (; c < channels; ++c)
    for (int64_t j = 0; j < len; ++j) dst[j * ld + c] = src[c * plane + j];
}

// Sum of n floats in 16 lanes (vectorises), added up in double.
double row_sum(const float* r, int64_t n) {
  float lanes[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) lanes[j] += r[i + j];
  double s = 0;
  for (int j = 0; j < 16; ++j) s += lanes[j];
  for (; i < n; ++i) s += r[i];
  return s;
}

}  // namespace

bool grad_input_as_forward(const Geo3& g) {
  for (int i = 0; i < 3; ++i)
    if (g.s[i] != 1 || g.d[i] * (g.k[i] - 1) < g.p[i]) return false;
  return true;
}

Geo3 grad_input_geometry(const Geo3& g) {
  std::vector<int64_t> in(3), out(3), k(3), s(3, 1), p(3), d(3);
  for (int i = 0; i < 3; ++i) {
    in[i] = g.out[i], out[i] = g.in[i], k[i] = g.k[i], d[i] = g.d[i];
    p[i] = g.d[i] * (g.k[i] - 1) - g.p[i];
  }
  return Geo3(in, out, k, s, p, d);
}

std::vector<float> grad_input_weights(const float* w, const Dims& m, const Geo3& g) {
  // wt[group][ci][co * K + t] = w[group * Mo + co][ci][K - 1 - t]
  const int64_t ks = g.ksize;
  std::vector<float> wt(static_cast<size_t>(m.groups * m.cg * m.mo * ks));
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(m.mo * ks, 1));
  parallel_for(m.groups * m.cg, grain, [&](int64_t s0, int64_t e0) {
    for (int64_t r = s0; r < e0; ++r) {
      const int64_t gi = r / m.cg, ci = r % m.cg;
      float* dst = wt.data() + r * m.mo * ks;
      for (int64_t co = 0; co < m.mo; ++co) {
        const float* src = w + ((gi * m.mo + co) * m.cg + ci) * ks;
        for (int64_t t = 0; t < ks; ++t) dst[co * ks + t] = src[ks - 1 - t];
      }
    }
  });
  return wt;
}

namespace {

// Strided convs: per tile of output pixels, columns [Kc, tile] = W_g^T gy_tile, then col2im into gx.
// Tiles of one image overlap in gx, so a thread owns whole (image, group) units when there are
// enough of them, and otherwise adds into its own zeroed copy of gx, summed at the end. The tile GEMM
// runs the MR x W NV micro-kernel.
template <int MR, int NV, int W>
void grad_input_by_columns(const float* gy, const float* w, float* gx, const Dims& m, const Geo3& g) {
  constexpr int64_t NR = W * NV;
  const int64_t L = g.out_size, kc = m.kc, mo = m.mo, units = m.n * m.groups;
  const int64_t threads = threads_for(m, g);
  const int64_t tn = tile_width((kc + mo) * 4, kRegionBytes, L, units, NR, threads), tiles = ceil_div(L, tn);
  const int64_t unit_size = m.cg * g.in_size, total = m.n * m.c * g.in_size;
  const bool by_unit = units % threads == 0 || units >= 8 * threads;
  const int64_t chunks = by_unit ? std::min(units, threads) : std::min(units * tiles, threads);
  // The copies of gx beyond the first: in the calling thread's scratch (no page faults per call) up to
  // 16 MiB, which that scratch then keeps; larger ones are allocated for this call only.
  const int64_t part_size = by_unit ? 0 : (chunks - 1) * total;
  std::vector<float> big(part_size * 4 > (16 << 20) ? static_cast<size_t>(part_size) : 0);
  float* part = big.empty() ? (part_size ? conv_scratch(2, part_size) : nullptr) : big.data();
  parallel_for(chunks, 1, [&](int64_t s, int64_t e) {
    float* cols = conv_scratch(0, kc * tn);
    float* gyb = conv_scratch(1, mo * tn);
    std::vector<RowSpan> spans;
    for (int64_t ch = s; ch < e; ++ch) {
      int64_t t0, t1;
      float* base = gx;  // where unit (n, gi) of this chunk's gx lives
      if (by_unit) {
        const int64_t u0 = units * ch / chunks, u1 = units * (ch + 1) / chunks;
        std::fill(gx + u0 * unit_size, gx + u1 * unit_size, 0.0f);
        t0 = u0 * tiles, t1 = u1 * tiles;
      } else {
        if (ch > 0) base = part + (ch - 1) * total;
        std::fill(base, base + total, 0.0f);
        t0 = units * tiles * ch / chunks, t1 = units * tiles * (ch + 1) / chunks;
      }
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t u = t / tiles, p0 = (t % tiles) * tn, np = std::min(tn, L - p0);
        const int64_t n = u / m.groups, gi = u % m.groups, padded = round_up(np, NR);
        const float* gyg = gy + (n * m.cout + gi * mo) * L + p0;
        for (int64_t co = 0; co < mo; ++co) {
          std::memcpy(gyb + co * tn, gyg + co * L, static_cast<size_t>(np) * sizeof(float));
          std::fill(gyb + co * tn + np, gyb + co * tn + padded, 0.0f);
        }
        // A(k, co) = w[gi * Mo + co][k]: rows of A are adjacent in memory, its k steps a weight row apart.
        tile_gemm<MR, NV, W>(kc, np, mo, AMat{w + gi * mo * kc, 1, kc, nullptr}, BMat{gyb, tn, nullptr},
                             DenseC{cols, tn}, nullptr, false);
        row_spans(g, p0, p0 + np, spans);
        col2im_tile(cols, tn, m.cg, g, spans.data(), static_cast<int64_t>(spans.size()), base + u * unit_size);
      }
    }
  });
  if (!by_unit && chunks > 1)
    parallel_for(total, 1 << 15, [&](int64_t s, int64_t e) {
      for (int64_t ch = 1; ch < chunks; ++ch) {
        const float* src = part + (ch - 1) * total;
        for (int64_t i = s; i < e; ++i) gx[i] += src[i];
      }
    });
}

}  // namespace

void blocked_conv_grad_input(const float* gy, const float* w, float* gx, const Dims& m, const Geo3& g) {
  if (grad_input_as_forward(g)) {
    const Geo3 g2 = grad_input_geometry(g);
    blocked_conv_forward(gy, grad_input_weights(w, m, g).data(), nullptr, gx, Dims(m.n, m.cout, m.c, m.groups, g2), g2);
  } else if (conv_isa() == ConvIsa::Avx512) {
    grad_input_by_columns<8, 3, 16>(gy, w, gx, m, g);
  } else {
    grad_input_by_columns<4, 3, 8>(gy, w, gx, m, g);
  }
}

// gw^T [Kc, Mo] per group = sum over tiles of A [Kc, tile] (the region, through the tap offsets) x
// gy_tile^T [tile, Mo]: the micro-kernel runs along output channels (NR = 32: 3 x 32 on AVX2, 8 x 32 on
// AVX-512) with the tile's pixels as the reduction (junk pixels have zero rows in gy^T); each thread adds
// into its own partial gw^T, and the partials are summed and transposed at the end. With gw null only gb
// is made, by the same tiles and sums (so it is bitwise the gb of a call that also makes gw).
void blocked_conv_grad_weight(const float* x, const float* gy, float* gw, float* gb, const Dims& m, const Geo3& g) {
  constexpr int64_t NR = 32;
  const int64_t kc = m.kc, mo = m.mo, mop = round_up(mo, NR), units = m.n * m.groups;
  const int64_t threads = threads_for(m, g);
  const Plan pl(g, m.cg, kGyBytes, NR * 4, 8, units, threads);
  const int64_t tq = pl.split ? pl.width : pl.tq;
  const int64_t chunks = std::min(units * pl.tiles, threads);
  const bool wide = conv_isa() == ConvIsa::Avx512;
  const bool weights = gw != nullptr;
  const int64_t wsize = m.groups * kc * mop;
  // The partials live in the calling thread's scratch (no page faults per call); one pool thread may run
  // several chunks, so each chunk has its own slice.
  float* part = weights ? conv_scratch(2, chunks * wsize) : nullptr;
  std::vector<double> bpart(gb ? static_cast<size_t>(chunks * m.cout) : 0, 0.0);
  parallel_for(chunks, 1, [&](int64_t s, int64_t e) {
    float* region = weights ? conv_scratch(0, pl.region) : nullptr;
    float* gyt = weights ? conv_scratch(1, tq * mop) : nullptr;
    for (int64_t ch = s; ch < e; ++ch) {
      float* acc = weights ? part + ch * wsize : nullptr;
      if (weights) std::fill(acc, acc + wsize, 0.0f);
      for (int64_t t = units * pl.tiles * ch / chunks; t < units * pl.tiles * (ch + 1) / chunks; ++t) {
        const int64_t u = t / pl.tiles, n = u / m.groups, gi = u % m.groups;
        const Plan::Tile tl = pl.tile(t % pl.tiles);
        if (weights) {
          build_region(x + (n * m.c + gi * m.cg) * g.in_size, pl, tl, region);
          // gy_tile^T [n, mop]: row q - q0 holds the channels of pixel q; junk pixels and padding channels are 0.
          std::fill(gyt, gyt + tl.n * mop, 0.0f);
        }
        const float* gyg = gy + (n * m.cout + gi * mo) * g.out_size + tl.oz * g.out[1] * g.out[2];
        double* bsum = gb ? bpart.data() + ch * m.cout + gi * mo : nullptr;
        pl.runs(tl, tl.q0, tl.q0 + tl.n, [&](int64_t q, int64_t oy, int64_t ox, int64_t len) {
          const float* src = gyg + oy * g.out[2] + ox;
          if (weights) transpose_run(src, g.out_size, mo, len, gyt + (q - tl.q0) * mop, mop);
          if (bsum)
            for (int64_t c = 0; c < mo; ++c) bsum[c] += row_sum(src + c * g.out_size, len);
        });
        if (!weights) continue;
        const AMat a{region + tl.q0, 0, 1, pl.off.data()};
        // 8 x 32 on AVX-512 (12 x 32 measured 20-25% slower on conv_block_step).
        if (wide)
          tile_gemm<8, 2, 16>(kc, mo, tl.n, a, BMat{gyt, mop, nullptr}, DenseC{acc + gi * kc * mop, mop}, nullptr,
                              true);
        else
          tile_gemm<3, 4, 8>(kc, mo, tl.n, a, BMat{gyt, mop, nullptr}, DenseC{acc + gi * kc * mop, mop}, nullptr, true);
      }
    }
  });
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(kc * chunks, 1));
  if (weights)
    parallel_for(m.groups * mo, grain, [&](int64_t s, int64_t e) {
      for (int64_t r = s; r < e; ++r) {
        const int64_t gi = r / mo, co = r % mo;
        float* dst = gw + r * kc;
        for (int64_t k = 0; k < kc; ++k) {
          float acc = 0.0f;
          for (int64_t ch = 0; ch < chunks; ++ch) acc += part[ch * wsize + (gi * kc + k) * mop + co];
          dst[k] = acc;
        }
      }
    });
  if (gb)
    for (int64_t c = 0; c < m.cout; ++c) {
      double acc = 0;
      for (int64_t ch = 0; ch < chunks; ++ch) acc += bpart[ch * m.cout + c];
      gb[c] = static_cast<float>(acc);
    }
}

}  // namespace burn::cpu::conv_detail
