// The fusion code generator: a FusedProgram (burn/tensor/fused.hpp) of elementwise instructions becomes one
// GLSL kernel of the dialect, each instruction the expression exprs.cpp gives the eager op, so a fused chain
// computes what the ops computed one at a time, in one dispatch, with only the outputs written to memory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burn/tensor/fused.hpp"
#include "dispatch.hpp"

namespace burn::vulkan {

// Whether every instruction is elementwise with an expression for its dtypes on this device.
bool can_generate(const FusedProgram& program, const DeviceFeatures& features, const std::string& device);

// The kernel text for `program` whose inputs have the given layout modes (Layout::mode: 0 contiguous,
// 1 broadcast scalar, 2 strided); push block: io (input then output addresses), scalars (2 per
// instruction, as bits), faults, n, lay, tag.
std::string generate_elementwise(const FusedProgram& program, const std::vector<int>& input_modes,
                                 const DeviceFeatures& features, const std::string& device);

// The 2 x 64 bits of scalars of every instruction, in the order the generated kernel reads them.
std::vector<uint8_t> program_scalars(const FusedProgram& program);

}  // namespace burn::vulkan
