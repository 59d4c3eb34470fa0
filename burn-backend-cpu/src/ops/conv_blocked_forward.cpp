// The blocked f32 conv's forward (see conv_blocked.hpp): which shapes it takes, the implicit-GEMM tiles
// of a k > 1 conv, the plain-GEMM tiles of a 1x1 conv, and the epilogue the fused executor asks for.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "cpu_tensor.hpp"
#include "kernel_choice.hpp"
#include "ops/conv_blocked.hpp"
#include "ops/conv_blocked_gemm.hpp"
#include "ops/elementwise_fns.hpp"

namespace burn::cpu::conv_detail {

// The forward's epilogue on `channels` rows of `len` finished results each, from y + off (row stride
// out_size): + the residual at the same offsets, then relu; the operations of the separate add and relu
// ops, in their order, so the bits are theirs. A task runs it on its tile once the sums are done (results
// still in L2). conv_with_epilogue (conv.cpp) passes the tiles a relu alone and runs a residual's epilogue
// over the whole finished output: inside the tiles the residual's reads competed with the packed panels.
BURN_AVX2_FMA void apply_conv_epilogue(float* y, int64_t off, int64_t out_size, int64_t channels, int64_t len,
                                       const ConvEpilogue& ep) {
  if (!ep.any() || len <= 0) return;
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t i = 0; i < channels; ++i) {
    float* c = y + off + i * out_size;
    const float* r = ep.residual ? ep.residual + off + i * out_size : nullptr;
    int64_t j = 0;
    for (; j + 8 <= len; j += 8) {
      __m256 v = _mm256_loadu_ps(c + j);
      if (r) v = _mm256_add_ps(v, _mm256_loadu_ps(r + j));
      // relu_of: v < 0 ? 0 : v, which keeps NaN and -0.
      if (ep.relu) v = _mm256_andnot_ps(_mm256_cmp_ps(v, zero, _CMP_LT_OQ), v);
      _mm256_storeu_ps(c + j, v);
    }
    for (; j < len; ++j) {
      float v = c[j];
      if (r) v += r[j];
      if (ep.relu) v = relu_of(v);
      c[j] = v;
    }
  }
}

// C [rows x W NV] on the MR x (W NV) micro-kernel over every MR rows of A; see the header. Runs no vector code of
// its own: micro_kernel carries its ISA's target.
template <int MR, int NV, int W>
void gemm_rows(int64_t kc, const float* a, int64_t lda, int64_t rows, const float* b, int64_t ldb, float* c,
               int64_t ldc, bool load) {
  for (int64_t i = 0; i < rows; i += MR) {
    const int n = static_cast<int>(std::min<int64_t>(MR, rows - i));
    const float* ap[MR];
    for (int r = 0; r < MR; ++r) ap[r] = a + (i + std::min(r, n - 1)) * lda;
    micro_kernel<MR, NV, W>(kc, ap, 1, b, ldb, c + i * ldc, ldc, n, W * NV, nullptr, load);
  }
}

void gemm_rows_x24(int64_t kc, const float* a, int64_t lda, int64_t rows, const float* b, int64_t ldb, float* c,
                   int64_t ldc, bool load) {
  gemm_rows<4, 3, 8>(kc, a, lda, rows, b, ldb, c, ldc, load);
}

void gemm_rows_x32(int64_t kc, const float* a, int64_t lda, int64_t rows, const float* b, int64_t ldb, float* c,
                   int64_t ldc, bool load) {
  gemm_rows<8, 2, 16>(kc, a, lda, rows, b, ldb, c, ldc, load);
}

namespace {

const char* conv_variant_name(int v) { return v == static_cast<int>(ConvIsa::Avx2) ? "avx2" : "avx512"; }

bool conv_variant_available(int v) {
  return cpu_has_avx2_fma() && (v == static_cast<int>(ConvIsa::Avx2) || __builtin_cpu_supports("avx512f"));
}

const char* conv_variant_requirement(int v) {
  return v == static_cast<int>(ConvIsa::Avx2) ? "AVX2 and FMA" : "AVX512F";
}

constexpr KernelChoiceSpec kConvIsaSpec{
    "BURN_CPU_CONV_ISA", "set_conv_isa",         "conv kernel ISA",       "conv kernels", 2,
    conv_variant_name,   conv_variant_available, conv_variant_requirement};
KernelChoice g_conv_isa{kConvIsaSpec};

}  // namespace

