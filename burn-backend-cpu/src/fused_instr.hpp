// One elementwise instruction of the fused executor run alone over f32 buffers: the same per-element
// functions and f32 kernels (ops/elementwise_fns.hpp) the eager ops and fused programs use, without a
// tensor, an allocation or a parallel split of its own. The half route (half_backend.cpp) runs its tiles
// through it. Private to the plugin.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "burn/tensor/fused.hpp"

namespace burn::cpu {

// Whether run_f32_instruction runs `in` when every tensor operand is f32.
bool f32_instruction_supported(const FusedInstr& in);
// Runs `in` over n elements, single-threaded: ptr[in.args[k]] is operand k (f32), ptr[in.out] the
// output (f32, or u8 for a bool result); registers are 0..3, so args and out index `ptr` directly.
void run_f32_instruction(const FusedInstr& in, void* const* ptr, int64_t n);

// Copies elements [s, s + n) (row-major over `shape`) of a strided, broadcast operand into `out`.
template <typename E>
inline void gather_strided(const E* base, const std::vector<int64_t>& strides, const Shape& shape, int64_t s, int64_t n,
                           E* out) {
  const size_t r = shape.rank();
  if (r == 0) {
    std::fill(out, out + n, *base);
    return;
  }
  int64_t idx[16];
  std::vector<int64_t> big;
  int64_t* ix = idx;
  if (r > 16) {
    big.resize(r);
    ix = big.data();
  }
  int64_t rem = s, off = 0;
  for (size_t d = r; d-- > 0;) {
    ix[d] = rem % shape[d];
    rem /= shape[d];
    off += ix[d] * strides[d];
  }
  const int64_t inner = shape[r - 1], st = strides[r - 1];
  while (n > 0) {
    const int64_t len = std::min(inner - ix[r - 1], n);
    const E* p = base + off;
    if (st == 1)
      std::memcpy(out, p, static_cast<size_t>(len) * sizeof(E));
    else if (st == 0)
      std::fill(out, out + len, *p);
    else
      for (int64_t j = 0; j < len; ++j) out[j] = p[j * st];
    out += len;
    n -= len;
    off += len * st;
    ix[r - 1] += len;
    // Carry into the outer dims.
    for (size_t d = r - 1; d > 0 && ix[d] == shape[d]; --d) {
      off -= ix[d] * strides[d];
      ix[d] = 0;
      ++ix[d - 1];
      off += strides[d - 1];
    }
  }
}

}  // namespace burn::cpu
