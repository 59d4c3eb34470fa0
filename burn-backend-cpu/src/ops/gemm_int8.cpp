// Exact int8 GEMM (see gemm_int8.hpp). Why not vpmaddubsw: it multiplies u8 by s8 and adds each pair of
// products into a *saturating* int16, and 255 * -128 * 2 = -65,280 does not fit, so full-range inputs come out
// clamped (ONNX Runtime's and oneDNN's AVX2 int8 kernels have this corner; oneDNN documents it and asks for 7-bit
// data). Here A and B are widened to int16 (vpmovsxbw / packed A) and multiplied by vpmaddwd, whose pair sums
// of int16 products are exact int32; the int32 accumulation is exact up to int8_gemm_max_k.
// With AVX512-VNNI (and AVX512VL), vpdpbusd multiplies u8 by s8 and adds the four products of a 32-bit lane
// straight into int32: each u8 x s8 product fits int16 and the sum does not saturate (vpdpbusd, not vpdpbusds), so
// it is exact too; on zmm, one 16-column panel's group row per register, 64 multiply-adds per instruction. A is
// packed as bytes for it, s8 A shifted by +128 into u8 and each tile corrected by 128 * col_sums.
#include "ops/gemm_int8.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "burn/tensor/error.hpp"
#include "cpu_tensor.hpp"
#include "kernel_choice.hpp"
#include "ops/simd_avx2.hpp"

