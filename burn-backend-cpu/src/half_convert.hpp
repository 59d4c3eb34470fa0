// Bulk f16/bf16 <-> f32 conversions, the instructions chosen at run time: AVX-512 (vcvtph2ps/vcvtps2ph on
// zmm for f16; vcvtneps2bf16 for bf16 where the CPU has AVX512-BF16), F16C with AVX2, or the scalar
// reference (convert.hpp's inline functions). Every path gives the same bits:
//   widen:  exact; a signalling f16 NaN comes out quiet (as F16C does), bf16 is a plain shift;
//   narrow: round to nearest even, overflow to inf; a NaN keeps its sign and top payload bits, quiet.
// BURN_CPU_HALF=scalar|avx2|avx512 forces a path (tests, measurements). Private to the plugin.
#pragma once

#include <cstdint>

#include "burn/tensor/dtype.hpp"

namespace burn::cpu {

enum class HalfIsa : uint8_t { Scalar, Avx2, Avx512 };

const char* half_isa_name(HalfIsa isa);
// Whether this CPU can run `isa` (Avx2 needs AVX2 and F16C; Avx512 needs AVX512F).
bool half_isa_available(HalfIsa isa);
// Whether the Avx512 path narrows bf16 with vcvtneps2bf16 (AVX512-BF16) rather than integer rounding.
bool half_isa_has_bf16_instructions();
// The path every conversion takes: BURN_CPU_HALF when set (ValueError for an unknown name, Unsupported for
// a path this CPU lacks), else the best one available.
HalfIsa half_isa();
// Test hook: forces `isa` (Unsupported when the CPU lacks it) and returns the path that was in use.
HalfIsa set_half_isa(HalfIsa isa);

// out[i] = in[i] as f32, for `from` F16 or BF16. Single-threaded over the range; callers split the work.
void widen_to_f32(DType from, const uint16_t* in, float* out, int64_t n);
// out[i] = in[i] rounded to `to` (F16 or BF16).
void narrow_from_f32(DType to, const float* in, uint16_t* out, int64_t n);

inline bool is_half(DType d) { return d == DType::F16 || d == DType::BF16; }

}  // namespace burn::cpu
