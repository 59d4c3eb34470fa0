// Layouts of strided views for kernel launches (layout.hpp).
#include "burn/gpu/layout.hpp"

#include <algorithm>
#include <cstring>

namespace burn::gpu {

int Layout::mode(size_t k) const {
  const auto& s = strides[k];
  if (std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 0; })) return 1;
  // Row-major over the iteration shape: the flat index is the offset.
  int64_t acc = 1;
  bool row_major = true;
  for (size_t d = shape.size(); d-- > 0 && row_major;) {
    row_major = s[d] == acc;
    acc *= shape[d];
  }
  return row_major ? 0 : 2;
}

std::vector<int64_t> broadcast_strides(const Shape& view_shape, const std::vector<int64_t>& view_strides,
                                       const Shape& shape) {
  const size_t r = shape.rank(), xr = view_shape.rank();
  std::vector<int64_t> s(r, 0);
  for (size_t i = 0; i < xr; ++i) {
    const size_t d = r - xr + i;
    s[d] = view_shape[i] == 1 ? 0 : view_strides[i];
  }
  return s;
}

Layout collapse(const Shape& shape, const std::vector<std::vector<int64_t>>& strides) {
  Layout l;
  l.strides.resize(strides.size());
  // Drop size-1 dims, then merge d into the dim before it when every operand steps through both as one.
  for (size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !l.shape.empty();
    for (size_t k = 0; merge && k < strides.size(); ++k) merge = l.strides[k].back() == strides[k][d] * shape[d];
    if (merge) {
      l.shape.back() *= shape[d];
      for (size_t k = 0; k < strides.size(); ++k) l.strides[k].back() = strides[k][d];
    } else {
      l.shape.push_back(shape[d]);
      for (size_t k = 0; k < strides.size(); ++k) l.strides[k].push_back(strides[k][d]);
    }
  }
  // 64-bit indices when the count or any operand's furthest offset reaches 2^31.
  const int64_t n = shape.num_elements();
  l.index64 = n >= (int64_t{1} << 31);
  for (const auto& s : l.strides) {
    int64_t span = 0;
    for (size_t d = 0; d < l.shape.size(); ++d) span += (l.shape[d] - 1) * (s[d] < 0 ? -s[d] : s[d]);
    if (span >= (int64_t{1} << 31)) l.index64 = true;
  }
  return l;
}

bool is_row_major(const Shape& shape, const std::vector<int64_t>& strides) {
  int64_t acc = 1;
  for (size_t d = shape.rank(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != acc) return false;
    acc *= shape[d];
  }
  return true;
}

void add_layout_defines(Defines& d, const std::vector<int>& modes, size_t rank, bool index64,
                        const std::vector<std::string>& names) {
  if (index64) d.emplace_back("INDEX64", "1");
  // RANK and the strides' positions matter to strided operands only: contiguous and broadcast launches
  // of any rank share one program.
  bool strided = false;
  for (size_t k = 0; k < names.size(); ++k) strided = strided || modes[k] == 2;
  if (strided) d.emplace_back("RANK", std::to_string(rank));
  for (size_t k = 0; k < names.size(); ++k) {
    d.emplace_back(names[k] + "_MODE", std::to_string(modes[k]));
    // Where operand k's strides start in the block, in idx_t units.
    d.emplace_back(names[k] + "_STRIDES", modes[k] == 2 ? std::to_string(rank * (k + 1)) : "0");
  }
}

std::vector<uint8_t> index_array(const std::vector<int64_t>& values, bool index64) {
  std::vector<uint8_t> out(values.size() * (index64 ? 8 : 4));
  for (size_t i = 0; i < values.size(); ++i) {
    if (index64) {
      std::memcpy(out.data() + i * 8, &values[i], 8);
    } else {
      const int32_t w = static_cast<int32_t>(values[i]);
      std::memcpy(out.data() + i * 4, &w, 4);
    }
  }
  return out;
}

std::vector<uint8_t> layout_block(const Layout& l) {
  std::vector<int64_t> values = l.shape;
  for (const auto& s : l.strides) values.insert(values.end(), s.begin(), s.end());
  return index_array(values, l.index64);
}

}  // namespace burn::gpu