namespace burn::cpu {
namespace {

constexpr const char* kOp = "gemm_int8";
constexpr int64_t kNr = kInt8PanelCols;             // columns of a B panel
constexpr int64_t kGroupBytes = kInt8KGroup * kNr;  // one group row of a panel: 16 columns x 4 k
constexpr int64_t kMr = 4;                          // rows of the AVX2 and scalar tile (4 x 8 int32)
constexpr int64_t kHalf = kNr / 2;                  // their columns: half a panel, one ymm of int32
constexpr int64_t kVr = 8;                          // rows of the VNNI tile
constexpr int64_t kVp = 3;                          // its panels: 8 x 48 int32, 24 zmm accumulators of 32
constexpr int64_t kTileCols = kVp * kNr;            // the tile buffer's row: the widest tile any path writes
constexpr int64_t kRowBlock = 64;                   // A rows per task: 64 x K int16 stays in L2 while panels stream
constexpr int64_t kVnniRowBlock = 128;              // 128 x K bytes likewise; a task's 3 panels stay in L1/L2 for it
constexpr int64_t kGrainMacs = int64_t{1} << 18;    // multiply-adds below which a task is not split off

int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// A, zero-padded (padded k meets B's zero rows, padded rows are dropped): widened to int16 row-major (scalar and
// AVX2 paths, rows padded to kMr), or as bytes in the VNNI tile's order (`as_bytes`: per block of kVr rows, group
// by group, the rows' 4 bytes side by side, so a tile reads one 32-byte run per group; s8 shifted by +128 into u8,
// `shifted`), and each row's sum of the unshifted values for B's zero-point correction.
struct PackedA {
  int64_t m = 0, k = 0, k_padded = 0;
  std::vector<int16_t> data;
  std::vector<uint8_t> bytes;
  bool as_bytes = false, shifted = false;
  std::vector<int32_t> row_sums;
};

template <typename T>
PackedA pack_a(const T* a, int64_t lda, int64_t m, int64_t k, int64_t k_padded, bool as_bytes) {
  PackedA p{
      m, k, k_padded, {}, {}, as_bytes, as_bytes && std::is_signed_v<T>, std::vector<int32_t>(static_cast<size_t>(m))};
  const size_t size = static_cast<size_t>(round_up(m, as_bytes ? kVr : kMr) * k_padded);
  if (as_bytes)
    p.bytes.assign(size, 0);
  else
    p.data.assign(size, 0);
  const int32_t shift = p.shifted ? 128 : 0;
  parallel_for(m, std::max<int64_t>(1, 65536 / std::max<int64_t>(k, 1)), [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) {
      int32_t sum = 0;  // |sum| <= 255 * K, far inside int32 for every allowed K
      const T* src = a + i * lda;
      if (as_bytes) {
        // A group's 4 bytes move as one word; s8 + 128 as u8 is the byte with its top bit flipped.
        uint8_t* row = p.bytes.data() + (i - i % kVr) * k_padded + (i % kVr) * kInt8KGroup;
        const uint32_t flip = p.shifted ? 0x80808080u : 0u;
        const int64_t full = k / kInt8KGroup;
        for (int64_t g = 0; g < full; ++g) {
          uint32_t word;
          std::memcpy(&word, src + g * kInt8KGroup, sizeof(word));
          word ^= flip;
          std::memcpy(row + g * kVr * kInt8KGroup, &word, sizeof(word));
        }
        for (int64_t kk = full * kInt8KGroup; kk < k; ++kk)
          row[full * kVr * kInt8KGroup + kk % kInt8KGroup] = static_cast<uint8_t>(int32_t{src[kk]} + shift);
        for (int64_t kk = 0; kk < k; ++kk) sum += src[kk];
      } else {
        int16_t* row = p.data.data() + i * k_padded;
        for (int64_t kk = 0; kk < k; ++kk) {
          row[kk] = src[kk];
          sum += src[kk];
        }
      }
      p.row_sums[static_cast<size_t>(i)] = sum;
    }
  });
  return p;
}

// One micro-tile of the int16 paths: tile[r * ldt + j] = sum_k a[r][k] * B[k][j] for 4 rows of packed A and the 8
// columns of half a panel (`half` points at the half's first group row; group rows are kGroupBytes apart).
using TileFn = void (*)(const int16_t* a, int64_t k_padded, const int8_t* half, int32_t* tile, int64_t ldt);

// The reference: the same sums in plain int32 arithmetic, for CPUs without AVX2 and to test the others against.
void tile_scalar(const int16_t* a, int64_t k_padded, const int8_t* half, int32_t* tile, int64_t ldt) {
  for (int64_t r = 0; r < kMr; ++r) {
    int32_t acc[kHalf] = {};
    const int16_t* ar = a + r * k_padded;
    for (int64_t g = 0; g < k_padded / kInt8KGroup; ++g) {
      const int8_t* bg = half + g * kGroupBytes;
      const int16_t* ag = ar + g * kInt8KGroup;
      for (int64_t j = 0; j < kHalf; ++j)
        for (int64_t q = 0; q < kInt8KGroup; ++q) acc[j] += int32_t{ag[q]} * int32_t{bg[j * kInt8KGroup + q]};
    }
    std::memcpy(tile + r * ldt, acc, sizeof(acc));
  }
}

// AVX2: per group of 4 k, the half's 32 bytes widen to two vectors of 16 int16 (columns 0-3 and 4-7, 4 k each) and
// each row's 4 A values are broadcast as one 64-bit pattern; vpmaddwd gives, per column, two exact int32 pair
// sums (k0k1 and k2k3) that accumulate apart and are added once at the end (vphaddd).
BURN_AVX2_FMA void tile_avx2(const int16_t* a, int64_t k_padded, const int8_t* half, int32_t* tile, int64_t ldt) {
  __m256i acc[kMr][2];
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_si256();
  const int64_t groups = k_padded / kInt8KGroup;
  for (int64_t g = 0; g < groups; ++g) {
    const int8_t* bg = half + g * kGroupBytes;
    const __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bg)));
    const __m256i b1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bg + 16)));
    for (int64_t r = 0; r < kMr; ++r) {
      int64_t quad;
      std::memcpy(&quad, a + r * k_padded + g * kInt8KGroup, sizeof(quad));
      const __m256i av = _mm256_set1_epi64x(quad);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, b0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, b1));
    }
  }
  for (int64_t r = 0; r < kMr; ++r) {
    // hadd per 128-bit lane: [c0 c1 c4 c5 | c2 c3 c6 c7]; the permute puts the columns in order.
    const __m256i h = _mm256_hadd_epi32(acc[r][0], acc[r][1]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tile + r * ldt), _mm256_permute4x64_epi64(h, 0xD8));
  }
}

#define BURN_VNNI __attribute__((target("avx2,avx512f,avx512vl,avx512vnni")))

// acc += the u8 x s8 products of a and b, lane by lane, in place: GCC 12 copies the accumulator of
// _mm512_dpbusd_epi32 around the loop (two register moves per instruction, which made the loop front-end bound).
BURN_VNNI [[gnu::always_inline]] inline void dpbusd(__m512i& acc, __m512i a, __m512i b) {
  asm("vpdpbusd %[b], %[a], %[acc]" : [acc] "+v"(acc) : [a] "v"(a), [b] "v"(b));
}