const char* conv_isa_name(ConvIsa isa) { return conv_variant_name(static_cast<int>(isa)); }

bool conv_isa_available(ConvIsa isa) { return conv_variant_available(static_cast<int>(isa)); }

ConvIsa conv_isa() { return static_cast<ConvIsa>(g_conv_isa.get()); }

ConvIsa set_conv_isa(ConvIsa isa) { return static_cast<ConvIsa>(g_conv_isa.set(static_cast<int>(isa))); }

bool blocked_conv_enabled() {
  if (!cpu_has_avx2_fma()) return false;
  const char* env = std::getenv("BURN_CPU_CONV");
  return !(env && std::strcmp(env, "gemm") == 0);
}

bool blocked_conv_fits(const Dims& m, const Geo3& g) {
  if (!blocked_conv_forward_fits(m, g)) return false;
  // Measured (2 threads), backward: 1x1 convs are plain GEMMs over the input itself and run faster
  // through OpenBLAS; so do convs whose weights per group (Mo x Kc) outgrow kWeightBytes, as they no
  // longer stay in L2 next to a tile (e.g. 256 -> 256 3x3 on 14x14: 0.9x forward + backward, before
  // the forward cut its weights into panels and packed its B micro-panels).
  return g.ksize > 1 && m.mo * m.kc * 4 <= kWeightBytes;
}

bool blocked_conv_forward_fits(const Dims& m, const Geo3& g) {
  if (m.n <= 0 || m.cg <= 0 || m.mo <= 0 || g.in_size <= 0 || g.out_size <= 0) return false;
  for (int d = 0; d < 3; ++d)
    if (std::min(g.k[d], g.s[d]) > 64) return false;  // build_region keeps at most 64 stride phases per dim
  if (g.ksize == 1) return g.p[0] == 0 && g.p[1] == 0 && g.p[2] == 0;
  return true;
}

