// The modes of the reduce and scan kernels (burn-gpu/kernels/reduce.kernel, scan.kernel), which both GPU
// plugins choose alike, so that a reduction folds the same chunks in the same order on either.
#pragma once

#include <cstdint>
#include <vector>

#include "burn/gpu/views.hpp"

namespace burn::gpu {

// Elements an invocation folds in order (the lines mode's chunk).
inline constexpr int64_t kReduceLineChunk = 256;
// Elements of a workgroup's chunk (ROW: 256 invocations x 16 elements) and of a scan's block: both must fold
// the same chunks, as a scan's block totals are a ROW pass's partials.
inline constexpr int64_t kReduceRowChunk = 4096;
inline constexpr uint32_t kReduceGroup = 256;

// Whether a pass over lines of n elements (the reduced dims' shape and strides, collapsed) runs a workgroup
// per chunk: long lines that are contiguous (or few, or not one stride), on a device with workgroup trees;
// else an invocation per chunk, whose neighbours read neighbouring lines.
inline bool reduce_rows(const std::vector<int64_t>& red_shape, const std::vector<int64_t>& red_strides, int64_t n,
                        int64_t lines, bool trees) {
  if (n < 64 || !trees) return false;
  return red_shape.size() > 1 || red_strides[0] == 1 || lines < 16;
}

// Whether a scan runs in blocks from the scanned block totals: a line spans several blocks and there are
// too few lines to fill the device, or the line is contiguous.
inline bool scan_blocked(const Lines& l) { return l.n > kReduceRowChunk && (l.count < 1024 || l.stride == 1); }

}  // namespace burn::gpu
