// One kernel launch: the kernel's name, its defines (operand dtypes, the op, the index width), push
// constants, the slices it reads and writes, and the grid. Shared by every op file and the fused
// executor, so that no op file talks to the stream or the pipelines itself.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/compiler.hpp"
#include "runtime/context.hpp"
#include "vulkan_tensor.hpp"

namespace burn::vulkan {

// The GLSL spelling of a dtype's storage and compute types and buffer ("float", "float", "BufF32");
// Unsupported naming the op, dtype and device when the device lacks it (f64 without shaderFloat64,
// f16 without shaderFloat16, bf16 anywhere).
struct GlslType {
  const char* storage;
  const char* compute;
  const char* buffer;
};
GlslType glsl_type(DType dtype, const Context& ctx, const char* op);

// The strides of a set of views over one iteration shape, with dims merged where every operand allows
// it and size-1 dims dropped, so most launches index with one dim or none.
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
// Operand x's strides over `shape` (broadcast: leading dims added, size-1 dims given stride 0).
std::vector<int64_t> broadcast_strides(const VulkanTensor& x, const Shape& shape);

class Dispatch {
 public:
  Dispatch(Context& ctx, std::string_view kernel, const char* op);
  Dispatch& define(std::string name, std::string value = "1");
  // Operand `name`: defines name_T, name_C and name_BUF for its dtype and records its slice's access.
  Dispatch& operand(const std::string& name, DType dtype, Allocation* alloc, bool write);
  Dispatch& operand(const std::string& name, const VulkanTensor& t, bool write) {
    return operand(name, t.dtype(), &t.allocation(), write);
  }
  // operand() and its address pushed: a tensor field `ADDR name` of the kernel's Push block.
  Dispatch& tensor(const std::string& name, const VulkanTensor& t, bool write) {
    operand(name, t, write);
    return push_u64(t.address());
  }
  // Appends raw push-constant bytes at `alignment` (the kernel's Push block order and std430 rules).
  Dispatch& push_bytes(const void* data, uint32_t bytes, uint32_t alignment);
  Dispatch& push_u64(uint64_t v) { return push_bytes(&v, 8, 8); }
  Dispatch& push_i64(int64_t v) { return push_bytes(&v, 8, 8); }
  Dispatch& push_i32(int32_t v) { return push_bytes(&v, 4, 4); }
  Dispatch& push_f32(float v) { return push_bytes(&v, 4, 4); }
  Dispatch& push_f64(double v) { return push_bytes(&v, 8, 8); }
  // A layout's shape and operand strides copied into argument memory: [shape | strides_0 | strides_1 ...]
  // as idx_t (32- or 64-bit by layout.index64, which this also defines as INDEX64); pushes its address
  // and defines RANK and <names[k]>_MODE.
  Dispatch& layout(const Layout& l, const std::vector<std::string>& names);
  // A per-dispatch array copied into argument memory at run(); pushes its address (8 bytes).
  Dispatch& args(std::vector<uint8_t> bytes);
  // `values` as an array of idx_t (int64 when `index64`, else int32), for args().
  static std::vector<uint8_t> index_array(const std::vector<int64_t>& values, bool index64);
  // Every invocation of a 1-D grid covering n elements (gid()/gstride() in the prelude).
  void run_1d(int64_t n, uint32_t workgroup = 256);
  // An explicit grid of workgroups.
  void run(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> local);

  Context& context() const { return ctx_; }

 private:
  Context& ctx_;
  std::string kernel_;
  const char* op_;
  Defines defines_;
  std::vector<Access> accesses_;
  std::array<uint8_t, kPushBytes> push_{};
  uint32_t push_size_ = 0;
  // Argument blocks: where in push_ each one's address goes (written at run()) and its bytes.
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> blocks_;
};

}  // namespace burn::vulkan
