// The gather and scatter launchers of kernels/indexing.comp, shared by the indexing ops (gather, select,
// scatter_add, select_add) and the embedding ops. Private to the plugin.
#pragma once

#include <string>

#include "vulkan_backend.hpp"

namespace burn::vulkan {

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
