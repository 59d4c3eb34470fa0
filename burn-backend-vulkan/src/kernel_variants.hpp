// Every (kernel, defines) the launchers can produce for a device with given features: what the
// compile-everything test (tests/kernels_compile_test.cpp) compiles and validates with spirv-val, with no
// device. A launcher family adds its variants here, built by the same *_defines functions it runs with.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "runtime/compiler.hpp"
#include "runtime/profile.hpp"

namespace burn::vulkan {

struct KernelVariant {
  std::string kernel;     // kernels/<kernel>.comp, or the label of a generated kernel
  Defines defines;        // WG_X/WG_Y/WG_Z included
  std::string generated;  // the text of a generated kernel (empty for a .comp file)
};

std::vector<KernelVariant> kernel_variants(const DeviceFeatures& features);

}  // namespace burn::vulkan