namespace {

// The forward kernel with an MR x W NV micro-kernel over the tiles of plan pl (mp output channels a panel).
template <int MR, int NV, int W>
void forward_tiles(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                   const Plan& pl, int64_t mp, int64_t threads, const ConvEpilogue& ep) {
  constexpr int64_t NR = W * NV;
  const int64_t units = m.n * m.groups, panels = ceil_div(m.mo, mp);
  const int64_t ldc = round_up(pl.split ? pl.width : pl.tq, NR);
  // Tasks (unit, tile, panel), panels innermost, are claimed one at a time (their outputs are disjoint,
  // so the order does not matter): the calling thread starts at once and a pool thread that wakes late
  // takes fewer; a thread that claims another panel of the tile it holds keeps its region.
  const int64_t total = units * pl.tiles * panels;
  TaskClaims claims(total);
  parallel_for(std::min(total, threads), 1, [&](int64_t chunk, int64_t) {
    float* region = conv_scratch(0, pl.region);
    float* out = pl.dense ? nullptr : conv_scratch(1, mp * ldc);
    int64_t built = -1;
    for (int64_t t; (t = claims.next(chunk > 0)) >= 0;) {
      const int64_t ut = t / panels, u = ut / pl.tiles, n = u / m.groups, gi = u % m.groups;
      const int64_t c0 = t % panels * mp, rows = std::min(mp, m.mo - c0);
      const Plan::Tile tl = pl.tile(ut % pl.tiles);
      if (ut != built) build_region(x + (n * m.c + gi * m.cg) * g.in_size, pl, tl, region);
      built = ut;
      float* yg = y + (n * m.cout + gi * m.mo + c0) * g.out_size + tl.oz * g.out[1] * g.out[2];
      const AMat a{w + (gi * m.mo + c0) * m.kc, m.kc, 1, nullptr};
      const float* bias_g = bias ? bias + gi * m.mo + c0 : nullptr;
      if (pl.dense) {
        // Real pixels only: panel j holds the tile's pixels p0 + j.. p0 + j + NR, contiguous in y.
        const int64_t p0 = tl.oy0 * pl.width + tl.q0, ow = pl.width;
        const auto pack = [&](int64_t kc, int64_t k0, int64_t j, float* dst) {
          Seg segs[NR];
          int nseg = 0;
          for (int64_t c = j, e = std::min(tl.n, j + NR); c < e;) {
            const int64_t p = p0 + c, col = p % ow, len = std::min(ow - col, e - c);
            segs[nseg++] =
                Seg{(p / ow - tl.oy0) * pl.pitch + col, static_cast<int32_t>(c - j), static_cast<int32_t>(len)};
            c += len;
          }
          pack_gather<NR>(kc, region, pl.off.data() + k0, segs, nseg, dst);
        };
        tile_gemm<MR, NV, W>(rows, tl.n, m.kc, a, BMat{region, 0, pl.off.data()}, DenseC{yg + p0, g.out_size}, bias_g,
                             false, false, pack);
        apply_conv_epilogue(y, (yg - y) + p0, g.out_size, rows, tl.n, ep);
        continue;
      }
      // A panel of real pixels of one row is stored straight into y; one that crosses junk columns
      // goes through `out` and its real pixels are copied afterwards (masked stores are slow on AMD).
      const auto direct = [&](int64_t j) {
        const int64_t col = (tl.q0 + j) % pl.pitch;
        return col + NR <= tl.w && j + NR <= tl.n;
      };
      const auto cmap = [&](int64_t j) -> CPanel {
        if (!direct(j)) return {out + j, ldc};
        const int64_t q = tl.q0 + j;
        return {yg + (tl.oy0 + q / pl.pitch) * g.out[2] + tl.ox0 + q % pl.pitch, g.out_size};
      };
      // The tile's real pixels are one span of each output plane (junk columns are not in y).
      int64_t first = -1, last = 0;
      if (ep.any()) {
        pl.runs(tl, tl.q0, tl.q0 + tl.n, [&](int64_t, int64_t oy, int64_t ox, int64_t len) {
          if (first < 0) first = oy * g.out[2] + ox;
          last = oy * g.out[2] + ox + len;
        });
      }
      tile_gemm<MR, NV, W>(rows, tl.n, m.kc, a, BMat{region + tl.q0, 0, pl.off.data()}, cmap, bias_g, false);
      for (int64_t j = 0; j < tl.n; j += NR) {
        if (direct(j)) continue;
        pl.runs(tl, tl.q0 + j, tl.q0 + std::min(tl.n, j + NR), [&](int64_t q, int64_t oy, int64_t ox, int64_t len) {
          const float* src = out + (q - tl.q0);
          float* dst = yg + oy * g.out[2] + ox;
          for (int64_t co = 0; co < rows; ++co)
            std::memcpy(dst + co * g.out_size, src + co * ldc, static_cast<size_t>(len) * sizeof(float));
        });
      }
      if (first >= 0) apply_conv_epilogue(y, (yg - y) + first, g.out_size, rows, last - first, ep);
    }
  });
}

// The tiles of tn pixels of an L-pixel plane: a remainder of at most kThin pixels joins the last full tile
// (its thin panel) instead of being a task of its own, which would stream the task's weight panel again for it.
int64_t pointwise_tile_count(int64_t L, int64_t tn) {
  const int64_t tiles = ceil_div(L, tn), rem = L % tn;
  return tiles > 1 && rem != 0 && rem <= kThin ? tiles - 1 : tiles;
}

// 1x1 convs without padding: per group y_g [Mo, L] = W_g [Mo, Cg] x_g [Cg, L], B read straight from x
// (stride 1) or from a compact copy of the strided pixels of a tile (made once per tile and thread).
// Tasks are (unit, tile of tn pixels, panel of mp output channels), panels innermost.
template <int MR, int NV, int W>
void pointwise_tiles(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                     int64_t mp, int64_t tn, int64_t threads, const ConvEpilogue& ep) {
  const int64_t L = g.out_size, units = m.n * m.groups, panels = ceil_div(m.mo, mp);
  const int64_t tiles = pointwise_tile_count(L, tn), ld = tn + kThin;  // ld: a cols row, the longest tile
  const bool strided = !g.pointwise;
  const int64_t total = units * tiles * panels;
  TaskClaims claims(total);
  struct Run {
    int64_t src, dst, len;
  };
  parallel_for(std::min(total, threads), 1, [&](int64_t chunk, int64_t) {
    float* cols = strided ? conv_scratch(0, m.cg * ld) : nullptr;
    std::vector<Run> runs;
    int64_t built = -1;
    for (int64_t t; (t = claims.next(chunk > 0)) >= 0;) {
      const int64_t ut = t / panels, u = ut / tiles, n = u / m.groups, gi = u % m.groups;
      const int64_t p0 = ut % tiles * tn, np = ut % tiles == tiles - 1 ? L - p0 : tn;
      const int64_t c0 = t % panels * mp, rows = std::min(mp, m.mo - c0);
      const float* xg = x + (n * m.c + gi * m.cg) * g.in_size;
      BMat b{xg + p0, g.in_size, nullptr};
      if (strided) {
        if (ut != built) {
          // Channel by channel (each plane read in memory order), one run of an output row at a time.
          runs.clear();
          for (int64_t p = p0; p < p0 + np;) {
            const int64_t ox = p % g.out[2], r = p / g.out[2], len = std::min(g.out[2] - ox, p0 + np - p);
            runs.push_back(
                {((r / g.out[1] * g.s[0]) * g.in[1] + r % g.out[1] * g.s[1]) * g.in[2] + ox * g.s[2], p - p0, len});
            p += len;
          }
          for (int64_t c = 0; c < m.cg; ++c)
            for (const Run& run : runs) {
              const float* in = xg + c * g.in_size + run.src;
              float* dst = cols + c * ld + run.dst;
              if (g.s[2] == 2) {
                every_other(in, run.len, dst);
              } else {
                for (int64_t o = 0; o < run.len; ++o) dst[o] = in[o * g.s[2]];
              }
            }
        }
        built = ut;
        b = BMat{cols, ld, nullptr};
      }
      float* yg = y + (n * m.cout + gi * m.mo + c0) * L + p0;
      tile_gemm<MR, NV, W>(rows, np, m.cg, AMat{w + (gi * m.mo + c0) * m.cg, m.cg, 1, nullptr}, b, DenseC{yg, L},
                           bias ? bias + gi * m.mo + c0 : nullptr, false, true);
      apply_conv_epilogue(y, yg - y, L, rows, np, ep);
    }
  });
}

// Columns the micro-kernels compute for a tile of n pixels: n rounded up to nr, a last panel of at most
// kThin columns (thin_kernel) counted as 4 a column.
int64_t padded_columns(int64_t n, int64_t nr) {
  const int64_t rem = n % nr;
  return n - rem + (rem == 0 ? 0 : rem <= kThin ? 4 * rem : nr);
}

// The same over the tiles of plan pl (junk columns included).
int64_t padded_columns(const Plan& pl, int64_t nr) {
  int64_t cols = 0;
  for (int64_t t = 0; t < pl.tiles; ++t) cols += padded_columns(pl.tile(t).n, nr);
  return cols;
}

// The same over an L-pixel plane cut into tiles of tn as pointwise_tiles cuts it.
int64_t padded_columns(int64_t L, int64_t tn, int64_t nr) {
  const int64_t tiles = pointwise_tile_count(L, tn);
  return (tiles - 1) * padded_columns(tn, nr) + padded_columns(L - (tiles - 1) * tn, nr);
}

}  // namespace

