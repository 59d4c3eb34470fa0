// The creation launchers' defines, shared with the compile-everything test (kernel_variants.cpp).
#pragma once

#include "runtime/compiler.hpp"

namespace burn::vulkan {

// kernels/random.comp for a target dtype, a KIND_* distribution and whether draws are computed in double.
Defines random_defines(DType dtype, const char* kind, bool r64);

}  // namespace burn::vulkan
