// The blocked f32 conv's tile GEMM (see conv_blocked.hpp): the register-blocked FMA micro-kernels, the
// packing of B micro-panels and the loop over a tile, as templates for the forward and backward files
// that instantiate them, and of the packed f32 GEMM (gemm_packed.cpp). Private to those files: every function here runs
// AVX2/FMA code (the micro-kernels of W = 16 lanes AVX-512F code) and carries the target attribute itself (each
// instantiation too), so nothing is compiled for AVX2 or AVX-512 outside them; call only when
// blocked_conv_enabled(), and the 16-lane kernels only when conv_isa() is ConvIsa::Avx512.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ops/conv_blocked_tiles.hpp"
#include "ops/conv_util.hpp"
#include "ops/simd_avx2.hpp"

#define BURN_AVX512F __attribute__((target("avx2,fma,avx512f")))

namespace burn::cpu::conv_detail {

// The vector operations of the micro-kernel, 8 lanes (AVX2/FMA) or 16 (AVX-512F). Not always_inline, so
// that the ISA-neutral micro_body compiles; micro_body is always inlined into its ISA's micro_kernel, so
// they are only ever called from code of their own target (the same vector ABI, even at -O0), and that
// micro_kernel's flatten attribute inlines them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <int W>
struct Lanes;
template <>
struct Lanes<8> {
  using V = __m256;
  BURN_AVX2_FMA static inline V zero() { return _mm256_setzero_ps(); }
  BURN_AVX2_FMA static inline V splat(const float* p) { return _mm256_broadcast_ss(p); }
  BURN_AVX2_FMA static inline V load(const float* p) { return _mm256_loadu_ps(p); }
  BURN_AVX2_FMA static inline void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  BURN_AVX2_FMA static inline V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
};
template <>
struct Lanes<16> {
  using V = __m512;
  BURN_AVX512F static inline V zero() { return _mm512_setzero_ps(); }
  BURN_AVX512F static inline V splat(const float* p) { return _mm512_set1_ps(*p); }
  BURN_AVX512F static inline V load(const float* p) { return _mm512_loadu_ps(p); }
  BURN_AVX512F static inline void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  BURN_AVX512F static inline V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
};

// The left operand of a tile GEMM: element (i, k) at p[(roff ? roff[i] : i * rs) + k * ks].
struct AMat {
  const float* p;
  int64_t rs, ks;
  const int64_t* roff;
};
// The right operand: row k starts at p + (koff ? koff[k] : k * ld) and holds NR readable floats per panel.
struct BMat {
  const float* p;
  int64_t ld;
  const int64_t* koff;
};

// C[rows x cols] of one MR x NR block (NR = W NV, W lanes a vector) = A[rows x kc] B[kc x NR] + (C when `load`, else
// the per-row bias, or 0). `ap` holds the MR row pointers of A (rows past `rows` repeat the last one and are dropped);
// B row k is b + k * ldb (a packed micro-panel); columns past `cols` are computed and dropped.
template <int MR, int NV, int W>
[[gnu::always_inline]] inline void micro_body(int64_t kc, const float* const* ap, int64_t aks, const float* b,
                                              int64_t ldb, float* c, int64_t ldc, int rows, int cols, const float* bias,
                                              bool load) {
  using L = Lanes<W>;
  using V = typename L::V;
  constexpr int NR = W * NV;
  const bool full = rows == MR && cols == NR;
  alignas(64) float edge[MR * NR];
  float* cp = c;
  int64_t cld = ldc;
  if (!full) {
    cp = edge;
    cld = NR;
    if (load) {
      for (int i = 0; i < MR * NR; ++i) edge[i] = 0.0f;
      for (int r = 0; r < rows; ++r)
        for (int j = 0; j < cols; ++j) edge[r * NR + j] = c[r * ldc + j];
    }
  }
  V acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    const V init = bias ? L::splat(bias + std::min(r, rows - 1)) : L::zero();
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[r][v] = load ? L::load(cp + r * cld + W * v) : init;
  }
  const float* a[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) a[r] = ap[r];
    // Unrolled 4 times: about 1% faster on both benchmark convs (loop overhead next to 12 FMAs a step).
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k) {
    const float* bk = b + k * ldb;
    const int64_t ak = k * aks;
    if constexpr (NV <= 3) {
      // Few B vectors: hold them, broadcast one A value at a time (MR + NV + 1 registers beside C).
      V bv[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) bv[v] = L::load(bk + W * v);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const V av = L::splat(a[r] + ak);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[r][v] = L::fma(av, bv[v], acc[r][v]);
      }
    } else {
      V av[MR];
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) av[r] = L::splat(a[r] + ak);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const V bv = L::load(bk + W * v);
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) acc[r][v] = L::fma(av[r], bv, acc[r][v]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) L::store(cp + r * cld + W * v, acc[r][v]);
  if (!full)
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j) c[r * ldc + j] = edge[r * NR + j];
}

