// One kernel launch: the kernel's name, its defines (operand dtypes, the op, the index width) and its
// arguments in the order the kernel declares them (KERNEL_PARAMS ... KERNEL_MAIN), then the grid. Every op
// file launches through it, so none talks to the queue or the programs itself.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burn/gpu/layout.hpp"
#include "opencl_tensor.hpp"
#include "runtime/programs.hpp"

namespace burn::opencl {

// Element counts from here on need the kernels' 64-bit index type (INDEX64).
inline constexpr int64_t kIndex32 = int64_t{1} << 31;
// Work-groups a grid launch walks at most per axis (the kernels' loops cover the rest).
inline constexpr uint32_t kMaxGroups = 65535;

using gpu::Layout;

// The OpenCL C spelling of a dtype's storage and compute types ("uchar", "uint" for bool; "ushort", "float"
// for f16 and bf16, with the prelude's conversions between them); Unsupported naming the op, dtype and
// device when the device lacks it (f64 without cl_khr_fp64).
struct ClType {
  const char* storage;
  const char* compute;
  const char* from = nullptr;  // storage -> compute when not a cast: "b_f16_to_f32"
  const char* to = nullptr;    // any scalar -> storage when not a cast: "b_to_f16"
};
ClType cl_type(DType dtype, const DeviceProfile& profile, const char* op);

// Operand `name`'s name_T, name_C, name_FROM(v), name_TO(v) and the HAS_F64 switch.
void add_operand_defines(Defines& d, const std::string& name, DType dtype, const DeviceProfile& profile,
                         const char* op);

// Operand `name`'s defines for moving dtype's elements as bits (copies within a dtype, gathers): the int of
// its size (gpu::bits_dtype), a ushort for f16 and bf16 (a conversion would quiet a signalling NaN).
void add_bits_defines(Defines& d, const std::string& name, DType dtype, const DeviceProfile& profile, const char* op);

class Launch {
 public:
  Launch(Context& ctx, std::string_view kernel, const char* op) : ctx_(ctx), kernel_(kernel), op_(op) {
    defines_.reserve(8);
  }
  Launch& define(std::string name, std::string value = "1") {
    defines_.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  Launch& use(const Defines& d) {
    defines_.insert(defines_.end(), d.begin(), d.end());
    return *this;
  }
  // Defines that outlive the launch (a table built once per op and dtype), ahead of every other define,
  // looked up without a copy. One list per launch.
  Launch& use_shared(const Defines& d) {
    shared_ = &d;
    return *this;
  }
  // PARAM_TENSOR(name): the defines of t's dtype, its buffer and element offset.
  Launch& tensor(const std::string& name, const OpenClTensor& t, bool write) {
    add_operand_defines(defines_, name, t.dtype(), ctx_.profile(), op_);
    return buffer(t, write);
  }
  // PARAM_TENSOR(name) whose elements the kernel moves as bits (add_bits_defines).
  Launch& bits(const std::string& name, const OpenClTensor& t, bool write) {
    add_bits_defines(defines_, name, t.dtype(), ctx_.profile(), op_);
    return buffer(t, write);
  }
  // PARAM_TENSOR without defines (they came with use()).
  Launch& buffer(const OpenClTensor& t, bool write);
  // PARAM_TENSOR of an operand the kernel does not read (a null buffer).
  Launch& no_tensor() {
    mem(nullptr, false);
    return i64(0);
  }
  // PARAM_FAULTS: the context's fault block, or none.
  Launch& faults(bool used);
  Launch& i64(int64_t v) { return value(&v, sizeof v); }
  Launch& u64(uint64_t v) { return value(&v, sizeof v); }
  Launch& u32(uint32_t v) { return value(&v, sizeof v); }
  Launch& i32(int32_t v) { return value(&v, sizeof v); }
  Launch& f32(float v) { return value(&v, sizeof v); }
  Launch& f64(double v) { return value(&v, sizeof v); }
  // PARAM_INDEX: the layout's block ([shape | strides...] as idx_t) uploaded for this launch; layout() also
  // sets its modes and rank (layout_args).
  Launch& layout(const Layout& l, const std::vector<std::string>& names);
  // The operands' modes and the rank as the kernel's leading arguments (prelude.clh's burn_modes and
  // burn_rank), with the defines that read them: name_MODE and name_STRIDES by operand slot, the same text
  // for every layout; INDEX64 (it changes idx_t) and STRIDED (some operand is strided) stay defines, so two
  // programs serve every layout.
  Launch& layout_args(const std::vector<int>& modes, size_t rank, bool index64, const std::vector<std::string>& names);
  Launch& layout_block(const Layout& l);
  // PARAM_INDEX of any index array (idx_t of 64 bits when `index64`), uploaded for this launch.
  Launch& index_block(const std::vector<int64_t>& values, bool index64);
  // PARAM_TENSOR of a host array (tables of plain values) uploaded for this launch, element offset 0; its
  // defines come with use().
  Launch& array(std::vector<uint8_t> bytes) {
    upload(std::move(bytes));
    return i64(0);
  }
  // PARAM_WORDS: 64-bit words (a generated kernel's scalars) uploaded for this launch.
  Launch& words(std::vector<uint8_t> bytes) { return upload(std::move(bytes)); }
  // Runs `text` (a generated kernel, e.g. a fused program) instead of the kernel named at construction.
  Launch& generated(std::string text) {
    text_ = std::move(text);
    return *this;
  }
  // PARAM_INDEX the kernel does not read (a null buffer).
  Launch& no_index() {
    mem(nullptr, false);
    return *this;
  }
  // Every work-item of a 1-D grid covering n elements (gid()/gstride() in the prelude).
  void run_1d(int64_t n);
  // `groups` work-groups of `local` work-items (the kernel's WG_X, which this defines), up to 64K groups:
  // kernels that take an item per work-group walk the rest by group_stride().
  void run_groups(int64_t groups, size_t local);
  // A 3-D grid of groups[0] x groups[1] x groups[2] work-groups of wg_x x wg_y work-items (the kernel's WG_X
  // and WG_Y, which this defines; group_at(a), groups_at(a), lid_y() in the prelude).
  void run_grid(const std::array<size_t, 3>& groups, size_t wg_x, size_t wg_y);

 private:
  // An argument: a value of up to 8 bytes, a buffer (null: none), or blocks_[block] (its device copy is
  // found or uploaded at enqueue).
  struct Arg {
    enum Kind : uint8_t { value, mem, block } kind = value;
    uint8_t size = 0;
    uint32_t block_index = 0;
    uint64_t bits = 0;
    cl_mem buffer = nullptr;
  };
  Launch& value(const void* p, size_t n) {
    Arg a{Arg::value};
    a.size = static_cast<uint8_t>(n);
    std::memcpy(&a.bits, p, n);
    push(a);
    return *this;
  }
  // A read-only argument block: the context's cached copy, or a buffer of its own when larger than the
  // cache takes.
  Launch& upload(std::vector<uint8_t> block);
  void mem(cl_mem m, bool) {
    Arg a{Arg::mem};
    a.buffer = m;
    push(a);
  }

  void enqueue(size_t global, size_t local) { enqueue_nd(1, {global, 1, 1}, {local, 1, 1}); }
  void enqueue_nd(cl_uint dims, const std::array<size_t, 3>& global, const std::array<size_t, 3>& local);

  Context& ctx_;
  std::string kernel_;
  std::string text_;  // a generated kernel's text, or empty
  const char* op_;
  const Defines* shared_ = nullptr;
  Defines defines_;
  // The arguments in order: the first kInlineArgs in place, so that a launch allocates nothing for them.
  static constexpr size_t kInlineArgs = 24;
  void push(const Arg& a) {
    if (nargs_ < kInlineArgs)
      inline_args_[nargs_] = a;
    else
      more_args_.push_back(a);
    ++nargs_;
  }
  const Arg& arg(size_t i) const { return i < kInlineArgs ? inline_args_[i] : more_args_[i - kInlineArgs]; }
  std::array<Arg, kInlineArgs> inline_args_;
  std::vector<Arg> more_args_;
  size_t nargs_ = 0;
  std::vector<std::vector<uint8_t>> blocks_;
  std::vector<Allocation*> writes_;
  std::vector<AllocationPtr> keep_;  // blocks too large for the cache, alive until enqueued
  bool faults_ = false;
  uint32_t modes_ = 0;  // burn_modes: 2 bits per operand slot
  int32_t rank_ = 0;    // burn_rank
};

// What the fusion code generator adds to an anchor's launch (matmul, conv, conv_transpose; burn-gpu's
// generate_anchor_epilogue): the kernel's hook defines with the operand defines they read, `bind` setting the
// hook's arguments, and `index64`, the launch's index width, which the kernel takes as its own: the
// epilogue's layout block is written in it.
struct AnchorEpilogue {
  gpu::Defines defines;
  std::function<void(Launch&)> bind;
  bool index64 = false;
};

}  // namespace burn::opencl
