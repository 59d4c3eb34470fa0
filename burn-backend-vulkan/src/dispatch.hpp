// One kernel launch: the kernel's name, its defines (operand dtypes, the op, the index width), push
// constants, the slices it reads and writes, and the grid. Shared by every op file and the fused
// executor, so that no op file talks to the stream or the pipelines itself.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "burn/gpu/layout.hpp"
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
  const char* from = nullptr;  // storage -> compute when not a constructor (bf16)
  const char* to = nullptr;    // compute -> storage when not a constructor
  // "b_bf16_to_f32(x)" or "float(x)"; "b_f32_to_bf16(x)" or "float16_t(x)".
  std::string load(const std::string& x) const { return std::string(from ? from : compute) + "(" + x + ")"; }
  std::string store(const std::string& x) const { return std::string(to ? to : storage) + "(" + x + ")"; }
};
GlslType glsl_type(DType dtype, const DeviceFeatures& features, const std::string& device, const char* op);
inline GlslType glsl_type(DType dtype, const Context& ctx, const char* op) {
  return glsl_type(dtype, ctx.profile().features, ctx.profile().name, op);
}

// Define builders shared by the launchers and the compile-everything test (kernel_variants.hpp), so the
// test compiles exactly what the ops would: operand `name`'s name_T, name_C, name_BUF, name_FROM, name_TO
// and the HAS_* feature switch of its dtype; a layout's INDEX64, RANK (strided operands only) and each
// operand's name_MODE and name_STRIDES.
void add_operand_defines(Defines& d, const std::string& name, DType dtype, const DeviceFeatures& features,
                         const std::string& device, const char* op);

// Layouts of strided views (burn-gpu, shared with the opencl plugin).
using gpu::add_layout_defines;
using gpu::collapse;
using gpu::Layout;
// Operand x's strides over `shape` (gpu::broadcast_strides of its view).
std::vector<int64_t> broadcast_strides(const VulkanTensor& x, const Shape& shape);

class Dispatch {
 public:
  Dispatch(Context& ctx, std::string_view kernel, const char* op);
  Dispatch& define(std::string name, std::string value = "1");
  // Adds prebuilt defines (a launcher's *_defines function).
  Dispatch& use(const Defines& defines) {
    defines_.insert(defines_.end(), defines.begin(), defines.end());
    return *this;
  }
  // Pushes t's address and records its access, without defines (they came with use()).
  Dispatch& address(const VulkanTensor& t, bool write) {
    access(&t.allocation(), write);
    return push_u64(t.address());
  }
  // Operand `name`: defines name_T, name_C and name_BUF for its dtype and records its slice's access.
  Dispatch& operand(const std::string& name, DType dtype, Allocation* alloc, bool write);
  Dispatch& operand(const std::string& name, const VulkanTensor& t, bool write) {
    return operand(name, t.dtype(), &t.allocation(), write);
  }
  // Records that the dispatch reads or writes a slice (for barriers and deferred reuse).
  Dispatch& access(Allocation* alloc, bool write) {
    accesses_.push_back({alloc, write});
    return *this;
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
  // as idx_t (32- or 64-bit by layout.index64); pushes its address. layout() also adds its defines
  // (add_layout_defines); layout_block() only pushes, for launchers whose defines came with use().
  Dispatch& layout(const Layout& l, const std::vector<std::string>& names);
  Dispatch& layout_block(const Layout& l);
  // Runs `text` (a generated kernel, e.g. a fused program) instead of kernels/<kernel>.comp.
  Dispatch& generated(std::string text) {
    generated_ = std::move(text);
    return *this;
  }
  // A per-dispatch array copied into argument memory at run(), under the stream's lock; pushes its address
  // (8 bytes): tensor addresses or scalars of a generated kernel, index tables.
  Dispatch& args(std::vector<uint8_t> bytes);
  // `values` as an array of idx_t (int64 when `index64`, else int32), for args().
  static std::vector<uint8_t> index_array(const std::vector<int64_t>& values, bool index64) {
    return gpu::index_array(values, index64);
  }
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
  std::string generated_;
  // Argument blocks: where in push_ each one's address goes (written at run()) and its bytes.
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> blocks_;
};

// What the fusion code generator adds to an anchor's launch (matmul, conv, conv_transpose; burn-gpu's
// generate_anchor_epilogue): the kernel's hook defines with the operand defines they read, `bind` pushing the
// hook's arguments and recording its accesses, and `index64`, the launch's index width (anchor_index64), which
// the kernel takes as its own: the epilogue's layout block is written in it.
struct AnchorEpilogue {
  Defines defines;
  std::function<void(Dispatch&)> bind;
  bool index64 = false;
};

}  // namespace burn::vulkan
