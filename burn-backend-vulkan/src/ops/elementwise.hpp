// Running one elementwise op of the table (exprs.hpp) over broadcast inputs: the shared body of the
// numeric, compare, boolean and float_math op files. Private to the plugin.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "burn/gpu/exprs.hpp"
#include "runtime/compiler.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

// op(inputs..., s0, s1) into a new contiguous tensor of the inputs' broadcast shape, or into an input's
// buffer when the caller moved in its only handle. Unsupported naming the op, dtype and device when the
// expression table has no entry for the inputs' dtype.
Prim elementwise(const VulkanBackend& be, OpId op, std::initializer_list<Prim> inputs, Scalar s0 = {}, Scalar s1 = {});

// Every define of the elementwise kernel for `op` on `dtype` with these operand layout modes (the launcher
// above and the compile-everything test use it).
Defines elementwise_defines(OpId op, DType dtype, const std::vector<int>& modes, size_t rank, bool index64,
                            const DeviceFeatures& features, const std::string& device);

// Exact comparisons of int tensors with float scalars (burn-gpu, shared with the opencl plugin).
using gpu::int_compare_scalar;

}  // namespace burn::vulkan
