// Blocked f32 conv kernels (see conv_blocked.hpp). Every function that runs AVX2/FMA code carries the
// target attribute itself and has internal linkage, so nothing shared with other files is compiled for
// AVX2; blocked_conv_enabled() checks the CPU before any of them runs.
#include "ops/conv_blocked.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cpu_tensor.hpp"
#include "ops/elementwise_fns.hpp"
#include "ops/simd_avx2.hpp"

namespace burn::cpu::conv_detail {
namespace {

// Tile sizes: a tile's outputs take about kOutBytes and its input region at most kRegionBytes, so that
// both stay in the 512 KiB L2 of this class of CPU next to the weights of a group (at most kWeightBytes,
// see blocked_conv_fits). In the weight gradient gy_tile^T is the B operand that every row panel
// reuses: kGyBytes keeps it in the 32 KiB L1.
constexpr int64_t kOutBytes = 96 << 10;
constexpr int64_t kWeightBytes = 192 << 10;
constexpr int64_t kGyBytes = 16 << 10;
constexpr int64_t kRegionBytes = 192 << 10;
// Blocking inside a tile: K is cut into equal chunks of at most kKc (a B micro-panel chunk stays in L1
// and L2, and the C loads and stores between chunks stay rare) while kMc rows of A stream from L2.
constexpr int64_t kKc = 512;
constexpr int64_t kMc = 128;

// Threads worth waking for a conv of `macs` multiply-adds: below about 10 microseconds of one core's
// work the hand-off to the pool costs more than it saves.
int64_t threads_for(const Dims& m, const Geo3& g) {
  const double macs = static_cast<double>(m.n) * m.cout * m.kc * g.out_size;
  return macs < (1 << 19) ? 1 : static_cast<int64_t>(num_threads());
}

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

// C[rows x cols] of one MR x NR block (NR = 8 NV) = A[rows x kc] B[kc x NR] + (C when `load`, else the
// per-row bias, or 0). `ap` holds the MR row pointers of A (rows past `rows` repeat the last one and
// are dropped); B row k is b + k * ldb (a packed micro-panel); columns past `cols` are computed and dropped.
template <int MR, int NV>
BURN_AVX2_FMA void micro_kernel(int64_t kc, const float* const* ap, int64_t aks, const float* b, int64_t ldb, float* c,
                                int64_t ldc, int rows, int cols, const float* bias, bool load) {
  constexpr int NR = 8 * NV;
  const bool full = rows == MR && cols == NR;
  alignas(32) float edge[MR * NR];
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
  __m256 acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    const __m256 init = bias ? _mm256_broadcast_ss(bias + std::min(r, rows - 1)) : _mm256_setzero_ps();
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[r][v] = load ? _mm256_loadu_ps(cp + r * cld + 8 * v) : init;
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
      __m256 bv[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) bv[v] = _mm256_loadu_ps(bk + 8 * v);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const __m256 av = _mm256_broadcast_ss(a[r] + ak);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
      }
    } else {
      __m256 av[MR];
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) av[r] = _mm256_broadcast_ss(a[r] + ak);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const __m256 bv = _mm256_loadu_ps(bk + 8 * v);
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) acc[r][v] = _mm256_fmadd_ps(av[r], bv, acc[r][v]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) _mm256_storeu_ps(cp + r * cld + 8 * v, acc[r][v]);
  if (!full)
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j) c[r * ldc + j] = edge[r * NR + j];
}

// A last panel of at most kThin columns when A's rows are contiguous in k (the forward): per column a
// dot product of each A row with the column, 8 k at a time (bt: the column, kc floats, contiguous), MR
// rows and two k phases at once so that 2 MR FMA chains hide the latency; nothing is computed for absent
// columns. Each column streams the A rows again (from L2), so one column costs about 3.5 columns of a
// micro-kernel panel (perf shares on ResNet's 7x7 layer, 49 = 48 + 1 pixels): a 1-4 column panel runs
// here, a wider one as a full micro-kernel panel (an MR x 8 kernel with two k phases for up to 8
// columns was tried: as slow as the full 16-column panel).
constexpr int kThin = 4;
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

}  // namespace

// The forward's epilogue on `channels` rows of `len` finished results each, from y + off (row stride
// out_size): + the residual at the same offsets, then relu; the operations of the separate add and relu
// ops, in their order, so the bits are theirs. A task runs it on its tile once the sums are done: the
// results are then in L2, and each row of the residual is read in order, which the hardware prefetcher
// follows (applied per micro-kernel block instead, the residual's rows a plane apart made the fused
// conv + add + relu of a 56x56 layer 4-7% slower than the three ops).
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

