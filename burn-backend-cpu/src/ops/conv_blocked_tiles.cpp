// The blocked f32 conv's tiling: how a Plan cuts the output pixels into tiles and lays out each tile's
// input region, and the AVX2 code that copies the input into a region (see conv_blocked_tiles.hpp).
#include "ops/conv_blocked_tiles.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu_tensor.hpp"
#include "ops/simd_avx2.hpp"

namespace burn::cpu::conv_detail {

int64_t threads_for(const Dims& m, const Geo3& g) {
  const double macs = static_cast<double>(m.n) * m.cout * m.kc * g.out_size;
  return macs < (1 << 19) ? 1 : static_cast<int64_t>(num_threads());
}

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

Plan::Plan(const Geo3& geo, int64_t ch, int64_t out_bytes, int64_t out_bytes_per_pixel, int64_t nr, int64_t units,
           int64_t threads, bool dense_, int64_t region_bytes)
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

namespace {

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

}  // namespace

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

}  // namespace burn::cpu::conv_detail