// AVX512-VNNI, R rows (of a block of kVr) x NP panels: per group of 4 k, each panel's 64-byte group row is 16
// columns x 4 k, one 32-bit lane per column, and each row's 4 u8 values are broadcast to every lane; vpdpbusd adds
// each lane's 4 products to its column, 64 multiply-adds an instruction. R x NP independent accumulators cover its
// latency, and each B load serves R rows: 11 loads per 24 vpdpbusd at 8 x 3, where the old 4 x 16 tile did 1.5
// loads (and half a vinserti64x4) per vpdpbusd. `a` is one block of packed A (kVr rows interleaved per group), `b`
// the first panel, panels `panel_stride` bytes apart.
template <int R, int NP>
BURN_VNNI void tile_vnni(const uint8_t* a, int64_t groups, const int8_t* b, int64_t panel_stride, int32_t* tile) {
  __m512i c[R][NP];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int p = 0; p < NP; ++p) c[r][p] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    __m512i bv[NP];
#pragma GCC unroll 3
    for (int p = 0; p < NP; ++p) bv[p] = _mm512_loadu_si512(b + p * panel_stride + g * kGroupBytes);
    const uint8_t* ag = a + g * kVr * kInt8KGroup;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      int32_t quad;
      std::memcpy(&quad, ag + r * kInt8KGroup, sizeof(quad));
      const __m512i av = _mm512_set1_epi32(quad);
#pragma GCC unroll 3
      for (int p = 0; p < NP; ++p) dpbusd(c[r][p], av, bv[p]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int p = 0; p < NP; ++p) _mm512_storeu_si512(tile + r * kTileCols + p * kNr, c[r][p]);
}

// [first R rows only][panels - 1]: a block's last rows, or a short A (a batch-1 Linear), skip the padded rows'
// work when at most 4 of the 8 are real.
using VnniTileFn = void (*)(const uint8_t*, int64_t, const int8_t*, int64_t, int32_t*);
constexpr VnniTileFn kVnniTiles[2][kVp] = {{tile_vnni<4, 1>, tile_vnni<4, 2>, tile_vnni<4, 3>},
                                           {tile_vnni<kVr, 1>, tile_vnni<kVr, 2>, tile_vnni<kVr, 3>}};

// ---- the choice --------------------------------------------------------------------------------------

const char* int8_variant_name(int v) {
  switch (static_cast<Int8Path>(v)) {
    case Int8Path::Scalar: return "scalar";
    case Int8Path::Avx2: return "avx2";
    case Int8Path::Vnni: return "vnni";
  }
  return "?";
}

bool int8_variant_available(int v) {
  switch (static_cast<Int8Path>(v)) {
    case Int8Path::Scalar: return true;
    case Int8Path::Avx2: return cpu_has_avx2_fma();
    case Int8Path::Vnni:
      return cpu_has_avx2_fma() && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  }
  return false;
}

const char* int8_variant_requirement(int v) {
  return static_cast<Int8Path>(v) == Int8Path::Vnni ? "AVX512-VNNI and AVX512VL" : "AVX2";
}

constexpr KernelChoiceSpec kInt8PathSpec{
    "BURN_CPU_INT8",   "set_int8_path",        "int8 GEMM path",        "int8 kernels", 3,
    int8_variant_name, int8_variant_available, int8_variant_requirement};
KernelChoice g_path{kInt8PathSpec};

TileFn tile_fn() { return int8_path() == Int8Path::Avx2 ? tile_avx2 : tile_scalar; }

// Packs A as the path in use reads it.
template <typename T>
PackedA pack_a(const T* a, int64_t lda, int64_t m, int64_t k, int64_t k_padded) {
  return pack_a(a, lda, m, k, k_padded, int8_path() == Int8Path::Vnni);
}

// ---- the driver --------------------------------------------------------------------------------------

