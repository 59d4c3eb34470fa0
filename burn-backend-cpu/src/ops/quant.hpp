// The quant ops' pieces that the plugin's tests reach: the row quantizer and the packed-weight cache's
// counters. Private to the plugin.
#pragma once

#include <cstddef>
#include <cstdint>

namespace burn::cpu {

// Each of m rows of x (k floats) to u8, as quantized_linear defines it (burn/tensor/quant.hpp): scales[i],
// zero_points[i], and bad_rows[i] = 1 where the row holds a NaN or an infinity (its values quantized as 0).
void quantize_rows_u8(const float* x, int64_t m, int64_t k, uint8_t* q, float* scales, int32_t* zero_points,
                      uint8_t* bad_rows);
// The same without AVX-512 (what quantize_rows_u8 runs on CPUs that lack it), for the test that compares the two.
void quantize_rows_u8_portable(const float* x, int64_t m, int64_t k, uint8_t* q, float* scales, int32_t* zero_points,
                               uint8_t* bad_rows);

// How many weights quantized_linear and matmul_integer have packed since the process started (each pack is a
// cache miss).
uint64_t quantized_linear_packs();
// Packed weights the cache holds now (after dropping the storages only the cache still references).
size_t quantized_linear_cached_weights();

}  // namespace burn::cpu
