// GLSL to SPIR-V with the glslang library, the kernels' defines prepended. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burn/gpu/layout.hpp"

namespace burn::vulkan {

using Defines = gpu::Defines;

// The text glslang compiles: "#version 460", the defines, the dialect (prelude and math), then the kernel:
// kernels/<kernel_name>.comp, or `kernel_text` when given (a generated kernel).
std::string assemble_source(std::string_view kernel_name, const Defines& defines, std::string_view kernel_text = {});

// SPIR-V 1.5 for Vulkan 1.2. DeviceError naming the kernel, the defines and glslang's log (with the
// failing line quoted) when the source does not compile.
std::vector<uint32_t> compile_glsl(std::string_view kernel_name, const std::string& source, const Defines& defines);

// The glslang version (part of the SPIR-V cache key).
std::string compiler_version();

}  // namespace burn::vulkan