void check_gemm_args(bool a_signed, int64_t lda, int64_t m, const PackedInt8Weights& b, int64_t ldc) {
  if (m < 0) throw ValueError(kOp, "m = " + std::to_string(m) + " is negative");
  if (lda < b.k) throw ValueError(kOp, "lda = " + std::to_string(lda) + " is below k = " + std::to_string(b.k));
  if (ldc < b.n) throw ValueError(kOp, "ldc = " + std::to_string(ldc) + " is below n = " + std::to_string(b.n));
  if (b.k > int8_gemm_max_k(a_signed))
    throw ValueError(kOp, "k = " + std::to_string(b.k) + " exceeds " + std::to_string(int8_gemm_max_k(a_signed)) +
                              ", the longest " + (a_signed ? "s8" : "u8") + " x s8 dot product exact in int32");
}

// Runs every tile of A x B over the pool and hands it to sink(tile, i, rows, j, cols): rows x cols valid entries
// at tile[r * kTileCols + q] for C's rows i.. and columns j... The VNNI path's tiles are 8 x 48 (3 panels), the
// others' 4 x 16 (a panel, as two 4 x 8 halves).
template <typename Sink>
void for_each_tile(const PackedA& pa, const PackedInt8Weights& b, const Sink& sink) {
  const int64_t m = pa.m, n = b.n, kp = b.k_padded, panels = b.panels();
  if (m == 0 || n == 0) return;
  const bool vnni = pa.as_bytes;
  const TileFn tile_of = tile_fn();
  const int64_t span = vnni ? kVp : 1;  // panels per task
  const int64_t tile_rows = vnni ? kVr : kMr, block = vnni ? kVnniRowBlock : kRowBlock;
  const int64_t units = (panels + span - 1) / span;
  const int64_t row_blocks = (m + block - 1) / block;
  const int64_t task_macs = std::min(m, block) * span * kNr * std::max<int64_t>(kp, 1);
  // sum_k (a + 128) b = sum_k a b + 128 * col_sum. For K past u8's exact length the shifted sum wraps in
  // vpdpbusd's int32 lanes; the true sum fits int32, so the difference taken modulo 2^32 is still exact.
  const auto unshift = [&](int32_t* tile, int64_t rows, int64_t j0, int64_t cols) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t q = 0; q < cols; ++q)
        tile[r * kTileCols + q] = static_cast<int32_t>(static_cast<uint32_t>(tile[r * kTileCols + q]) -
                                                       static_cast<uint32_t>(128 * b.col_sums[j0 + q]));
  };
  // Task t is (row block t / units, panels of unit t % units): a thread's run of tasks reuses one A block from L2,
  // and with one row block (a Linear's batch) the threads split N, each streaming its own part of B.
  parallel_for(row_blocks * units, std::max<int64_t>(1, kGrainMacs / task_macs), [&](int64_t s, int64_t e) {
    alignas(64) int32_t tile[kVr * kTileCols];
    for (int64_t t = s; t < e; ++t) {
      const int64_t rb = t / units, p = (t % units) * span, np = std::min(span, panels - p);
      const int64_t j0 = p * kNr, cols = std::min(np * kNr, n - j0);
      const int8_t* panel = b.data.data() + p * kp * kNr;
      for (int64_t i = rb * block; i < std::min(m, (rb + 1) * block); i += tile_rows) {
        const int64_t rows = std::min(tile_rows, m - i);
        if (vnni) {
          kVnniTiles[rows > 4][np - 1](pa.bytes.data() + i * kp, kp / kInt8KGroup, panel, kp * kNr, tile);
          if (pa.shifted) unshift(tile, rows, j0, cols);
        } else {
          tile_of(pa.data.data() + i * kp, kp, panel, tile, kTileCols);
          if (cols > kHalf) tile_of(pa.data.data() + i * kp, kp, panel + kHalf * kInt8KGroup, tile + kHalf, kTileCols);
        }
        sink(tile, i, rows, j0, cols);
      }
    }
  });
}

template <typename T>
void gemm_s32(const T* a, int64_t lda, int64_t m, const PackedInt8Weights& b, int32_t* c, int64_t ldc) {
  check_gemm_args(std::is_signed_v<T>, lda, m, b, ldc);
  const PackedA pa = pack_a(a, lda, m, b.k, b.k_padded);
  for_each_tile(pa, b, [&](const int32_t* tile, int64_t i, int64_t rows, int64_t j, int64_t cols) {
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(c + (i + r) * ldc + j, tile + r * kTileCols, static_cast<size_t>(cols) * sizeof(int32_t));
  });
}

