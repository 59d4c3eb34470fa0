// Launching kernels: dtype defines, layouts, push constants, grids.
#include "dispatch.hpp"

#include <algorithm>
#include <cstring>

#include "burn/tensor/error.hpp"

namespace burn::vulkan {

GlslType glsl_type(DType dtype, const DeviceFeatures& f, const std::string& device, const char* op) {
  auto unsupported = [&](const char* why) -> GlslType {
    throw Unsupported(
        op, std::string("dtype ") + std::string(dtype_name(dtype)) + " on Vulkan device " + device + ": " + why);
  };
  switch (dtype) {
    case DType::F32: return {"float", "float", "BufF32"};
    case DType::F64:
      if (!f.float64) return unsupported("no shaderFloat64 (or switched off)");
      return {"double", "double", "BufF64"};
    case DType::F16:
      if (!f.float16) return unsupported("no shaderFloat16 with 16-bit storage (or switched off)");
      return {"float16_t", "float", "BufF16"};
    case DType::I64: return {"int64_t", "int64_t", "BufI64"};
    case DType::I32: return {"int", "int", "BufI32"};
    case DType::I8: return {"int8_t", "int", "BufI8"};
    case DType::U8: return {"uint8_t", "int", "BufU8"};
    case DType::Bool: return {"uint8_t", "uint", "BufU8"};
    case DType::BF16:
      if (!f.storage16) return unsupported("no 16-bit storage buffers with shaderInt16");
      return {"uint16_t", "float", "BufU16", "b_bf16_to_f32", "b_f32_to_bf16f"};
  }
  return unsupported("unknown dtype");
}

std::vector<int64_t> broadcast_strides(const VulkanTensor& x, const Shape& shape) {
  return gpu::broadcast_strides(x.shape(), x.strides(), shape);
}

Dispatch::Dispatch(Context& ctx, std::string_view kernel, const char* op) : ctx_(ctx), kernel_(kernel), op_(op) {}

Dispatch& Dispatch::define(std::string name, std::string value) {
  defines_.emplace_back(std::move(name), std::move(value));
  return *this;
}

void add_operand_defines(Defines& d, const std::string& name, DType dtype, const DeviceFeatures& features,
                         const std::string& device, const char* op) {
  const GlslType t = glsl_type(dtype, features, device, op);
  d.emplace_back(name + "_T", t.storage);
  d.emplace_back(name + "_C", t.compute);
  d.emplace_back(name + "_BUF", t.buffer);
  d.emplace_back(name + "_FROM(v)", t.load("v"));
  d.emplace_back(name + "_TO(v)", t.store("v"));
  d.emplace_back(name + "_SIZE", std::to_string(dtype_size(dtype)));
  if (dtype == DType::F64) d.emplace_back("HAS_F64", "1");
  if (dtype == DType::F16) d.emplace_back("HAS_F16", "1");
  if (dtype == DType::BF16) d.emplace_back("HAS_BF16", "1");
}

Dispatch& Dispatch::operand(const std::string& name, DType dtype, Allocation* alloc, bool write) {
  add_operand_defines(defines_, name, dtype, ctx_.profile().features, ctx_.profile().name, op_);
  if (alloc) accesses_.push_back({alloc, write});
  return *this;
}

Dispatch& Dispatch::push_bytes(const void* data, uint32_t bytes, uint32_t alignment) {
  const uint32_t at = (push_size_ + alignment - 1) / alignment * alignment;
  if (at + bytes > kPushBytes) throw Error(op_, "kernel '" + kernel_ + "' needs more than 128 bytes of push constants");
  std::memcpy(push_.data() + at, data, bytes);
  push_size_ = at + bytes;
  return *this;
}

Dispatch& Dispatch::args(std::vector<uint8_t> bytes) {
  if (bytes.empty()) bytes.resize(8);  // a valid address even for an empty array
  const uint64_t later = 0;
  push_bytes(&later, 8, 8);  // the address is written at run()
  blocks_.emplace_back(push_size_ - 8, std::move(bytes));
  return *this;
}

Dispatch& Dispatch::layout(const Layout& l, const std::vector<std::string>& names) {
  std::vector<int> modes;
  for (size_t k = 0; k < names.size(); ++k) modes.push_back(l.mode(k));
  add_layout_defines(defines_, modes, l.rank(), l.index64, names);
  return layout_block(l);
}

Dispatch& Dispatch::layout_block(const Layout& l) { return args(gpu::layout_block(l)); }

void Dispatch::run(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> local) {
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
  const Pipeline& p = generated_.empty() ? ctx_.pipelines().get(kernel_, defines_, local)
                                         : ctx_.pipelines().get_generated(kernel_, generated_, defines_, local);
  Stream& stream = ctx_.stream();
  std::lock_guard lock(stream.mutex());
  for (const auto& [slot, bytes] : blocks_) {
    const VkDeviceAddress a = ctx_.arguments(bytes.data(), static_cast<uint32_t>(bytes.size()));
    std::memcpy(push_.data() + slot, &a, 8);
  }
  stream.dispatch(p, push_.data(), kPushBytes, groups, accesses_);
}

void Dispatch::run_1d(int64_t n, uint32_t workgroup) {
  if (n <= 0) return;
  const auto& limits = ctx_.profile().limits;
  const int64_t groups = (n + workgroup - 1) / workgroup;
  // Up to maxComputeWorkGroupCount[0] x [1] groups; the kernels' grid-stride loops cover the rest.
  const int64_t gx_max = std::min<int64_t>(limits.max_workgroup_count[0], 65535);
  const int64_t gy_max = std::min<int64_t>(limits.max_workgroup_count[1], 1024);
  const int64_t gx = std::min(groups, gx_max);
  const int64_t gy = std::min((groups + gx - 1) / gx, gy_max);
  run({static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1}, {workgroup, 1, 1});
}

}  // namespace burn::vulkan
