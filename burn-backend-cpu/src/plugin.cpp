// The cpu plugin's entry point and its kernels' dtype support table (f16/bf16: see half_backend.cpp).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "ops/blas.hpp"

namespace burn::cpu {
namespace {

// The cpu backend drives one device; `burn devices` prints its list() under the backend, so the line says
// which OpenBLAS kernels the GEMM runs. "cpu:<anything>" stays the error it is for any one-device backend.
class OneDevice final : public DeviceSelector {
 public:
  BackendPtr select(std::string_view arg) override {
    throw DeviceError("Device::get", "'cpu:" + std::string(arg) + "': the cpu backend drives one device; use 'cpu'");
  }
  std::vector<std::string> list() override { return {describe(blas_info())}; }
};

}  // namespace

bool CpuBackend::supports(OpId op, DType dtype) const {
  const bool f = dtype == DType::F32 || dtype == DType::F64;
  const bool num = f || dtype == DType::I64 || dtype == DType::I32;
  const bool computing = num || dtype == DType::Bool;
  const OpGroup group = op_info(op).group;
  switch (op) {
    // Data movement copies raw element bits, so it works for every dtype (f16/bf16 included).
    case OpId::empty:
    case OpId::full:
    case OpId::from_data:
    case OpId::into_data:
    case OpId::cast:
    case OpId::gather:
    case OpId::select:
    case OpId::mask_where:
    case OpId::mask_fill:
    case OpId::argwhere:
    case OpId::embedding: return true;
    case OpId::random: return computing;
    case OpId::quantized_linear: return dtype == DType::F32;  // x's dtype; f16/bf16 through the half decorator
    case OpId::matmul_integer: return dtype == DType::U8 || dtype == DType::I8;  // a's dtype
    case OpId::arange: return num;
    case OpId::scatter_add:
    case OpId::select_add: return num;
    case OpId::any:
    case OpId::all:
    case OpId::any_dim:
    case OpId::all_dim: return computing;
    default: break;
  }
  switch (group) {
    case OpGroup::layout: return true;
    case OpGroup::boolean: return dtype == DType::Bool;
    case OpGroup::bitwise: return is_int(dtype);
    case OpGroup::float_math:
    case OpGroup::activation: return f;
    case OpGroup::numeric:
    case OpGroup::reduce: return num;
    default: return computing;
  }
}

void* CpuBackend::query_interface(std::string_view name) {
  if (name == "memory") return &storage_stats();
  if (name == kFusedElementwiseInterface) return &fused_executor();
  if (name == kDeviceSelectorInterface) {
    static OneDevice device;
    return static_cast<DeviceSelector*>(&device);
  }
  return Backend::query_interface(name);
}

}  // namespace burn::cpu

namespace {

// CpuBackend inside the decorator that runs f16/bf16 ops through the f32 kernels (half_backend.cpp).
std::unique_ptr<burn::Backend> make_plugin_backend() { return burn::cpu::make_cpu_backend(); }
int32_t cpu_score() { return 100; }

}  // namespace

BURN_BACKEND_PLUGIN("cpu", "0.1.0", make_plugin_backend, cpu_score)