// The epilogue's operands expanded to one double per row of A and per column of B (every value is an integer
// below 2^53 or a float, so nothing rounds until the final scaling).
struct Dequant {
  std::vector<double> sa, za, row_sums;        // per row of A
  std::vector<double> sb, zb, col_sums, bias;  // per column of B
  double k = 0;
  bool has_zb = false;  // any B zero point not 0 (quantize_dynamic's symmetric weights have none)
};

void expand(std::span<const float> v, int64_t count, std::vector<double>& out) {
  out.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out[static_cast<size_t>(i)] = v[v.size() == 1 ? 0 : static_cast<size_t>(i)];
}
void expand(std::span<const int32_t> v, int64_t count, std::vector<double>& out) {
  out.assign(static_cast<size_t>(count), 0.0);
  for (int64_t i = 0; i < count && !v.empty(); ++i)
    out[static_cast<size_t>(i)] = v[v.size() == 1 ? 0 : static_cast<size_t>(i)];
}

ValueError bad_count(const char* who, const char* what, size_t got, bool may_be_empty, int64_t count, const char* per) {
  return ValueError(kOp, std::string(who) + "'s " + what + " has " + std::to_string(got) + " values; expected " +
                             (may_be_empty ? "0, " : "") + "1 or " + std::to_string(count) + " (one per " + per + ")");
}

void check_zero_points(std::span<const int32_t> zp, const char* who, const char* per, int64_t count, int32_t zmin,
                       int32_t zmax) {
  if (zp.size() > 1 && zp.size() != static_cast<size_t>(count))
    throw bad_count(who, "zero point", zp.size(), true, count, per);
  for (size_t i = 0; i < zp.size(); ++i)
    if (zp[i] < zmin || zp[i] > zmax)
      throw ValueError(kOp, std::string(who) + "'s zero point [" + std::to_string(i) + "] = " + std::to_string(zp[i]) +
                                " is outside [" + std::to_string(zmin) + ", " + std::to_string(zmax) + "]");
}

void check_quant(const Int8Quant& q, const char* who, const char* per, int64_t count, int32_t zmin, int32_t zmax) {
  if (q.scale.size() != 1 && q.scale.size() != static_cast<size_t>(count))
    throw bad_count(who, "scale", q.scale.size(), false, count, per);
  check_zero_points(q.zero_point, who, per, count, zmin, zmax);
}

// C - za * colsum - zb * rowsum + K * za * zb per entry: every term below 2^33 in magnitude for zero points in
// range, so the int64 sum is exact and its conversion to int32 wraps as an int32 accumulator would.
template <typename T>
void gemm_s32_zp(const T* a, int64_t lda, int64_t m, const PackedInt8Weights& b, std::span<const int32_t> za,
                 std::span<const int32_t> zb, int32_t* c, int64_t ldc) {
  check_gemm_args(std::is_signed_v<T>, lda, m, b, ldc);
  check_zero_points(za, "A", "row", m, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  check_zero_points(zb, "B", "column", b.n, -128, 127);
  const PackedA pa = pack_a(a, lda, m, b.k, b.k_padded);
  const auto at = [](std::span<const int32_t> v, int64_t i) -> int64_t {
    return v.empty() ? 0 : v[v.size() == 1 ? 0 : static_cast<size_t>(i)];
  };
  for_each_tile(pa, b, [&](const int32_t* tile, int64_t i, int64_t rows, int64_t j, int64_t cols) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t za_r = at(za, i + r), rs = pa.row_sums[static_cast<size_t>(i + r)];
      int32_t* o = c + (i + r) * ldc + j;
      for (int64_t q = 0; q < cols; ++q) {
        const int64_t zb_j = at(zb, j + q), cs = b.col_sums[static_cast<size_t>(j + q)];
        o[q] = static_cast<int32_t>(int64_t{tile[r * kTileCols + q]} - za_r * cs - zb_j * rs + b.k * za_r * zb_j);
      }
    }
  });
}