// A C micro-panel per 4 rows of A; see the header.
BURN_AVX2_FMA void gemm_rows_x24(int64_t kc, const float* a, int64_t lda, int64_t rows, const float* b, int64_t ldb,
                                 float* c, int64_t ldc, bool load) {
  for (int64_t i = 0; i < rows; i += 4) {
    const int n = static_cast<int>(std::min<int64_t>(4, rows - i));
    const float* ap[4];
    for (int r = 0; r < 4; ++r) ap[r] = a + (i + std::min(r, n - 1)) * lda;
    micro_kernel<4, 3>(kc, ap, 1, b, ldb, c + i * ldc, ldc, n, 24, nullptr, load);
  }
}

namespace {

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

// C[M x n] = A[M x K] B[K x n] (+ C when `accumulate`, else + bias per row when not null); every B row
// holds n rounded up to NR readable floats (`exact_b`: only n); cmap(j) places the C columns of panel j.
// Each kc x NR micro-panel of B is first packed contiguously, once for all M rows: read in place through
// the tap offsets, every row of it spans two or three cache lines.
// `pack(kc, k0, j, dst)`, when given, packs the micro-panel instead (rows k0.. k0 + kc, columns j.. j + NR).
template <int MR, int NV, typename CMap, typename Pack = std::nullptr_t>
void tile_gemm(int64_t M, int64_t n, int64_t K, const AMat& a, const BMat& b, const CMap& cmap, const float* bias,
               bool accumulate, bool exact_b = false, const Pack& pack = nullptr) {
  constexpr int64_t NR = 8 * NV;
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
            micro_kernel<MR, NV>(kc, ap, a.ks, packed, NR, cp.p + i * cp.ld, cp.ld, rows, cols, bias_here, load);
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

// Pixels per tile: a multiple of `nr` whose bytes fit `budget`, cut further so that every thread
// gets a few tiles when there are few (image, group) units.
int64_t tile_width(int64_t bytes_per_pixel, int64_t budget, int64_t pixels, int64_t units, int64_t nr,
                   int64_t threads) {
  int64_t tn = std::max(nr, budget / std::max<int64_t>(bytes_per_pixel, 1) / nr * nr);
  tn = std::min(tn, round_up(pixels, nr));
  const int64_t want = 4 * threads;
  if (units * ceil_div(pixels, tn) < want) {
    const int64_t per_unit = ceil_div(want, units);
    tn = std::max(nr, std::min(tn, round_up(ceil_div(pixels, per_unit), nr)));
  }
  return tn;
}

// How the forward and weight-gradient kernels read the input without im2col. Output pixels are seen in
// "pitch coordinates" q = oy * pitch + ox of each output plane oz, with pitch = row width + the largest
// tap shift along x: the columns past a row's end are junk, computed and then dropped (forward) or
// multiplied by zero (weight gradient). A tile is a range of q (a multiple of the micro-kernel width,
// across row ends), or for very long rows a piece of one row. For each tile a zero-padded copy of the
// input rows it reads (the region) is made with x split by stride phase, so that for every tap
// k = (c, kz, ky, kx) the values for the tile's pixels are region[off[k] + q], contiguous in q.
// A dense plan (the forward) has no junk columns: its tiles are ranges of real output pixels (tq of them
// a tile, a multiple of the micro-kernel width, across row ends) and the forward packs only real pixels
// into its micro-panels (a row's run of q, then the next row's), so that the micro-kernels compute no
// junk and store straight into y; the region keeps the pitch layout.
struct Plan {
  Geo3 g;
  int64_t channels = 0;
  int64_t sig[3] = {0, 0, 0};     // largest tap shift per dim in phase steps: (k - 1) d / s
  std::vector<int64_t> phase[3];  // the distinct phases (k d mod s) per dim
  int64_t nphase = 1;
  bool split = false;  // tiles are pieces of one row
  bool dense = false;  // tiles are ranges of real pixels (not split only)
  int64_t width = 0;   // real columns per region row: the row width, or the piece width
  int64_t pitch = 0, tq = 0, qmax = 0, qtiles = 0, col_tiles = 1, tiles = 0;
  int64_t last_extra = 0;  // dense: pixels the last tile of a plane holds past tq
  int64_t rrows = 0, depth = 0;
  int64_t region = 0;        // floats of one region, slack included
  std::vector<int64_t> off;  // per tap k

  // out_bytes / out_bytes_per_pixel: the pixels a tile should hold; nr: its multiple; units: (image,
  // group) pairs; threads: the threads that will share the tiles.
  Plan(const Geo3& geo, int64_t ch, int64_t out_bytes, int64_t out_bytes_per_pixel, int64_t nr, int64_t units,
       int64_t threads, bool dense_ = false, int64_t region_bytes = kRegionBytes)
      : g(geo), channels(ch) {
    for (int d = 0; d < 3; ++d) {
      sig[d] = (g.k[d] - 1) * g.d[d] / g.s[d];
      for (int64_t t = 0; t < g.k[d]; ++t) {
        const int64_t f = t * g.d[d] % g.s[d];
        if (std::find(phase[d].begin(), phase[d].end(), f) == phase[d].end()) phase[d].push_back(f);
      }
      std::sort(phase[d].begin(), phase[d].end());
      nphase *= static_cast<int64_t>(phase[d].size());
    }
    const int64_t out1 = g.out[1], out2 = g.out[2], want = threads > 1 ? 4 * threads : 1;
    tq = std::max(nr, out_bytes / std::max<int64_t>(out_bytes_per_pixel, 1) / nr * nr);
    const int64_t planes = units * g.out[0];
    const auto row_bytes = [&](int64_t rows) { return channels * nphase * (sig[0] + 1) * (rows + sig[1]) * pitch * 4; };
    if (out2 + sig[2] <= tq) {
      dense = dense_;
      width = out2;
      pitch = out2 + sig[2];
      // qmax: the tile coordinate's range (q, or the real pixel index when dense); per: its units a row.
      qmax = dense ? out1 * out2 : (out1 - 1) * pitch + out2;
      const int64_t per = dense ? out2 : pitch;
      // Smaller tiles when the region would not fit, or when the planes alone leave threads idle.
      while (tq > nr && row_bytes(ceil_div(tq, per) + 1) > region_bytes) tq -= nr;
      while (tq > nr && planes * ceil_div(qmax, tq) < want) tq = std::max(nr, round_up(tq / 2, nr));
      tq = std::min(tq, round_up(qmax, nr));
      // Few tiles: narrower, even ones until their count is a multiple of the threads (9 tiles on 2
      // threads leave one thread idle for a ninth of the conv, as in ResNet's 56x56 layer1 at batch 1).
      if (const int64_t q0 = ceil_div(qmax, tq); threads > 1 && planes * q0 < 16 * threads)
        for (int64_t q = q0; q <= 2 * q0; ++q) {
          const int64_t t = round_up(ceil_div(qmax, q), nr);
          if (planes * q % threads == 0 && ceil_div(qmax, t) == q) {
            tq = t;
            break;
          }
        }
      qtiles = ceil_div(qmax, tq);
      // A dense plane's last few pixels (at most kThin) join the tile before them rather than make a
      // tile of their own, which would stream all the weights again for them (ResNet's 14x14 planes on 2
      // threads were tiles of 48, 48, 48, 48 and 4 pixels).
      if (dense && qtiles > 1 && qmax % tq > 0 && qmax % tq <= kThin) last_extra = qmax % tq, --qtiles;
      rrows = std::min(ceil_div(tq + last_extra, per) + 1, out1) + sig[1];
      tiles = planes / units * qtiles;
    } else {
      split = true;
      width = tq;
      pitch = width + sig[2];
      col_tiles = ceil_div(out2, width);
      rrows = 1 + sig[1];
      tiles = g.out[0] * out1 * col_tiles;
    }
    depth = sig[0] + 1;
    // Slack: the junk columns of the last row and the last micro-panel read up to pitch + nr past it.
    region = channels * nphase * depth * rrows * pitch + pitch + nr + 32;
    // Tap offsets of channel 0; channel c's are those shifted by c channel regions (one phase lookup
    // per tap, not per table entry: the table of a 512-channel 3x3 conv has 4608).
    off.resize(static_cast<size_t>(std::max<int64_t>(channels, 1) * g.ksize));
    for (int64_t kz = 0, k = 0; kz < g.k[0]; ++kz)
      for (int64_t ky = 0; ky < g.k[1]; ++ky)
        for (int64_t kx = 0; kx < g.k[2]; ++kx, ++k) {
          const int64_t t[3] = {kz, ky, kx};
          int64_t ph = 0, sh[3];
          for (int d = 0; d < 3; ++d) {
            const int64_t u = t[d] * g.d[d];
            sh[d] = u / g.s[d];
            const auto it = std::find(phase[d].begin(), phase[d].end(), u % g.s[d]);
            ph = ph * static_cast<int64_t>(phase[d].size()) + (it - phase[d].begin());
          }
          off[static_cast<size_t>(k)] = ((ph * depth + sh[0]) * rrows + sh[1]) * pitch + sh[2];
        }
    const int64_t per_channel = nphase * depth * rrows * pitch;
    for (int64_t c = 1; c < channels; ++c)
      for (int64_t k = 0; k < g.ksize; ++k)
        off[static_cast<size_t>(c * g.ksize + k)] = off[static_cast<size_t>(k)] + c * per_channel;
  }

  // Tile t: output plane oz; its region starts at output row oy0 and column ox0; its pixels are the
  // region coordinates q in [q0, q0 + n), of which q % pitch < w are real (output (oy0 + q / pitch,
  // ox0 + q % pitch)).
  struct Tile {
    int64_t oz, oy0, ox0, q0, n, w;
  };
  // In a dense plan, n counts the tile's real pixels, the first at q0 (output pixel p0 of the plane).
  Tile tile(int64_t t) const {
    Tile tl;
    if (dense) {
      tl.oz = t / qtiles;
      const int64_t pa = t % qtiles * tq, pb = t % qtiles == qtiles - 1 ? qmax : std::min(pa + tq, qmax);
      tl.oy0 = pa / width;
      tl.ox0 = 0;
      tl.q0 = pa % width;
      tl.n = pb - pa;
      tl.w = width;
    } else if (!split) {
      tl.oz = t / qtiles;
      const int64_t qa = t % qtiles * tq, qb = std::min(qa + tq, qmax);
      tl.oy0 = qa / pitch;
      tl.ox0 = 0;
      tl.q0 = qa - tl.oy0 * pitch;
      tl.n = qb - qa;
      tl.w = width;
    } else {
      const int64_t r = t / col_tiles;
      tl.oz = r / g.out[1];
      tl.oy0 = r % g.out[1];
      tl.ox0 = t % col_tiles * width;
      tl.q0 = 0;
      tl.w = std::min(width, g.out[2] - tl.ox0);
      tl.n = tl.w;
    }
    return tl;
  }

  // Calls fn(q, oy, ox, len) for each run of real pixels of tile tl in region coordinates [qa, qb):
  // q.. q + len are the outputs (oy, ox).. (oy, ox + len).
  template <typename F>
  void runs(const Tile& tl, int64_t qa, int64_t qb, F&& fn) const {
    for (int64_t q = qa; q < qb;) {
      const int64_t r = q / pitch, col = q % pitch;
      const int64_t end = std::min(qb, r * pitch + pitch);
      if (col < tl.w) fn(q, tl.oy0 + r, tl.ox0 + col, std::min(end, r * pitch + tl.w) - q);
      q = end;
    }
  }
};

// d[o] = src[2 o] for o < n, 8 at a time from two loads (the scalar loop was most of build_region's
// time on stride-2 convs); src[2 n - 1] and beyond are never read.
BURN_AVX2_FMA void every_other(const float* src, int64_t n, float* d) {
  int64_t o = 0;
  for (; o + 9 <= n; o += 8) {
    const __m256 a = _mm256_loadu_ps(src + 2 * o), b = _mm256_loadu_ps(src + 2 * o + 8);
    const __m256 e = _mm256_shuffle_ps(a, b, 0x88);  // a0 a2 b0 b2 | a4 a6 b4 b6
    _mm256_storeu_ps(d + o, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)));
  }
  for (; o < n; ++o) d[o] = src[2 * o];
}

