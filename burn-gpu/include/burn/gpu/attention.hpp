// The attention op's plan, shared by the GPU plugins (burn-gpu/kernels/attention.kernel): the kernel's
// register and staging sizes for a device, and a launch's sizes, scale and strides block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "burn/gpu/views.hpp"
#include "burn/tensor/backend.hpp"

namespace burn::gpu {

// Queries per workgroup, the register capacity D (a power of two >= E and Ev, at most 128; wider value
// rows take several passes, a wider query is read from memory: q_global) and the keys per staged block,
// sized to the device's workgroup memory. A CPU-type device (`cpu_like`) takes workgroups of 32, others
// 64, at most `max_workgroup`.
struct AttentionTiles {
  uint32_t workgroup = 64, d = 8, kb = 16;
  bool q_global = false;
};
AttentionTiles attention_tiles(bool cpu_like, uint64_t max_workgroup, uint64_t shared_memory, int64_t e, int64_t ev,
                               DType dtype);

// One launch: the sizes (32-bit kernel arguments), the scale (1/sqrt(E) unless given), the 16 strides of
// Q, K, V and the mask (batch, head, row, column; 0 along dims of size 1 and for an absent mask) and whether
// offsets need 64-bit indices.
struct AttentionPlan {
  int64_t batch = 0, heads = 0, lq = 0, lk = 0, e = 0, ev = 0;
  double scale = 1;
  std::vector<int64_t> strides;
  bool index64 = false;
};
// q, k, v and the mask (null when absent) as rank-4 views whose shapes the attention rule accepted;
// Unsupported naming the op and `device` when a size or batch x heads needs more than 32 bits.
AttentionPlan attention_plan(const View& q, const View& k, const View& v, const View* mask,
                             const AttentionOptions& options, const char* op, const std::string& device);

}  // namespace burn::gpu