#pragma GCC diagnostic pop

// micro_body for each ISA: W = 8 (AVX2/FMA) or 16 (AVX-512F; call only when conv_isa() is Avx512).
template <int MR, int NV, int W>
BURN_AVX2_FMA [[gnu::flatten]] std::enable_if_t<W == 8> micro_kernel(int64_t kc, const float* const* ap, int64_t aks,
                                                                     const float* b, int64_t ldb, float* c, int64_t ldc,
                                                                     int rows, int cols, const float* bias, bool load) {
  micro_body<MR, NV, W>(kc, ap, aks, b, ldb, c, ldc, rows, cols, bias, load);
}
template <int MR, int NV, int W>
BURN_AVX512F [[gnu::flatten]] std::enable_if_t<W == 16> micro_kernel(int64_t kc, const float* const* ap, int64_t aks,
                                                                     const float* b, int64_t ldb, float* c, int64_t ldc,
                                                                     int rows, int cols, const float* bias, bool load) {
  micro_body<MR, NV, W>(kc, ap, aks, b, ldb, c, ldc, rows, cols, bias, load);
}

// A last panel of at most kThin columns when A's rows are contiguous in k (the forward): per column a
// dot product of each A row with the column, 8 k at a time (bt: the column, kc floats, contiguous), MR
// rows and two k phases at once so that 2 MR FMA chains hide the latency; nothing is computed for absent
// columns. Each column streams the A rows again (from L2), so one column costs about 3.5 columns of a
// micro-kernel panel (perf shares on ResNet's 7x7 layer, 49 = 48 + 1 pixels): a 1-4 column panel runs
// here, a wider one as a full micro-kernel panel (an MR x 8 kernel with two k phases for up to 8
// columns was tried: as slow as the full 16-column panel).
template <int MR>
BURN_AVX2_FMA void thin_kernel(int64_t kc, const float* const* ap, const float* bt, int64_t ldbt, float* c, int64_t ldc,
                               int rows, int cols, const float* bias, bool load) {
  for (int j = 0; j < cols; ++j) {
    const float* b = bt + j * ldbt;
    __m256 acc[2][MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) acc[0][r] = acc[1][r] = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 16 <= kc; k += 16) {
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const __m256 bv = _mm256_loadu_ps(b + k + 8 * h);
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) acc[h][r] = _mm256_fmadd_ps(_mm256_loadu_ps(ap[r] + k + 8 * h), bv, acc[h][r]);
      }
    }
    for (; k + 8 <= kc; k += 8) {
      const __m256 bv = _mm256_loadu_ps(b + k);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) acc[0][r] = _mm256_fmadd_ps(_mm256_loadu_ps(ap[r] + k), bv, acc[0][r]);
    }
    for (int r = 0; r < rows; ++r) {
      alignas(32) float lanes[8];
      _mm256_store_ps(lanes, _mm256_add_ps(acc[0][r], acc[1][r]));
      float sum = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
      for (int64_t t = k; t < kc; ++t) sum += ap[r][t] * b[t];
      float* dst = c + r * ldc + j;
      *dst = (load ? *dst : bias ? bias[r] : 0.0f) + sum;
    }
  }
}