// One region row of `pitch` >= 8 floats: dst[o] = src[(o - l) S] for o in [l, h) and 0 elsewhere
// (src: the input at o = l; S = 1 or 2), 8 outputs a store, the last store overlapping the one before.
// Windows take plain loads, which may read floats of the neighbouring rows, and zero the outputs
// outside [l, h) with a blend; only where such loads would leave [lo_bound, hi_bound) (the channels
// read, i.e. the first and last rows) masked loads read just the inputs of [l, h). Stride 2
// deinterleaves two loads with a shuffle and a permute.
template <int S>
BURN_AVX2_FMA [[gnu::always_inline]] inline __m256 row_window(const float* src, int64_t l, int64_t h, int64_t o0,
                                                              const float* lo_bound, const float* hi_bound) {
  if (o0 + 8 <= l || o0 >= h) return _mm256_setzero_ps();
  const float* p = src + (o0 - l) * S;
  constexpr int64_t kSpan = 8 * S;  // floats a window's loads cover
  const bool inner = o0 >= l && o0 + 8 <= h;
  // Lane i of the first load holds output o0 + lane[i]; the odd lanes of stride 2 are never read.
  constexpr int kOff = -(1 << 30);
  const __m256i lane_a =
      S == 1 ? _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7) : _mm256_setr_epi32(0, kOff, 1, kOff, 2, kOff, 3, kOff);
  const __m256i lm1 = _mm256_set1_epi32(static_cast<int>(l - 1)), hv = _mm256_set1_epi32(static_cast<int>(h));
  const __m256i o0v = _mm256_set1_epi32(static_cast<int>(o0));
  __m256 v;
  if (p >= lo_bound && p + kSpan <= hi_bound) {
    if constexpr (S == 1) {
      v = _mm256_loadu_ps(p);
    } else {
      const __m256 e =
          _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x88);  // a0 a2 b0 b2 | a4 a6 b4 b6
      v = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8));
    }
    if (inner) return v;
    const __m256i o = _mm256_add_epi32(o0v, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_and_ps(v,
                         _mm256_castsi256_ps(_mm256_and_si256(_mm256_cmpgt_epi32(o, lm1), _mm256_cmpgt_epi32(hv, o))));
  }
  const __m256i oa = _mm256_add_epi32(o0v, lane_a);
  const __m256 a = _mm256_maskload_ps(p, _mm256_and_si256(_mm256_cmpgt_epi32(oa, lm1), _mm256_cmpgt_epi32(hv, oa)));
  if constexpr (S == 1) {
    return a;
  } else {
    const __m256i ob = _mm256_add_epi32(oa, _mm256_set1_epi32(4));
    const __m256 b =
        _mm256_maskload_ps(p + 8, _mm256_and_si256(_mm256_cmpgt_epi32(ob, lm1), _mm256_cmpgt_epi32(hv, ob)));
    const __m256 e = _mm256_shuffle_ps(a, b, 0x88);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8));
  }
}

