// The module-op kernel families (softmax, conv, pool, norm, resample, attention): each launcher's
// *_defines function, shared with the compile-everything test (kernel_variants.cpp) so that it compiles
// exactly what the ops run. Private to the plugin.
#pragma once

#include <functional>
#include <string>

#include "burn/gpu/attention.hpp"
#include "burn/gpu/conv.hpp"
#include "burn/gpu/norm.hpp"
#include "burn/tensor/backend.hpp"
#include "dispatch.hpp"
#include "runtime/compiler.hpp"
#include "runtime/profile.hpp"

namespace burn::vulkan {

namespace nn {
// Invocations of a workgroup that reduces one row (softmax rows, norm rows, channels): a power of two.
inline constexpr uint32_t kRowWorkgroup = 256;
}  // namespace nn

// burn-gpu/kernels/softmax.kernel: `rows` = a workgroup per row (tree reductions), else an invocation per lane.
Defines softmax_defines(DType dtype, bool log, bool rows, bool index64, const DeviceFeatures& features,
                        const std::string& device);

// burn-gpu/kernels/norm.kernel: the pass and shape of one launch (its switches are the kernel's flags
// argument, gpu::NormFlags; burn/gpu/norm.hpp).
using NormMode = gpu::NormPass;
struct NormVariant {
  NormMode mode;
  DType dtype;
  bool lanes = false;  // an invocation per row/parameter/channel instead of a workgroup (gpu::norm_lanes)
  bool index64 = false;
};
Defines norm_defines(const NormVariant& v, const DeviceFeatures& features, const std::string& device);

// burn-gpu/kernels/pool.kernel: the pass (a define) and switches (its flags argument) of one launch.
enum class PoolMode { max_fwd, avg_fwd, avg_bwd, max_bwd_check, max_bwd, max_bwd_serial };
struct PoolVariant {
  PoolMode mode;
  DType dtype;
  bool adaptive = false, with_indices = false, count_pad = false;
  DType index_dtype = DType::I64;  // the indices max_pool writes (i64) or a backward op reads (i64 or i32)
  bool index64 = false;
};
Defines pool_defines(const PoolVariant& v, const DeviceFeatures& features, const std::string& device);

// burn-gpu/kernels/resample.kernel: interpolate (forward) or interpolate_backward.
Defines resample_defines(DType dtype, bool backward, bool index64, const DeviceFeatures& features,
                         const std::string& device);

// burn-gpu/kernels/conv.kernel: the product (see the kernel's header; burn/gpu/conv.hpp), its GEMM shape and
// switches (the bias is the kernel's flags argument).
using gpu::ConvMode;
using gpu::ConvTiles;
// gpu::conv_tiles for the profile's type and limits.
ConvTiles conv_tiles(const DeviceProfile& profile, bool tiled, int64_t rows, int64_t cols, uint32_t acc_bytes);
struct ConvVariant {
  ConvMode mode;
  DType dtype;
  bool tiled = false;  // the shared-memory tiles (the profile's shared_memory_gemm), else register blocking
  bool index64 = false;
  ConvTiles tiles;
};
Defines conv_defines(const ConvVariant& v, const DeviceFeatures& features, const std::string& device);
// conv / conv_transpose as VulkanBackend's, each stored value passed through the fusion epilogue `e`.
class VulkanBackend;
Prim conv_with_epilogue(const VulkanBackend& be, Prim x, Prim weight, Prim bias, const ConvOptions& options,
                        const AnchorEpilogue& e);
Prim conv_transpose_with_epilogue(const VulkanBackend& be, Prim x, Prim weight, Prim bias,
                                  const ConvTransposeOptions& options, const AnchorEpilogue& e);

// burn-gpu/kernels/attention.kernel: gpu::attention_tiles for the profile's type and limits.
using AttentionShape = gpu::AttentionTiles;
AttentionShape attention_shape(const DeviceProfile& profile, int64_t e, int64_t ev, DType dtype);
Defines attention_defines(DType dtype, const AttentionShape& a, bool index64, const DeviceFeatures& features,
                          const std::string& device);

}  // namespace burn::vulkan