// Where the columns [j, j + NR) of C go: row i at p + i * ld.
struct CPanel {
  float* p;
  int64_t ld;
};

// Copies the kc x NR micro-panel of B that starts at column j into `dst` (NR floats a row); with
// `cols` < NR only that many are read and the rest are zeros.
template <int NR>
BURN_AVX2_FMA void pack_panel(int64_t kc, const float* b, int64_t ldb, const int64_t* koff, float* dst,
                              int64_t cols = NR) {
  if (cols < NR) {
    for (int64_t k = 0; k < kc; ++k) {
      const float* src = koff ? b + koff[k] : b + k * ldb;
      for (int64_t v = 0; v < NR; ++v) dst[k * NR + v] = v < cols ? src[v] : 0.0f;
    }
    return;
  }
  for (int64_t k = 0; k < kc; ++k) {
    const float* src = koff ? b + koff[k] : b + k * ldb;
#pragma GCC unroll 4
    for (int v = 0; v < NR; v += 8) _mm256_store_ps(dst + k * NR + v, _mm256_loadu_ps(src + v));
  }
}

// One run of a gathered micro-panel: `len` columns from region offset `src`, to column `dst`.
struct Seg {
  int64_t src;
  int32_t dst, len;
};

// The copies of pack_gather, V vectors of 8 floats a row: source offsets so[] from region + koff[k], destination
// offsets do[] in the row, in order (a later copy overwrites an earlier one's overhang).
template <int NR, int V>
BURN_AVX2_FMA void pack_vectors(int64_t kc, const float* region, const int64_t* koff, const int64_t* so, const int* dof,
                                float* dst) {
  int64_t s[V];
  int d[V];
#pragma GCC unroll 8
  for (int i = 0; i < V; ++i) s[i] = so[i], d[i] = dof[i];
  for (int64_t k = 0; k < kc; ++k) {
    const float* base = region + koff[k];
    float* o = dst + k * NR;
#pragma GCC unroll 8
    for (int i = 0; i < V; ++i) _mm256_storeu_ps(o + d[i], _mm256_loadu_ps(base + s[i]));
  }
}

// Packs kc rows of a micro-panel whose columns are the runs `segs` of region + koff[k]: each run is copied
// 8 floats at a time, its last store overhanging into the next run's columns (written after it) or the
// next row (likewise; `dst` has 8 floats of slack after the last one); the region has slack to read past.
template <int NR>
BURN_AVX2_FMA void pack_gather(int64_t kc, const float* region, const int64_t* koff, const Seg* segs, int nseg,
                               float* dst) {
  int64_t so[NR / 8 + NR];
  int dof[NR / 8 + NR];
  int nv = 0;
  for (int s = 0; s < nseg; ++s)
    for (int v = 0; v < segs[s].len; v += 8) so[nv] = segs[s].src + v, dof[nv++] = segs[s].dst + v;
  switch (nv) {
    case 1: return pack_vectors<NR, 1>(kc, region, koff, so, dof, dst);
    case 2: return pack_vectors<NR, 2>(kc, region, koff, so, dof, dst);
    case 3: return pack_vectors<NR, 3>(kc, region, koff, so, dof, dst);
    case 4: return pack_vectors<NR, 4>(kc, region, koff, so, dof, dst);
    case 5: return pack_vectors<NR, 5>(kc, region, koff, so, dof, dst);
    case 6: return pack_vectors<NR, 6>(kc, region, koff, so, dof, dst);
    default: break;
  }
  for (int64_t k = 0; k < kc; ++k) {
    const float* base = region + koff[k];
    float* o = dst + k * NR;
    for (int i = 0; i < nv; ++i) _mm256_storeu_ps(o + dof[i], _mm256_loadu_ps(base + so[i]));
  }
}

