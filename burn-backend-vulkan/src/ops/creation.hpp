// The creation launchers' defines, shared with the compile-everything test (kernel_variants.cpp).
#pragma once

#include <string>

#include "burn/tensor/dtype.hpp"
#include "runtime/compiler.hpp"
#include "runtime/profile.hpp"

namespace burn::vulkan {

// burn-gpu/kernels/arange.kernel for a target dtype (bool stores value != 0).
Defines arange_defines(DType dtype, const DeviceFeatures& features, const std::string& device);

// Unsupported for bf16 (random.kernel rounds draws through Y's storage type, which for bf16 holds bits) and
// for a dtype the device lacks.
void check_random_dtype(DType dtype, const DeviceFeatures& features, const std::string& device);
// burn-gpu/kernels/random.kernel for a target dtype, a KIND_* distribution and whether draws are computed in double
// (check_random_dtype's errors).
Defines random_defines(DType dtype, const char* kind, bool r64, const DeviceFeatures& features,
                       const std::string& device);

}  // namespace burn::vulkan