template <int S>
BURN_AVX2_FMA void fill_row(const float* src, int64_t l, int64_t h, int64_t pitch, float* dst, const float* lo_bound,
                            const float* hi_bound) {
  int64_t o0 = 0;
  for (; o0 + 8 <= pitch; o0 += 8) _mm256_storeu_ps(dst + o0, row_window<S>(src, l, h, o0, lo_bound, hi_bound));
  if (o0 < pitch) _mm256_storeu_ps(dst + pitch - 8, row_window<S>(src, l, h, pitch - 8, lo_bound, hi_bound));
}

// Fills the region of tile `tl` from the input channels at x (see Plan); the slack after it is zeroed.
// Input rows are visited in memory order (each once, for all its x phases), which keeps the hardware
// prefetcher ahead of the reads.
BURN_AVX2_FMA void build_region(const float* x, const Plan& pl, const Plan::Tile& tl, float* region) {
  const Geo3& g = pl.g;
  const int64_t s2 = g.s[2], pitch = pl.pitch;
  const int64_t nz = static_cast<int64_t>(pl.phase[0].size()), ny = static_cast<int64_t>(pl.phase[1].size());
  const int64_t nx = static_cast<int64_t>(pl.phase[2].size());
  int64_t lo[64], hi[64], ix0[64];
  for (int64_t j = 0; j < nx; ++j) {
    ix0[j] = tl.ox0 * s2 + pl.phase[2][static_cast<size_t>(j)] - g.p[2];
    valid_span(ix0[j], s2, g.in[2], pitch, lo[j], hi[j]);
  }
  const int64_t row_bytes = g.in[2] * 4 + 64;
  for (int64_t c = 0; c < pl.channels; ++c) {
    const float* plane = x + c * g.in_size;
    for (int64_t jz = 0; jz < nz; ++jz)
      for (int64_t dz = 0; dz < pl.depth; ++dz) {
        const int64_t iz = (tl.oz + dz) * g.s[0] + pl.phase[0][static_cast<size_t>(jz)] - g.p[0];
        for (int64_t ry = 0; ry < pl.rrows; ++ry)
          for (int64_t jy = 0; jy < ny; ++jy) {
            const int64_t iy = (tl.oy0 + ry) * g.s[1] + pl.phase[1][static_cast<size_t>(jy)] - g.p[1];
            const bool inside = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
            // The next channel's same input row, a channel ahead: a tile reads a few rows of each plane,
            // too short a stream for the hardware prefetcher to run ahead of (the input comes from L3).
            if (inside && jy == 0 && c + 1 < pl.channels) {
              const char* r = reinterpret_cast<const char*>(plane + g.in_size + (iz * g.in[1] + iy) * g.in[2]);
              for (int64_t b = 0; b < row_bytes; b += 64) _mm_prefetch(r + b, _MM_HINT_T0);
            }
            for (int64_t jx = 0; jx < nx; ++jx) {
              const int64_t ph = (jz * ny + jy) * nx + jx;
              float* dst = region + (((c * pl.nphase + ph) * pl.depth + dz) * pl.rrows + ry) * pitch;
              const int64_t l = inside ? lo[jx] : 0, h = inside ? std::max(hi[jx], l) : 0;
              if (s2 <= 2 && pitch >= 8 && pitch < (1 << 24)) {
                const float* src = h > l ? plane + ((iz * g.in[1] + iy) * g.in[2] + (ix0[jx] + l * s2)) : nullptr;
                const float* xe = x + pl.channels * g.in_size;
                if (h <= l)
                  fill_row<1>(nullptr, 0, 0, pitch, dst, x, xe);
                else if (s2 == 1)
                  fill_row<1>(src, l, h, pitch, dst, x, xe);
                else
                  fill_row<2>(src, l, h, pitch, dst, x, xe);
                continue;
              }
              for (int64_t o = 0; o < l; ++o) dst[o] = 0.0f;
              const int64_t cnt = h - l;
              float* d = dst + l;
              const float* src = cnt > 0 ? plane + ((iz * g.in[1] + iy) * g.in[2] + (ix0[jx] + l * s2)) : nullptr;
              if (cnt <= 0) {
              } else if (s2 == 1) {
                std::memcpy(d, src, static_cast<size_t>(cnt) * sizeof(float));
              } else if (s2 == 2) {
                every_other(src, cnt, d);
              } else {
                for (int64_t o = 0; o < cnt; ++o) d[o] = src[o * s2];
              }
              for (int64_t o = h; o < pitch; ++o) dst[o] = 0.0f;
            }
          }
      }
  }
  float* end = region + pl.region;
  for (float* p = region + pl.channels * pl.nphase * pl.depth * pl.rrows * pitch; p < end; ++p) *p = 0.0f;
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
// enough of them, and otherwise adds into its own zeroed copy of gx, summed at the end.
void grad_input_by_columns(const float* gy, const float* w, float* gx, const Dims& m, const Geo3& g) {
  constexpr int64_t NR = 24;
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
        tile_gemm<4, 3>(kc, np, mo, AMat{w + gi * mo * kc, 1, kc, nullptr}, BMat{gyb, tn, nullptr}, DenseC{cols, tn},
                        nullptr, false);
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

// The forward kernel with an MR x 8 NV micro-kernel over the tiles of plan pl (mp output channels a panel).
template <int MR, int NV>
void forward_tiles(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                   const Plan& pl, int64_t mp, int64_t threads, const ConvEpilogue& ep) {
  constexpr int64_t NR = 8 * NV;
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
        tile_gemm<MR, NV>(rows, tl.n, m.kc, a, BMat{region, 0, pl.off.data()}, DenseC{yg + p0, g.out_size}, bias_g,
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
      tile_gemm<MR, NV>(rows, tl.n, m.kc, a, BMat{region + tl.q0, 0, pl.off.data()}, cmap, bias_g, false);
      for (int64_t j = 0; j < tl.n; j += NR) {
        if (direct(j)) continue;
        pl.runs(tl, tl.q0 + j, tl.q0 + std::min(tl.n, j + NR), [&](int64_t q, int64_t oy, int64_t ox, int64_t len) {
          const float* src = out + (q - tl.q0);
          float* dst = yg + oy * g.out[2] + ox;
          for (int64_t co = 0; co < rows; ++co)
            std::memcpy(dst + co * g.out_size, src + co * ldc, static_cast<size_t>(len) * sizeof(float));
        });
      }
      if (ep.any()) {
        // The tile's real pixels are one span of each output plane (junk columns are not in y).
        int64_t first = -1, last = 0;
        pl.runs(tl, tl.q0, tl.q0 + tl.n, [&](int64_t, int64_t oy, int64_t ox, int64_t len) {
          if (first < 0) first = oy * g.out[2] + ox;
          last = oy * g.out[2] + ox + len;
        });
        if (first >= 0) apply_conv_epilogue(y, (yg - y) + first, g.out_size, rows, last - first, ep);
      }
    }
  });
}

