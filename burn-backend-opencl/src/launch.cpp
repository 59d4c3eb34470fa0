// Launching kernels: dtype defines, arguments, layouts, grids.
#include "launch.hpp"

#include <algorithm>
#include <mutex>

#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "runtime/fault_injection.hpp"

namespace burn::opencl {

ClType cl_type(DType dtype, const DeviceProfile& p, const char* op) {
  auto unsupported = [&](const char* why) -> ClType {
    throw Unsupported(
        op, std::string("dtype ") + std::string(dtype_name(dtype)) + " on OpenCL device " + p.name + ": " + why);
  };
  switch (dtype) {
    case DType::F32: return {"float", "float"};
    case DType::F64:
      if (!p.fp64) return unsupported("no cl_khr_fp64");
      return {"double", "double"};
    case DType::I64: return {"long", "long"};
    case DType::I32: return {"int", "int"};
    case DType::I8: return {"char", "int"};
    case DType::U8: return {"uchar", "int"};
    case DType::Bool: return {"uchar", "uint"};
    // 16-bit floats: their bits in a ushort, computed as float (prelude.clh's conversions; docs/decisions.md).
    case DType::F16: return {"ushort", "float", "b_f16_to_f32", "b_to_f16"};
    case DType::BF16: return {"ushort", "float", "b_bf16_to_f32", "b_to_bf16"};
  }
  return unsupported("unknown dtype");
}

void add_operand_defines(Defines& d, const std::string& name, DType dtype, const DeviceProfile& p, const char* op) {
  const ClType t = cl_type(dtype, p, op);
  d.emplace_back(name + "_T", t.storage);
  d.emplace_back(name + "_C", t.compute);
  d.emplace_back(name + "_FROM(v)", t.from ? std::string(t.from) + "(v)" : std::string("((") + t.compute + ")(v))");
  d.emplace_back(name + "_TO(v)", t.to ? std::string(t.to) + "(v)" : std::string("((") + t.storage + ")(v))");
  if (dtype == DType::F64 && std::none_of(d.begin(), d.end(), [](const auto& kv) { return kv.first == "HAS_F64"; }))
    d.emplace_back("HAS_F64", "1");
}

void add_bits_defines(Defines& d, const std::string& name, DType dtype, const DeviceProfile& p, const char* op) {
  if (dtype != DType::F16 && dtype != DType::BF16) return add_operand_defines(d, name, gpu::bits_dtype(dtype), p, op);
  d.emplace_back(name + "_T", "ushort");
  d.emplace_back(name + "_C", "uint");
  d.emplace_back(name + "_FROM(v)", "((uint)(v))");
  d.emplace_back(name + "_TO(v)", "((ushort)(v))");
}

Launch& Launch::buffer(const OpenClTensor& t, bool write) {
  mem(t.allocation().mem(), write);
  if (write) writes_.push_back(&t.allocation());
  return i64(t.offset());
}

Launch& Launch::faults(bool used) {
  faults_ = used;
  mem(used ? ctx_.faults() : nullptr, true);
  return *this;
}

Launch& Launch::layout(const Layout& l, const std::vector<std::string>& names) {
  std::vector<int> modes;
  for (size_t k = 0; k < names.size(); ++k) modes.push_back(l.mode(k));
  layout_args(modes, l.rank(), l.index64, names);
  return layout_block(l);
}

Launch& Launch::layout_args(const std::vector<int>& modes, size_t rank, bool index64,
                            const std::vector<std::string>& names) {
  if (names.size() > 16) throw Unsupported(op_, "kernel '" + kernel_ + "' has more than 16 layout operands");
  if (index64) define("INDEX64");
  if (std::find(modes.begin(), modes.end(), 2) != modes.end()) define("STRIDED");
  modes_ = 0;
  for (size_t k = 0; k < names.size(); ++k) {
    modes_ |= static_cast<uint32_t>(modes[k] & 3) << (2 * k);
    define(names[k] + "_MODE", "BURN_MODE(" + std::to_string(k) + ")");
    // Operand k's strides follow the shape and the k operands before it in the block.
    define(names[k] + "_STRIDES", "BURN_STRIDES(" + std::to_string(k + 1) + ")");
  }
  rank_ = static_cast<int32_t>(rank);
  return *this;
}

Launch& Launch::layout_block(const Layout& l) { return upload(gpu::layout_block(l)); }

Launch& Launch::index_block(const std::vector<int64_t>& values, bool index64) {
  return upload(gpu::index_array(values, index64));
}

Launch& Launch::upload(std::vector<uint8_t> block) {
  if (block.empty()) block.resize(8);  // a valid buffer even for a rank-0 layout or an empty array
  Arg a{Arg::block};
  a.block_index = static_cast<uint32_t>(blocks_.size());
  blocks_.push_back(std::move(block));
  push(a);
  return *this;
}

void Launch::run_1d(int64_t n) {
  if (n <= 0) return;
  // Work-groups of one fixed size (drivers such as PoCL compile a kernel per work-group size), up to 64K
  // work-items; the kernels' grid-stride loops cover the rest.
  const size_t local = std::min<size_t>(64, ctx_.profile().max_work_group);
  const auto items = static_cast<size_t>(std::min<int64_t>(n, int64_t{1} << 16));
  enqueue((items + local - 1) / local * local, local);
}

void Launch::run_groups(int64_t groups, size_t local) {
  if (groups <= 0) return;
  if (local > ctx_.profile().max_work_group)
    throw Unsupported(op_, "kernel '" + kernel_ + "' needs work-groups of " + std::to_string(local) +
                               " work-items; the OpenCL device " + ctx_.profile().name + " allows " +
                               std::to_string(ctx_.profile().max_work_group));
  define("WG_X", std::to_string(local));
  enqueue(static_cast<size_t>(std::min<int64_t>(groups, int64_t{1} << 16)) * local, local);
}

void Launch::run_grid(const std::array<size_t, 3>& groups, size_t wg_x, size_t wg_y) {
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
  if (wg_x * wg_y > ctx_.profile().max_work_group)
    throw Unsupported(op_, "kernel '" + kernel_ + "' needs work-groups of " + std::to_string(wg_x * wg_y) +
                               " work-items; the OpenCL device " + ctx_.profile().name + " allows " +
                               std::to_string(ctx_.profile().max_work_group));
  define("WG_X", std::to_string(wg_x));
  define("WG_Y", std::to_string(wg_y));
  enqueue_nd(3, {groups[0] * wg_x, groups[1] * wg_y, groups[2]}, {wg_x, wg_y, 1});
}

void Launch::enqueue_nd(cl_uint dims, const std::array<size_t, 3>& global, const std::array<size_t, 3>& local) {
  ctx_.throw_if_lost(op_);  // before building anything for a device that runs nothing more
  std::lock_guard lock(ctx_.launch_mutex());
  static const Defines kNone;
  cl_kernel k = ctx_.programs().get(kernel_, shared_ ? *shared_ : kNone, defines_, op_, text_);
  // burn_modes and burn_rank, every kernel's first two arguments (prelude.clh).
  cl_check(clSetKernelArg(k, 0, sizeof modes_, &modes_), op_, "clSetKernelArg");
  cl_check(clSetKernelArg(k, 1, sizeof rank_, &rank_), op_, "clSetKernelArg");
  cl_uint i = 2;
  for (size_t n = 0; n < nargs_; ++n) {
    const Arg& a = arg(n);
    cl_int err = CL_SUCCESS;
    if (a.kind == Arg::value) {
      err = clSetKernelArg(k, i, a.size, &a.bits);
    } else if (a.kind == Arg::mem) {
      err = clSetKernelArg(k, i, sizeof(cl_mem), a.buffer ? &a.buffer : nullptr);
    } else {
      cl_mem m = ctx_.argument_block(blocks_[a.block_index], op_, keep_);
      err = clSetKernelArg(k, i, sizeof(cl_mem), &m);
    }
    if (err != CL_SUCCESS)
      throw DeviceError(op_, "kernel '" + kernel_ + "' argument " + std::to_string(i) +
                                 ": clSetKernelArg failed: " + cl_error_name(err));
    ++i;
  }
  const int end = 0;  // KERNEL_MAIN's closing parameter
  cl_check(clSetKernelArg(k, i, sizeof end, &end), op_, "clSetKernelArg");
  cl_event e = nullptr;
  cl_event gate = ctx_.gate();
  const bool injected = fault_injected(Fault::device_lost);
  const cl_int err = injected ? CL_INVALID_COMMAND_QUEUE
                              : clEnqueueNDRangeKernel(ctx_.queue(), k, dims, nullptr, global.data(), local.data(),
                                                       gate ? 1 : 0, gate ? &gate : nullptr, &e);
  // CL_OUT_OF_RESOURCES at an enqueue is also a kernel the device cannot fit (registers, local memory): not a
  // lost device (docs/decisions.md); the next wait tells a device that faulted.
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES)
    throw OutOfMemory(op_, "the OpenCL device " + ctx_.profile().name + " could not run kernel '" + kernel_ +
                               "': " + cl_error_name(err));
  ctx_.check_enqueue(err, op_, "clEnqueueNDRangeKernel", injected);
  for (Allocation* w : writes_) w->set_last_write(e);
  if (faults_) ctx_.faulting_kernel(e);
  ++ctx_.counters().launches;
  clReleaseEvent(e);
  ctx_.launched();
}

}  // namespace burn::opencl