void blocked_conv_forward(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                          const ConvEpilogue& ep) {
  // The kernels of each ISA: a wide one (nr) and, for small planes, a narrow one (nr_small) when it
  // computes 10% fewer columns. AVX2: 4 x 24 and 6 x 16 (12 of the 16 ymm registers accumulate);
  // AVX-512: 8 x 48 and 8 x 32 (24 and 16 of the 32 zmm registers; k > 1 convs take 8 x 48 only where it computes
  // 10% fewer columns, below).
  const bool wide = conv_isa() == ConvIsa::Avx512;
  const int64_t nr = wide ? 48 : 24, nr_small = wide ? 32 : 16;
  const auto run_forward = [&](bool small, const Plan& pl, int64_t mp, int64_t threads) {
    if (wide && !small) return forward_tiles<8, 3, 16>(x, w, bias, y, m, g, pl, mp, threads, ep);
    if (wide) return forward_tiles<8, 2, 16>(x, w, bias, y, m, g, pl, mp, threads, ep);
    if (small) return forward_tiles<6, 2, 8>(x, w, bias, y, m, g, pl, mp, threads, ep);
    forward_tiles<4, 3, 8>(x, w, bias, y, m, g, pl, mp, threads, ep);
  };
  const int64_t units = m.n * m.groups;
  const int64_t threads = threads_for(m, g);
  // Weights past kWeightBytes are cut into panels of kMc output channels, each a task of its own with a
  // tile: the pool shares a small plane's few tiles by output channels instead of shrinking them.
  const int64_t mp = m.mo * m.kc * 4 <= kWeightBytes ? m.mo : std::min(m.mo, kMc), panels = ceil_div(m.mo, mp);
  if (g.ksize == 1) {
    const int64_t L = g.out_size;
    const int64_t tn = tile_width(mp * 4, kOutBytes, L, units * panels, nr, threads);
    // The narrow kernel where it computes 10% fewer columns, a thin last panel counted as in padded_columns: 7x7
    // planes take 48 + a thin panel in one tile instead of 64 columns (AVX-512, b1, 3 alternated rounds: ResNet-50's
    // 2048 -> 512 conv 329-340 against 380-418 µs, 512 -> 2048 319-419 against 377-422, the 1024 -> 2048 stride-2
    // downsample 682-773 against 787-1401).
    const int64_t tn_small = std::min(round_up(L, nr_small), round_up(tn, nr_small));
    if (L < (1 << 12) && padded_columns(L, tn_small, nr_small) * 10 < padded_columns(L, tn, nr) * 9) {
      if (wide) return pointwise_tiles<8, 2, 16>(x, w, bias, y, m, g, mp, tn_small, threads, ep);
      return pointwise_tiles<6, 2, 8>(x, w, bias, y, m, g, mp, tn_small, threads, ep);
    }
    if (wide) return pointwise_tiles<8, 3, 16>(x, w, bias, y, m, g, mp, tn, threads, ep);
    return pointwise_tiles<4, 3, 8>(x, w, bias, y, m, g, mp, tn, threads, ep);
  }
  // Dense plans when they compute fewer columns than pitch plans (they pack a little slower).
  // Weights cut into panels are streamed from L3 once per tile: such convs take regions of up to twice
  // kRegionBytes, for fewer tiles (ResNet's 7x7 stride-2 conv at batch 1: one tile instead of four).
  const int64_t region_bytes = mp < m.mo ? 2 * kRegionBytes : kRegionBytes;
  const auto plan = [&](int64_t r) {
    const Plan pd(g, m.cg, kOutBytes, mp * 4, r, units * panels, threads, true, region_bytes);
    if (!pd.dense) return pd;
    Plan pp(g, m.cg, kOutBytes, mp * 4, r, units * panels, threads, false, region_bytes);
    return padded_columns(pd, r) < padded_columns(pp, r) ? pd : pp;
  };
  // AVX-512 runs 8 x 32 unless 8 x 48 computes 10% fewer columns: 8 x 48 on every plane computed more padding
  // columns and was no faster per column (1 thread: conv_block_step 7.3-7.8 ms against 7.8-8.1, the 7x7 stride-2
  // stem 1.36-1.40 ms against 1.45-1.57).
  if (wide) {
    // 8 x 48 where it computes 10% fewer columns: 7x7 planes are 48 + a thin panel instead of 32 + 17 padded to 32
    // (ResNet's 512-channel 7x7 convs at b1, 3 alternated rounds, min of 5: 675-824 against 868-914 µs).
    const Plan ps = plan(nr_small), pw = plan(nr);
    if (padded_columns(pw, nr) * 10 < padded_columns(ps, nr_small) * 9) return run_forward(false, pw, mp, threads);
    return run_forward(true, ps, mp, threads);
  }
  const Plan pw = plan(nr);
  // Small planes take the narrow kernel when it computes 10% fewer columns. (AVX2, on 7x7: 49 pixels are
  // 48 + a thin panel either way; 4 x 24 measured 0.95-1.0x the time of 6 x 16 there, at b1 and b8.)
  if (pw.tiles * pw.tq < (1 << 12)) {
    const Plan ps = plan(nr_small);
    if (padded_columns(ps, nr_small) * 10 < padded_columns(pw, nr) * 9) return run_forward(true, ps, mp, threads);
  }
  run_forward(false, pw, mp, threads);
}

}  // namespace burn::cpu::conv_detail