// 1x1 convs without padding: per group y_g [Mo, L] = W_g [Mo, Cg] x_g [Cg, L], B read straight from x
// (stride 1) or from a compact copy of the strided pixels of a tile (made once per tile and thread).
// Tasks are (unit, tile of tn pixels, panel of mp output channels), panels innermost.
template <int MR, int NV>
void pointwise_tiles(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                     int64_t mp, int64_t tn, int64_t threads, const ConvEpilogue& ep) {
  const int64_t L = g.out_size, units = m.n * m.groups, panels = ceil_div(m.mo, mp), tiles = ceil_div(L, tn);
  const bool strided = !g.pointwise;
  const int64_t total = units * tiles * panels;
  TaskClaims claims(total);
  struct Run {
    int64_t src, dst, len;
  };
  parallel_for(std::min(total, threads), 1, [&](int64_t chunk, int64_t) {
    float* cols = strided ? conv_scratch(0, m.cg * tn) : nullptr;
    std::vector<Run> runs;
    int64_t built = -1;
    for (int64_t t; (t = claims.next(chunk > 0)) >= 0;) {
      const int64_t ut = t / panels, u = ut / tiles, n = u / m.groups, gi = u % m.groups;
      const int64_t p0 = ut % tiles * tn, np = std::min(tn, L - p0);
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
              float* dst = cols + c * tn + run.dst;
              if (g.s[2] == 2) {
                every_other(in, run.len, dst);
              } else {
                for (int64_t o = 0; o < run.len; ++o) dst[o] = in[o * g.s[2]];
              }
            }
        }
        built = ut;
        b = BMat{cols, tn, nullptr};
      }
      float* yg = y + (n * m.cout + gi * m.mo + c0) * L + p0;
      tile_gemm<MR, NV>(rows, np, m.cg, AMat{w + (gi * m.mo + c0) * m.cg, m.cg, 1, nullptr}, b, DenseC{yg, L},
                        bias ? bias + gi * m.mo + c0 : nullptr, false, true);
      apply_conv_epilogue(y, yg - y, L, rows, np, ep);
    }
  });
}

