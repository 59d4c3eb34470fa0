// Host helpers shared by the module-op launchers (activation's softmax, conv, pool, norm, resample,
// attention): float operand checks, sums' dtype, scalars pushed in the compute type, argument blocks,
// workgroup-per-item grids. Private to the plugin.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "dispatch.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan::nn {

// The dtype sums run in: f64 for f64, else f32 (f16 tensors accumulate in f32).
inline DType acc_dtype(DType d) { return d == DType::F64 ? DType::F64 : DType::F32; }

// The module ops' kernels compute in f32, f64 or f16 only: DTypeError naming the op and `what` otherwise
// (supports.cpp asks the same).
inline void require_float(DType d, const char* op, const char* what = "input") {
  if (d != DType::F32 && d != DType::F64 && d != DType::F16)
    throw DTypeError(
        op, std::string(what) + " must be a float tensor (f32, f64 or f16), got " + std::string(dtype_name(d)));
}

// `p` as a contiguous float tensor of this device (a copy when it is a view); DTypeError naming the op
// and `what` for a non-float dtype, Unsupported for one the device lacks.
inline VkPtr float_operand(const VulkanBackend& be, const Prim& p, const char* op, const char* what = "input") {
  const VkPtr t = be.vk(p, op);
  const DType d = t->dtype();
  require_float(d, op, what);
  glsl_type(d, be.context(), op);
  return be.contiguous(t, op);
}

// An optional parameter (weight, bias, running statistic): null stays null; else float_operand with the
// input's dtype.
inline VkPtr optional_operand(const VulkanBackend& be, const Prim& p, DType want, const char* op, const char* what) {
  if (!p) return nullptr;
  VkPtr t = float_operand(be, p, op, what);
  if (t->dtype() != want)
    throw DTypeError(op, std::string(what) + " is " + std::string(dtype_name(t->dtype())) + " but the input is " +
                             std::string(dtype_name(want)));
  return t;
}

// A scalar pushed in the sums' type of `d` (a float, or a double for f64): the kernel's ACC field.
inline void push_acc(Dispatch& dp, DType d, double v) {
  if (acc_dtype(d) == DType::F64)
    dp.push_f64(v);
  else
    dp.push_f32(static_cast<float>(v));
}

// The bytes of a vector of plain values, for Dispatch::block.
template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  if (b.empty()) b.resize(sizeof(T));  // a valid address even when empty
  return b;
}
// Values converted to the sums' type of `d` (float or double), as bytes for Dispatch::block.
inline std::vector<uint8_t> acc_bytes(const std::vector<double>& v, DType d) {
  if (acc_dtype(d) == DType::F64) return bytes_of(v);
  return bytes_of(std::vector<float>(v.begin(), v.end()));
}

// A 32-bit value for a kernel's int field; Unsupported naming the op when it does not fit.
inline int32_t i32(int64_t v, const char* op, const char* what) {
  if (v > INT32_MAX || v < INT32_MIN)
    throw Unsupported(op,
                      std::string(what) + " " + std::to_string(v) + " needs more than 32 bits on the Vulkan backend");
  return static_cast<int32_t>(v);
}

// `items` workgroups of `workgroup` invocations, one per item (a row, a channel); the kernel's
// group_id()/group_stride() loop covers items past the grid's limits.
inline void run_groups(Dispatch& dp, int64_t items, uint32_t workgroup, uint32_t wg_y = 1) {
  if (items <= 0) return;
  const auto& limits = dp.context().profile().limits;
  const int64_t gx = std::min<int64_t>(items, std::min<int64_t>(limits.max_workgroup_count[0], 65535));
  const int64_t gy = std::min<int64_t>((items + gx - 1) / gx, std::min<int64_t>(limits.max_workgroup_count[1], 1024));
  dp.run({static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1}, {workgroup, wg_y, 1});
}

// 64-bit indices when a tensor of `n` elements (or an offset as far) reaches 2^31.
inline bool needs_index64(int64_t n) { return n >= (int64_t{1} << 31); }

}  // namespace burn::vulkan::nn
