// The blocked f32 conv's tiling (see conv_blocked.hpp): tile sizes, the Plan that cuts the output pixels
// into tiles and lays out the input region each tile reads, and the region builder. Private to the
// conv_blocked_*.cpp files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/conv_util.hpp"

namespace burn::cpu::conv_detail {

// Tile sizes: a tile's outputs take about kOutBytes and its input region at most kRegionBytes, so that
// both stay in the 512 KiB L2 of this class of CPU next to the weights of a group (at most kWeightBytes,
// see blocked_conv_fits). In the weight gradient gy_tile^T is the B operand that every row panel
// reuses: kGyBytes keeps it in the 32 KiB L1.
inline constexpr int64_t kOutBytes = 96 << 10;
inline constexpr int64_t kWeightBytes = 192 << 10;
inline constexpr int64_t kGyBytes = 16 << 10;
inline constexpr int64_t kRegionBytes = 192 << 10;
// Blocking inside a tile: K is cut into equal chunks of at most kKc (a B micro-panel chunk stays in L1
// and L2, and the C loads and stores between chunks stay rare) while kMc rows of A stream from L2.
inline constexpr int64_t kKc = 512;
inline constexpr int64_t kMc = 128;

// The widest last panel of a tile GEMM that thin_kernel (conv_blocked_gemm.hpp) runs, column by column,
// instead of a full micro-kernel panel.
inline constexpr int kThin = 4;

// Threads worth waking for a conv of `macs` multiply-adds: below about 10 microseconds of one core's
// work the hand-off to the pool costs more than it saves.
int64_t threads_for(const Dims& m, const Geo3& g);

// Pixels per tile: a multiple of `nr` whose bytes fit `budget`, cut further so that every thread
// gets a few tiles when there are few (image, group) units.
int64_t tile_width(int64_t bytes_per_pixel, int64_t budget, int64_t pixels, int64_t units, int64_t nr, int64_t threads);

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
       int64_t threads, bool dense_ = false, int64_t region_bytes = kRegionBytes);

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

// AVX2/FMA code below: call only when blocked_conv_enabled().
// Fills the region of tile `tl` from the input channels at x (see Plan); the slack after it is zeroed.
void build_region(const float* x, const Plan& pl, const Plan::Tile& tl, float* region);
// d[o] = src[2 o] for o < n; src[2 n - 1] and beyond are never read.
void every_other(const float* src, int64_t n, float* d);

}  // namespace burn::cpu::conv_detail
