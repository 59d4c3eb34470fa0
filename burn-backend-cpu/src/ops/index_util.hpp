// Index tensors read as int64, for the cpu kernels that take one (gather, scatter_add, select, select_add,
// the pools' backward, embedding).
#pragma once

#include <cstdint>
#include <span>

#include "cpu_tensor.hpp"

namespace burn::cpu {

// `span` holds the index values in row-major order and points into `tensor` (contiguous i64).
struct IndexSpan {
  CpuPtr tensor;
  std::span<const int64_t> span;
};

// An I64 tensor is read in its own buffer when contiguous (the indices of max_pool are; a copy into a
// std::vector zero-filled and faulted in 0.8-1.6 MB of glibc's heap every backward of the CNN); an I32 one
// is widened in one strided pass. Any other dtype is a DTypeError naming `op`.
IndexSpan load_indices(const Prim& indices, const char* op);

}  // namespace burn::cpu
