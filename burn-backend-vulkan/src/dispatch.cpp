// Launching kernels: dtype defines, layouts, push constants, grids.
#include "dispatch.hpp"

#include <algorithm>
#include <cstring>

#include "burn/tensor/error.hpp"

namespace burn::vulkan {

GlslType glsl_type(DType dtype, const Context& ctx, const char* op) {
  const DeviceFeatures& f = ctx.profile().features;
  auto unsupported = [&](const char* why) -> GlslType {
    throw Unsupported(op, std::string("dtype ") + std::string(dtype_name(dtype)) + " on Vulkan device " +
                              ctx.profile().name + ": " + why);
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
    case DType::BF16: return unsupported("bf16 is not supported by the Vulkan backend");
  }
  return unsupported("unknown dtype");
}

int Layout::mode(size_t k) const {
  const auto& s = strides[k];
  if (std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 0; })) return 1;
  if (shape.size() == 1 && s[0] == 1) return 0;
  return 2;
}

std::vector<int64_t> broadcast_strides(const VulkanTensor& x, const Shape& shape) {
  const size_t r = shape.rank(), xr = x.shape().rank();
  std::vector<int64_t> s(r, 0);
  for (size_t i = 0; i < xr; ++i) {
    const size_t d = r - xr + i;
    s[d] = x.shape()[i] == 1 ? 0 : x.strides()[i];
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

Dispatch::Dispatch(Context& ctx, std::string_view kernel, const char* op) : ctx_(ctx), kernel_(kernel), op_(op) {}

Dispatch& Dispatch::define(std::string name, std::string value) {
  defines_.emplace_back(std::move(name), std::move(value));
  return *this;
}

Dispatch& Dispatch::operand(const std::string& name, DType dtype, Allocation* alloc, bool write) {
  const GlslType t = glsl_type(dtype, ctx_, op_);
  define(name + "_T", t.storage);
  define(name + "_C", t.compute);
  define(name + "_BUF", t.buffer);
  if (dtype == DType::F64) define("HAS_F64");
  if (dtype == DType::F16) define("HAS_F16");
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

std::vector<uint8_t> Dispatch::index_array(const std::vector<int64_t>& values, bool index64) {
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

Dispatch& Dispatch::args(std::vector<uint8_t> bytes) {
  if (bytes.empty()) bytes.resize(8);  // a valid address even for an empty array
  const uint64_t later = 0;
  push_bytes(&later, 8, 8);  // the address is written at run()
  blocks_.emplace_back(push_size_ - 8, std::move(bytes));
  return *this;
}

Dispatch& Dispatch::layout(const Layout& l, const std::vector<std::string>& names) {
  const size_t r = l.rank();
  std::vector<int64_t> values = l.shape;
  for (const auto& s : l.strides) values.insert(values.end(), s.begin(), s.end());
  if (l.index64) define("INDEX64");
  define("RANK", std::to_string(r));
  for (size_t k = 0; k < names.size(); ++k) {
    define(names[k] + "_MODE", std::to_string(l.mode(k)));
    // Where operand k's strides start in the block, in idx_t units.
    define(names[k] + "_STRIDES", std::to_string(r * (k + 1)));
  }
  return args(index_array(values, l.index64));
}

void Dispatch::run(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> local) {
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
  const Pipeline& p = ctx_.pipelines().get(kernel_, defines_, local);
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