// C[M x n] = A[M x K] B[K x n] (+ C when `accumulate`, else + bias per row when not null) with the
// MR x NR micro-kernel of W lanes (NR = W NV; W = 16 only when conv_isa() is Avx512); every B row
// holds n rounded up to NR readable floats (`exact_b`: only n); cmap(j) places the C columns of panel j.
// Each kc x NR micro-panel of B is first packed contiguously, once for all M rows: read in place through
// the tap offsets, every row of it spans two or three cache lines.
// `pack(kc, k0, j, dst)`, when given, packs the micro-panel instead (rows k0.. k0 + kc, columns j.. j + NR).
template <int MR, int NV, int W, typename CMap, typename Pack = std::nullptr_t>
void tile_gemm(int64_t M, int64_t n, int64_t K, const AMat& a, const BMat& b, const CMap& cmap, const float* bias,
               bool accumulate, bool exact_b = false, const Pack& pack = nullptr) {
  constexpr int64_t NR = W * NV;
  // Row blocks of at most about kMc rows, equal in size so that no thin block is left at the end.
  const int64_t MC = round_up(ceil_div(M, ceil_div(M, kMc)), MR);
  const int64_t kstep = ceil_div(K, ceil_div(K, kKc));
  float* packed = conv_scratch(3, kstep * NR + 8 + 8);  // 8 floats of slack for pack's overhanging stores
  float* bt = conv_scratch(4, kstep * kThin);
  packed += (8 - reinterpret_cast<uintptr_t>(packed) / 4 % 8) % 8;  // 32-byte aligned
  for (int64_t k0 = 0; k0 < K; k0 += kstep) {
    const int64_t kc = std::min(kstep, K - k0);
    const bool load = accumulate || k0 > 0;
    const float* bp = b.koff ? b.p : b.p + k0 * b.ld;
    const int64_t* koff = b.koff ? b.koff + k0 : nullptr;
    for (int64_t i0 = 0; i0 < M; i0 += MC) {
      const int64_t i1 = std::min(M, i0 + MC);
      for (int64_t j = 0; j < n; j += NR) {
        const CPanel cp = cmap(j);
        if constexpr (std::is_same_v<Pack, std::nullptr_t>)
          pack_panel<NR>(kc, bp + j, b.ld, koff, packed, exact_b ? std::min(NR, n - j) : NR);
        else
          pack(kc, k0, j, packed);
        // A thin last panel: its columns transposed, each kc floats contiguous (thin_kernel).
        const bool thin = a.ks == 1 && n - j <= kThin && n - j < NR;
        if (thin)
          for (int64_t c = 0; c < n - j; ++c)
            for (int64_t k = 0; k < kc; ++k) bt[c * kstep + k] = packed[k * NR + c];
        for (int64_t i = i0; i < i1; i += MR) {
          const int rows = static_cast<int>(std::min<int64_t>(MR, i1 - i));
          const float* ap[MR];
          for (int r = 0; r < MR; ++r) {
            const int64_t row = i + std::min(r, rows - 1);
            ap[r] = a.p + (a.roff ? a.roff[row] : row * a.rs) + k0 * a.ks;
          }
          const int cols = static_cast<int>(std::min(NR, n - j));
          const float* bias_here = bias && !load ? bias + i : nullptr;
          if (thin)
            thin_kernel<MR>(kc, ap, bt, kstep, cp.p + i * cp.ld, cp.ld, rows, cols, bias_here, load);
          else
            micro_kernel<MR, NV, W>(kc, ap, a.ks, packed, NR, cp.p + i * cp.ld, cp.ld, rows, cols, bias_here, load);
        }
      }
    }
  }
}

// cmap of a plain row-major C.
struct DenseC {
  float* c;
  int64_t ldc;
  CPanel operator()(int64_t j) const { return {c + j, ldc}; }
};

}  // namespace burn::cpu::conv_detail
