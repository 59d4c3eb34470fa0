// The GEMM kernels (burn-gpu/kernels/matmul.kernel's register-blocked and tiled ones, kernels/matmul_coop.comp)
// and how a device's profile picks one and its tile sizes. Private to the plugin; the unit tests and the
// measurement use matmul_with to run each kernel on one device.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dispatch.hpp"
#include "runtime/compiler.hpp"

#include "vulkan_backend.hpp"

namespace burn::vulkan {

enum class GemmKernel {
  register_blocked,    // every invocation reads A and B directly (CPU-type devices)
  shared_tiled,        // the workgroup stages tiles of A and B in shared memory (GPUs)
  cooperative_matrix,  // f16: the staged tiles multiplied on cooperative matrices (VK_NV_cooperative_matrix)
};
const char* gemm_kernel_name(GemmKernel k);
// The kernel's source: "matmul" (burn-gpu/kernels/matmul.kernel) or "matmul_coop" (kernels/matmul_coop.comp).
const char* gemm_source(GemmKernel k);

// The kernel the profile selects for `dtype`: cooperative matrices for f16 where the device has them with
// an f16 shape (DeviceLimits::coopmat_f16) and their tiles fit its limits, else the tiled one unless the
// quirk table or BURN_VULKAN_DISABLE switched shared_memory_gemm off.
GemmKernel gemm_kernel(const DeviceProfile& profile, DType dtype);

// A kernel's shape: a workgroup of wg_x x wg_y invocations, each computing tm x tn outputs (a tile of
// wg_y * tm rows by wg_x * tn columns); the tiled kernels step K by bk. The cooperative-matrix kernel: a
// workgroup of sg_m x sg_n subgroups (wg_x invocations), each summing wm x wn matrices of cm[0] x cm[1]
// over steps of cm[2].
struct GemmTiles {
  uint32_t wg_x = 0, wg_y = 0, tm = 0, tn = 0, bk = 0;
  std::array<uint32_t, 3> cm{};
  uint32_t sg_m = 0, sg_n = 0, wm = 0, wn = 0;
  // The rows and columns of C one workgroup computes.
  uint32_t block_rows() const { return cm[0] ? sg_m * wm * cm[0] : wg_y * tm; }
  uint32_t block_cols() const { return cm[0] ? sg_n * wn * cm[1] : wg_x * tn; }
  // Shared memory the kernel declares, in bytes.
  uint64_t shared_bytes(uint32_t acc_bytes) const;
};
// Sized to the device's limits (invocations per workgroup, workgroup size, shared memory) for sums of
// `acc_bytes` (4 or 8); for cooperative_matrix, all zeros when the device's shape or limits do not allow it.
GemmTiles gemm_tiles(const DeviceProfile& profile, GemmKernel kernel, uint32_t acc_bytes);

// What a caller may add to a launch: the body of the kernels' EPILOGUE(acc, z, row, col) hook (an expression,
// burn-gpu/kernels/matmul.kernel), the fusion code generator's epilogue (its EPILOGUE_STORE hook), and for
// tests a grid smaller than the device's (0: the device's maxComputeWorkGroupCount), so that walking the rest
// is tested cheaply.
struct GemmOptions {
  std::string epilogue;
  AnchorEpilogue fused;
  std::array<uint32_t, 3> max_groups{};
};

// DTypeError for a dtype the GEMM kernels do not take (bool, i8, u8, bf16), Unsupported for one the device
// lacks.
void check_gemm_dtype(DType dtype, const DeviceFeatures& features, const std::string& device);

// Every define of the GEMM kernel's source for one launch (the launcher and the compile-everything test);
// check_gemm_dtype's errors.
Defines gemm_defines(DType dtype, GemmKernel kernel, const GemmTiles& tiles, const std::vector<int>& batch_modes,
                     size_t batch_rank, bool index64, const std::string& epilogue, const DeviceFeatures& features,
                     const std::string& device);

// lhs [..., M, K] x rhs [..., K, N] with broadcast batch dims (as the cpu backend), any views read in place,
// on the given kernel. VulkanBackend::matmul is matmul_with(gemm_kernel(...)).
Prim matmul_with(const VulkanBackend& be, Prim lhs, Prim rhs, GemmKernel kernel, const GemmOptions& options = {});

}  // namespace burn::vulkan