// Columns the micro-kernels compute for plan pl: its tiles' pixels (junk included) rounded up to nr, a
// last panel of at most kThin columns (thin_kernel) counted as 4 a column.
int64_t padded_columns(const Plan& pl, int64_t nr) {
  int64_t cols = 0;
  for (int64_t t = 0; t < pl.tiles; ++t) {
    const int64_t n = pl.tile(t).n, rem = n % nr;
    cols += n - rem + (rem == 0 ? 0 : rem <= kThin ? 4 * rem : nr);
  }
  return cols;
}

}  // namespace

void blocked_conv_forward(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                          const ConvEpilogue& ep) {
  const int64_t units = m.n * m.groups;
  const int64_t threads = threads_for(m, g);
  // Weights past kWeightBytes are cut into panels of kMc output channels, each a task of its own with a
  // tile: the pool shares a small plane's few tiles by output channels instead of shrinking them.
  const int64_t mp = m.mo * m.kc * 4 <= kWeightBytes ? m.mo : std::min(m.mo, kMc), panels = ceil_div(m.mo, mp);
  if (g.ksize == 1) {
    const int64_t L = g.out_size;
    const int64_t tn = tile_width(mp * 4, kOutBytes, L, units * panels, 24, threads);
    if (L < (1 << 12) && round_up(L, 16) * 10 < round_up(L, 24) * 9)
      return pointwise_tiles<6, 2>(x, w, bias, y, m, g, mp, std::min(round_up(L, 16), round_up(tn, 16)), threads, ep);
    return pointwise_tiles<4, 3>(x, w, bias, y, m, g, mp, tn, threads, ep);
  }
  // Dense plans when they compute fewer columns than pitch plans (they pack a little slower).
  // Weights cut into panels are streamed from L3 once per tile: such convs take regions of up to twice
  // kRegionBytes, for fewer tiles (ResNet's 7x7 stride-2 conv at batch 1: one tile instead of four).
  const int64_t region_bytes = mp < m.mo ? 2 * kRegionBytes : kRegionBytes;
  const auto plan = [&](int64_t nr) {
    const Plan pd(g, m.cg, kOutBytes, mp * 4, nr, units * panels, threads, true, region_bytes);
    if (!pd.dense) return pd;
    Plan pp(g, m.cg, kOutBytes, mp * 4, nr, units * panels, threads, false, region_bytes);
    return padded_columns(pd, nr) < padded_columns(pp, nr) ? pd : pp;
  };
  const Plan p24 = plan(24);
  // Small planes take 6 x 16 when it computes 10% fewer columns. (On 7x7, 49 pixels are 48 + a thin panel
  // either way: 4 x 24 measured 0.95-1.0x the time of 6 x 16 there, at b1 and b8.)
  if (p24.tiles * p24.tq < (1 << 12)) {
    const Plan p16 = plan(16);
    const int64_t c16 = padded_columns(p16, 16), c24 = padded_columns(p24, 24);
    if (c16 * 10 < c24 * 9) return forward_tiles<6, 2>(x, w, bias, y, m, g, p16, mp, threads, ep);
  }
  forward_tiles<4, 3>(x, w, bias, y, m, g, p24, mp, threads, ep);
}

