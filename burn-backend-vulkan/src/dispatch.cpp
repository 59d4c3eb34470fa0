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

void add_layout_defines(Defines& d, const std::vector<int>& modes, size_t rank, bool index64,
                        const std::vector<std::string>& names) {
  if (index64) d.emplace_back("INDEX64", "1");
  // RANK and the strides' positions matter to strided operands only: contiguous and broadcast launches
  // of any rank share one pipeline.
  bool strided = false;
  for (size_t k = 0; k < names.size(); ++k) strided = strided || modes[k] == 2;
  if (strided) d.emplace_back("RANK", std::to_string(rank));
  for (size_t k = 0; k < names.size(); ++k) {
    d.emplace_back(names[k] + "_MODE", std::to_string(modes[k]));
    // Where operand k's strides start in the block, in idx_t units.
    d.emplace_back(names[k] + "_STRIDES", modes[k] == 2 ? std::to_string(rank * (k + 1)) : "0");
  }
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
  std::vector<int> modes;
  for (size_t k = 0; k < names.size(); ++k) modes.push_back(l.mode(k));
  add_layout_defines(defines_, modes, l.rank(), l.index64, names);
  return layout_block(l);
}

Dispatch& Dispatch::layout_block(const Layout& l) {
  std::vector<int64_t> values = l.shape;
  for (const auto& s : l.strides) values.insert(values.end(), s.begin(), s.end());
  return args(index_array(values, l.index64));
}

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