// out = sa * sb * (c - za * colsum - zb * rowsum + K * za * zb) + bias over one tile, in double (exact up to the
// scaling), rounded once to f32. AVX2 where the CPU has it: the loop converts and scales 4 columns per step.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void dequant_tile(const int32_t* tile, int64_t rows,
                                                                              int64_t cols, const Dequant& d,
                                                                              int64_t i0, int64_t j0, float* out,
                                                                              int64_t ldo) {
  const double* sb = d.sb.data() + j0;
  const double* zb = d.zb.data() + j0;
  const double* cs = d.col_sums.data() + j0;
  const double* bias = d.bias.data() + j0;
  for (int64_t r = 0; r < rows; ++r) {
    const double sa = d.sa[static_cast<size_t>(i0 + r)], za = d.za[static_cast<size_t>(i0 + r)];
    const double rs = d.row_sums[static_cast<size_t>(i0 + r)];
    float* o = out + (i0 + r) * ldo + j0;
    const int32_t* t = tile + r * kTileCols;
    for (int64_t j = 0; j < cols; ++j) {
      const double q = double(t[j]) - za * cs[j] - zb[j] * rs + d.k * za * zb[j];
      o[j] = static_cast<float>(sa * sb[j] * q + bias[j]);
    }
  }
}

// The same on AVX-512 (the VNNI path's CPUs), 8 columns a step, the sum regrouped as c - za * colsum +
// zb * (K * za - rowsum): every product and sum an integer below 2^53, so still exact, and the scaling the
// same two roundings, (sa * sb) * q, then + bias (no FMA there: -ffp-contract=off, the bits the tests compare).
BURN_VNNI void dequant_tile_avx512(const int32_t* tile, int64_t rows, int64_t cols, const Dequant& d, int64_t i0,
                                   int64_t j0, float* out, int64_t ldo) {
  const double* sb = d.sb.data() + j0;
  const double* zb = d.zb.data() + j0;
  const double* cs = d.col_sums.data() + j0;
  const double* bias = d.bias.data() + j0;
  for (int64_t r = 0; r < rows; ++r) {
    const size_t i = static_cast<size_t>(i0 + r);
    const __m512d sa = _mm512_set1_pd(d.sa[i]), za = _mm512_set1_pd(d.za[i]);
    const __m512d w = _mm512_set1_pd(d.k * d.za[i] - d.row_sums[i]);
    float* o = out + (i0 + r) * ldo + j0;
    const int32_t* t = tile + r * kTileCols;
    for (int64_t j = 0; j < cols; j += 8) {
      const __mmask8 mk = cols - j >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1u << (cols - j)) - 1);
      // The maskz forms: GCC 12 warns that the unmasked ones' _mm512_undefined_* source is uninitialized.
      const __m512d c = _mm512_maskz_cvtepi32_pd(mk, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + j)));
      __m512d q = _mm512_sub_pd(c, _mm512_mul_pd(za, _mm512_maskz_loadu_pd(mk, cs + j)));
      if (d.has_zb) q = _mm512_add_pd(q, _mm512_mul_pd(_mm512_maskz_loadu_pd(mk, zb + j), w));
      const __m512d v = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(sa, _mm512_maskz_loadu_pd(mk, sb + j)), q),
                                      _mm512_maskz_loadu_pd(mk, bias + j));
      _mm256_mask_storeu_ps(o + j, mk, _mm512_maskz_cvtpd_ps(mk, v));
    }
  }
}

template <typename T>
void gemm_f32(const T* a, int64_t lda, int64_t m, const PackedInt8Weights& b, const Int8Epilogue& ep, float* out,
              int64_t ldo) {
  check_gemm_args(std::is_signed_v<T>, lda, m, b, ldo);
  constexpr int32_t zmin = std::numeric_limits<T>::min(), zmax = std::numeric_limits<T>::max();
  check_quant(ep.a, "A", "row", m, zmin, zmax);
  check_quant(ep.b, "B", "column", b.n, -128, 127);
  if (!ep.bias.empty() && ep.bias.size() != static_cast<size_t>(b.n))
    throw ValueError(
        kOp, "bias has " + std::to_string(ep.bias.size()) + " values; expected 0 or n = " + std::to_string(b.n));
  const PackedA pa = pack_a(a, lda, m, b.k, b.k_padded);
  Dequant d;
  expand(ep.a.scale, m, d.sa);
  expand(ep.a.zero_point, m, d.za);
  d.row_sums.assign(pa.row_sums.begin(), pa.row_sums.end());
  expand(ep.b.scale, b.n, d.sb);
  expand(ep.b.zero_point, b.n, d.zb);
  d.has_zb = std::any_of(d.zb.begin(), d.zb.end(), [](double z) { return z != 0.0; });
  d.col_sums.assign(b.col_sums.begin(), b.col_sums.end());
  if (ep.bias.empty())
    d.bias.assign(static_cast<size_t>(b.n), 0.0);
  else
    expand(ep.bias, b.n, d.bias);
  d.k = static_cast<double>(b.k);
  const auto dequant = pa.as_bytes ? dequant_tile_avx512 : dequant_tile;
  for_each_tile(pa, b, [&](const int32_t* tile, int64_t i, int64_t rows, int64_t j, int64_t cols) {
    dequant(tile, rows, cols, d, i, j, out, ldo);
  });
}

}  // namespace