void blocked_conv_grad_input(const float* gy, const float* w, float* gx, const Dims& m, const Geo3& g) {
  if (grad_input_as_forward(g)) {
    const Geo3 g2 = grad_input_geometry(g);
    blocked_conv_forward(gy, grad_input_weights(w, m, g).data(), nullptr, gx, Dims(m.n, m.cout, m.c, m.groups, g2), g2);
  } else {
    grad_input_by_columns(gy, w, gx, m, g);
  }
}

// gw^T [Kc, Mo] per group = sum over tiles of A [Kc, tile] (the region, through the tap offsets) x
// gy_tile^T [tile, Mo]: the micro-kernel runs along output channels (NR = 32) with the tile's pixels as
// the reduction (junk pixels have zero rows in gy^T); each thread adds into its own partial gw^T, and
// the partials are summed and transposed at the end.
void blocked_conv_grad_weight(const float* x, const float* gy, float* gw, float* gb, const Dims& m, const Geo3& g) {
  constexpr int64_t NR = 32;
  const int64_t kc = m.kc, mo = m.mo, mop = round_up(mo, NR), units = m.n * m.groups;
  const int64_t threads = threads_for(m, g);
  const Plan pl(g, m.cg, kGyBytes, NR * 4, 8, units, threads);
  const int64_t tq = pl.split ? pl.width : pl.tq;
  const int64_t chunks = std::min(units * pl.tiles, threads);
  const int64_t wsize = m.groups * kc * mop;
  // The partials live in the calling thread's scratch (no page faults per call); one pool thread may run
  // several chunks, so each chunk has its own slice.
  float* part = conv_scratch(2, chunks * wsize);
  std::vector<double> bpart(gb ? static_cast<size_t>(chunks * m.cout) : 0, 0.0);
  parallel_for(chunks, 1, [&](int64_t s, int64_t e) {
    float* region = conv_scratch(0, pl.region);
    float* gyt = conv_scratch(1, tq * mop);
    for (int64_t ch = s; ch < e; ++ch) {
      float* acc = part + ch * wsize;
      std::fill(acc, acc + wsize, 0.0f);
      for (int64_t t = units * pl.tiles * ch / chunks; t < units * pl.tiles * (ch + 1) / chunks; ++t) {
        const int64_t u = t / pl.tiles, n = u / m.groups, gi = u % m.groups;
        const Plan::Tile tl = pl.tile(t % pl.tiles);
        build_region(x + (n * m.c + gi * m.cg) * g.in_size, pl, tl, region);
        // gy_tile^T [n, mop]: row q - q0 holds the channels of pixel q; junk pixels and padding channels are 0.
        std::fill(gyt, gyt + tl.n * mop, 0.0f);
        const float* gyg = gy + (n * m.cout + gi * mo) * g.out_size + tl.oz * g.out[1] * g.out[2];
        double* bsum = gb ? bpart.data() + ch * m.cout + gi * mo : nullptr;
        pl.runs(tl, tl.q0, tl.q0 + tl.n, [&](int64_t q, int64_t oy, int64_t ox, int64_t len) {
          const float* src = gyg + oy * g.out[2] + ox;
          transpose_run(src, g.out_size, mo, len, gyt + (q - tl.q0) * mop, mop);
          if (bsum)
            for (int64_t c = 0; c < mo; ++c) bsum[c] += row_sum(src + c * g.out_size, len);
        });
        tile_gemm<3, 4>(kc, mo, tl.n, AMat{region + tl.q0, 0, 1, pl.off.data()}, BMat{gyt, mop, nullptr},
                        DenseC{acc + gi * kc * mop, mop}, nullptr, true);
      }
    }
  });
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(kc * chunks, 1));
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
