// The gather and scatter launchers of burn-gpu/kernels/indexing.kernel, shared by the indexing ops (gather,
// select, scatter_add, select_add) and the embedding ops, and the define builders of the indexing kernels
// (indexing.kernel, argwhere.kernel), which the compile-everything test (kernel_variants.cpp) calls too.
// Private to the plugin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/compiler.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

// Invocations per workgroup: the scatter kernel's (an invocation per line), argwhere's (a tile of
// kArgwhereGroup x kArgwherePer elements per workgroup). Gathers run the default 1-D grid.
inline constexpr uint32_t kScatterGroup = 64;
inline constexpr uint32_t kArgwhereGroup = 256;
inline constexpr uint32_t kArgwherePer = 4;

// Every define of the gather kernel moving elements of `dtype` (as raw bits of its width) by `index`
// (i64 or i32) indices: layout modes of I and X over `rank` dims, 32- or 64-bit offsets.
Defines gather_defines(DType dtype, DType index, const std::vector<int>& modes, size_t rank, bool index64,
                       const DeviceFeatures& features, const std::string& device, const char* op);
// Every define of the scatter kernel summing `dtype` values by `index` indices: layout modes of I, V and
// Y over `rank` dims. DTypeError naming `op` for a dtype that does not add (bool), Unsupported for one
// the device lacks.
Defines scatter_defines(DType dtype, DType index, const std::vector<int>& modes, size_t rank, bool index64,
                        const DeviceFeatures& features, const std::string& device, const char* op);

// argwhere's passes: count each tile's nonzeros, scan the counts (one workgroup), write the coordinates.
enum class ArgwherePass { count, scan, write };
// Every define of burn-gpu/kernels/argwhere.kernel for one pass over X of `dtype`, seen through its own `dims`
// dims in layout mode `x_mode` (the scan pass reads only the counts: dtype, dims and mode unused).
Defines argwhere_defines(ArgwherePass pass, DType dtype, int x_mode, size_t dims, bool index64,
                         const DeviceFeatures& features, const std::string& device);

// DTypeError naming `op` unless the indices are i64 or i32.
void check_index_dtype(const VulkanTensor& idx, const char* op);

// A new contiguous tensor of idx's shape: element i is x[.., idx[i], ..] along `dim`, x's other dims
// indexed as i's. An index outside [0, x.shape[dim]) is a device fault naming `op` and "<what> of size".
VkPtr run_gather(const VulkanBackend& be, const VkPtr& x, size_t dim, const VkPtr& idx, const char* op,
                 const std::string& what);

// out (contiguous) += values scattered along `dim` by idx (idx and values of one shape): one invocation
// per line along `dim` sums in index order, as the cpu backend does. Faults as run_gather.
void run_scatter(const VulkanBackend& be, const VkPtr& out, size_t dim, const VkPtr& idx, const VkPtr& values,
                 const char* op, const std::string& what);

// A view of the 1-D `idx` over `shape`, stepping along `dim` only (0 strides elsewhere).
VkPtr along_dim(const VkPtr& idx, const Shape& shape, size_t dim);

}  // namespace burn::vulkan
