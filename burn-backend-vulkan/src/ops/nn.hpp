// The module-op kernel families (softmax, conv, pool, norm, resample, attention): each launcher's
// *_defines function, shared with the compile-everything test (kernel_variants.cpp) so that it compiles
// exactly what the ops run. Private to the plugin.
#pragma once

#include <string>

#include "burn/tensor/backend.hpp"
#include "runtime/compiler.hpp"
#include "runtime/profile.hpp"

namespace burn::vulkan {

namespace nn {
// Invocations of a workgroup that reduces one row (softmax rows, norm rows, channels): a power of two.
inline constexpr uint32_t kRowWorkgroup = 256;
}  // namespace nn

// kernels/softmax.comp: `rows` = a workgroup per row (tree reductions), else an invocation per lane.
Defines softmax_defines(DType dtype, bool log, bool rows, bool index64, const DeviceFeatures& features,
                        const std::string& device);

}  // namespace burn::vulkan
