// The index layout of a kernel launch over strided views, shared by the GPU backends: the iteration shape
// with dims merged where every operand allows and size-1 dims dropped, each operand's strides over it and
// its mode, and the defines a kernel reads them by (RANK, X_MODE, X_STRIDES, INDEX64; burn-gpu/README.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/backend.hpp"

namespace burn::gpu {

// Name and value of each #define a kernel is compiled with, in order.
using Defines = std::vector<std::pair<std::string, std::string>>;

struct Layout {
  std::vector<int64_t> shape;                 // collapsed iteration shape (empty: one element)
  std::vector<std::vector<int64_t>> strides;  // per operand, over `shape`
  bool index64 = false;                       // some offset or count needs 64-bit indices
  size_t rank() const { return shape.size(); }
  // Operand k's mode: 0 = contiguous (offset i), 1 = broadcast scalar (offset 0), 2 = strided.
  int mode(size_t k) const;
};

// `strides[k]` are operand k's strides over `shape` (0 where it broadcasts).
Layout collapse(const Shape& shape, const std::vector<std::vector<int64_t>>& strides);

// The strides of a view (`view_shape`, `view_strides`) broadcast to `shape`: leading dims added, size-1
// dims given stride 0.
std::vector<int64_t> broadcast_strides(const Shape& view_shape, const std::vector<int64_t>& view_strides,
                                       const Shape& shape);

// Whether a view with these strides is row-major over `shape` (size-1 dims may have any stride).
bool is_row_major(const Shape& shape, const std::vector<int64_t>& strides);

// INDEX64, RANK (strided operands only) and each operand's name_MODE and name_STRIDES.
void add_layout_defines(Defines& d, const std::vector<int>& modes, size_t rank, bool index64,
                        const std::vector<std::string>& names);

// A layout's block as the kernels read it: [shape | strides_0 | strides_1 ...] as idx_t (int64 when
// `index64`, else int32), native byte order.
std::vector<uint8_t> layout_block(const Layout& l);
// `values` as an array of idx_t (int64 when `index64`, else int32).
std::vector<uint8_t> index_array(const std::vector<int64_t>& values, bool index64);

}  // namespace burn::gpu
