// The bf16 register route of the half decorator (half_backend.cpp) for the simple elementwise maps (add, mul,
// relu, clamp, the scalar forms, ... and exp): one loop widens each element, applies the f32 op's own per-element
// function (ops/elementwise_fns.hpp, as the fused executor's instruction does) and rounds the result, in
// registers, with no f32 tile in memory between the three. The conversions are convert.hpp's reference
// functions, vectorised by the compiler for the conversion path's ISA, so the bits are the f32 result rounded
// once on every path. Private to the plugin.
#pragma once

#include <cstdint>

#include "burn/tensor/fused.hpp"
#include "half_convert.hpp"

namespace burn::cpu {

// Whether run_bf16_map runs `in` on conversion path `isa` (an op of the simple maps, or exp where its f32 loop is
// AVX2's exp8, over bf16 operands and a bf16 result).
bool bf16_map_supported(const FusedInstr& in, HalfIsa isa);
// out[i] = bf16(f(x[0][i], x[1][i])) over n elements, single-threaded, compiled for `isa`; x has in.n_args
// contiguous operands of n elements each.
void run_bf16_map(const FusedInstr& in, HalfIsa isa, const uint16_t* const* x, uint16_t* out, int64_t n);

}  // namespace burn::cpu
