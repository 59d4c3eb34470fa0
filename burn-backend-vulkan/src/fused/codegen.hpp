// The vulkan plugin's side of the fusion code generator: a FusedProgram (burn/tensor/fused.hpp) becomes one
// kernel, each elementwise instruction the expression burn-gpu/src/exprs.cpp gives the eager op. Three shapes
// of program: elementwise (burn-gpu's generate_elementwise), a reduce instruction with its prologue and
// epilogue (burn-gpu's generate_reduce) and a matmul, conv or conv_transpose anchor with its epilogue (the
// EPILOGUE_STORE hook of burn-gpu/kernels/matmul.kernel, conv.kernel and kernels/matmul_coop.comp, burn-gpu's
// generate_anchor_epilogue), all in the dialect and shared with the opencl plugin.
#pragma once

#include <string>
#include <vector>

#include "burn/gpu/fused.hpp"
#include "burn/tensor/fused.hpp"
#include "dispatch.hpp"

namespace burn::vulkan {

// Whether every instruction has a kernel here for its dtypes on this device: elementwise instructions with
// an expression, at most one reduce (sum_dim, mean_dim, max_dim, min_dim, argmax, argmin, softmax,
// log_softmax, layer_norm, rms_norm) or one matmul, conv or conv_transpose anchor, with an epilogue that reads no
// prologue register.
bool can_generate(const FusedProgram& program, const DeviceFeatures& features, const std::string& device);

using gpu::program_scalars;
using gpu::special_index;

// The GLSL spelling of the generated kernels' types (glsl_type's compute types).
gpu::FusedSpelling spelling(const DeviceFeatures& features, const std::string& device);

// The kernel text of an elementwise `program` (burn-gpu's generate_elementwise); push block: io (input then
// output addresses), scal (2 words per instruction), faults, n, lay, tag. Its operands' defines come from
// add_fused_operand_defines (with the reduce's result, gpu::fused_result, in a reduce program), the inputs'
// modes from the layout (names IN0, IN1, ...).
std::string generate_elementwise(const FusedProgram& program, const DeviceFeatures& features,
                                 const std::string& device);
void add_fused_operand_defines(Defines& d, const FusedProgram& program, const DeviceFeatures& features,
                               const std::string& device);

using gpu::ReduceLaunch;
// The workgroup size of a tree launch.
inline constexpr uint32_t kFusedTreeGroup = 256;
// The kernel text for a reduce program (burn-gpu's generate_reduce with this device's folds); its operands'
// defines come from add_fused_operand_defines.
std::string generate_reduce(const FusedProgram& program, const ReduceLaunch& launch, const DeviceFeatures& features,
                            const std::string& device);

// A matmul, conv or conv_transpose anchor's epilogue (burn-gpu's generate_anchor_epilogue, shared with the
// opencl plugin) with its operand defines; `bind` and `index64` left to the caller.
AnchorEpilogue anchor_epilogue(const FusedProgram& program, size_t c_output, const std::vector<int>& input_modes,
                               size_t rank, const DeviceFeatures& features, const std::string& device);

}  // namespace burn::vulkan
