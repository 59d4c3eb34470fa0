// The conv module ops' plan, shared by the GPU plugins (burn-gpu/kernels/conv.kernel): the geometry from the
// conv rules' shapes and normalised options, the three GEMM-shaped products and the bias sum, their sizes,
// the geometry block and the workgroup shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "burn/tensor/backend.hpp"

namespace burn::gpu {

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

// conv(x, w) whose output shape `ys` the conv rule gave (with `o` normalised) (cpu: conv_geo).
ConvGeo conv_geo(const Shape& xs, const Shape& ws, const ConvOptions& o, const Shape& ys);
// conv_transpose(x, w): the conv from the transposed conv's output `ys` (the conv_transpose rule's, cout
// channels) to x (cpu: transpose_geo).
ConvGeo transpose_geo(const Shape& xs, const Shape& ws, const ConvTransposeOptions& o, const Shape& ys);
// The bias gradient of conv_transpose: the channel sums of grad_out [N, c, in], seen as the bias-gradient
// product of the conv from grad_out.
ConvGeo transpose_bias_geo(const ConvGeo& g);

// The kernel's products (its defines, see conv.kernel's header).
enum class ConvMode { forward, grad_input, grad_weight, bias_grad };
const char* conv_mode_define(ConvMode mode);
// The GEMM of a product: rows, columns and depth.
struct ConvGemm {
  int64_t m = 0, n = 0, k = 0;
};
ConvGemm conv_gemm(ConvMode mode, const ConvGeo& g);
// The 30 entries of the kernel's geometry block; Unsupported naming the op and `device` when one needs more
// than 32 bits (the kernel indexes within an image in 32 bits).
std::vector<int64_t> conv_geo_entries(const ConvGeo& g, const ConvGemm& p, const char* op, const std::string& device);
// The kernel's `flags` argument: 1 add the bias.
inline uint32_t conv_flags(bool bias) { return bias ? 1u : 0u; }

// A workgroup of wg_x x wg_y invocations, each computing tm x tn outputs; the tiled kernel steps by bk.
struct ConvTiles {
  uint32_t wg_x = 1, wg_y = 1, tm = 1, tn = 1, bk = 0;
};
// What the tile choice needs of a device: its type and workgroup limits.
struct ConvDevice {
  bool cpu_type = false;
  uint32_t max_invocations = 0, max_x = 0, max_y = 0;
  uint64_t shared_bytes = 0;
};
// Sized to the product (rows x cols) and the device, for sums of acc_bytes (4 or 8): 64 invocations on
// CPU-type devices without tiles, else 256; a square tile of 4 x 4 blocks, a column of rows for products
// with few columns (a depthwise conv), a row of columns for those with few rows.
ConvTiles conv_tiles(const ConvDevice& device, bool tiled, int64_t rows, int64_t cols, uint32_t acc_bytes);
// The workgroup grid of a product: column tiles, row tiles, groups, each capped at `max` (the kernel walks
// the rest).
struct ConvGrid {
  uint32_t x = 1, y = 1, z = 1;
};
ConvGrid conv_grid(const ConvTiles& t, const ConvGemm& p, int64_t groups, const uint32_t max[3]);

}  // namespace burn::gpu