const char* int8_path_name(Int8Path path) { return int8_variant_name(static_cast<int>(path)); }

bool int8_path_available(Int8Path path) { return int8_variant_available(static_cast<int>(path)); }

Int8Path int8_path() { return static_cast<Int8Path>(g_path.get()); }

Int8Path set_int8_path(Int8Path path) { return static_cast<Int8Path>(g_path.set(static_cast<int>(path))); }

int64_t int8_gemm_max_k(bool a_signed) {
  const int64_t max_product = a_signed ? 128 * 128 : 255 * 128;
  return std::numeric_limits<int32_t>::max() / max_product;
}

PackedInt8Weights pack_int8_weights(const int8_t* b, int64_t k, int64_t n, int64_t ldb) {
  static constexpr const char* op = "pack_int8_weights";
  if (k < 0 || n < 0)
    throw ValueError(op, "k = " + std::to_string(k) + ", n = " + std::to_string(n) + ": sizes must be non-negative");
  if (ldb < n) throw ValueError(op, "ldb = " + std::to_string(ldb) + " is below n = " + std::to_string(n));
  if (k > int8_gemm_max_k(true))
    throw ValueError(op, "k = " + std::to_string(k) + " exceeds " + std::to_string(int8_gemm_max_k(true)) +
                             ", the longest int8 dot product exact in int32");
  PackedInt8Weights w;
  w.k = k, w.n = n, w.k_padded = round_up(k, kInt8KGroup);
  w.data.assign(static_cast<size_t>(w.panels() * w.k_padded * kNr), 0);
  w.col_sums.assign(static_cast<size_t>(n), 0);
  // One panel of kNr columns per task: the panels and their column sums are disjoint, so threads share
  // nothing (a b made per call, such as the columns of an integer conv, is packed at the threads' pace).
  parallel_for(w.panels(), std::max<int64_t>(1, 65536 / std::max<int64_t>(k * kNr, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t j0 = p * kNr, cols = std::min(n - j0, kNr);
      int8_t* panel = w.data.data() + p * w.k_padded * kNr;
      int32_t* sums = w.col_sums.data() + j0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const int8_t* row = b + kk * ldb + j0;
        int8_t* dst = panel + (kk / kInt8KGroup) * kGroupBytes + kk % kInt8KGroup;
        for (int64_t j = 0; j < cols; ++j) {
          dst[j * kInt8KGroup] = row[j];
          sums[j] += row[j];
        }
      }
    }
  });
  return w;
}

void gemm_int8(const uint8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, int32_t* c, int64_t ldc) {
  gemm_s32(a, lda, m, b, c, ldc);
}
void gemm_int8(const int8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, int32_t* c, int64_t ldc) {
  gemm_s32(a, lda, m, b, c, ldc);
}
void gemm_int8_zp(const uint8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, std::span<const int32_t> za,
                  std::span<const int32_t> zb, int32_t* c, int64_t ldc) {
  gemm_s32_zp(a, lda, m, b, za, zb, c, ldc);
}
void gemm_int8_zp(const int8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, std::span<const int32_t> za,
                  std::span<const int32_t> zb, int32_t* c, int64_t ldc) {
  gemm_s32_zp(a, lda, m, b, za, zb, c, ldc);
}
void gemm_int8_dequant(const uint8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, const Int8Epilogue& ep,
                       float* out, int64_t ldo) {
  gemm_f32(a, lda, m, b, ep, out, ldo);
}
void gemm_int8_dequant(const int8_t* a, int64_t lda, int64_t m, const PackedInt8Weights& b, const Int8Epilogue& ep,
                       float* out, int64_t ldo) {
  gemm_f32(a, lda, m, b, ep, out, ldo);
}

}  // namespace burn::cpu
