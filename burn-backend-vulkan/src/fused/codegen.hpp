// The vulkan plugin's side of the fusion code generator: a FusedProgram (burn/tensor/fused.hpp) becomes one
// kernel, each elementwise instruction the expression burn-gpu/src/exprs.cpp gives the eager op. Three shapes
// of program: elementwise (burn-gpu's generate_elementwise), a reduce instruction with its prologue and
// epilogue (burn-gpu's generate_reduce) and a conv or conv_transpose anchor with its epilogue
// (burn-gpu/kernels/conv.kernel's EPILOGUE_STORE hook, burn-gpu's generate_conv_epilogue), all in the dialect
// and shared with the opencl plugin, and a matmul anchor whose epilogue is kernels/matmul.comp's EPILOGUE hook
// (anchor_epilogue), GLSL around the shared instruction emission (burn-gpu's emit_instr).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "burn/gpu/fused.hpp"
#include "burn/tensor/fused.hpp"
#include "dispatch.hpp"
#include "ops/nn.hpp"

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

// A matmul anchor's epilogue for kernels/matmul.comp (EPILOGUE(acc, z, row, col)): the expression, the
// EPILOGUE_PUSH fields (eio: inputs then outputs, escal, elay, faults, tag) and the preamble function
// (matmul.comp's EPILOGUE_PREAMBLE), every one a single line (they are defines). Output `c_output` is the
// kernel's C; the function stores the others itself. GLSL: matmul.comp is the vulkan plugin's own kernel.
struct AnchorEpilogue {
  std::string expression, push, preamble;
};
AnchorEpilogue anchor_epilogue(const FusedProgram& program, size_t c_output, const std::vector<int>& input_modes,
                               size_t rank, const DeviceFeatures& features, const std::string& device);

// A conv or conv_transpose anchor's epilogue for burn-gpu/kernels/conv.kernel (burn-gpu's
// generate_conv_epilogue, shared with the opencl plugin) with its operand defines; `bind` left to the caller.
ConvEpilogue conv_epilogue(const FusedProgram& program, size_t c_output, const std::vector<int>& input_modes,
                           size_t rank, const DeviceFeatures& features, const std::string& device);

namespace codegen {
// Instruction j as GLSL statements declaring r<out> from the r<args> in scope (scalars from `sc`).
void emit_instr(std::ostream& s, const FusedProgram& p, size_t j, const DeviceFeatures& features,
                const std::string& device);
// `const T r<k> = <input k at offset>;` for input k, with its offset expression.
std::string load_input(const FusedProgram& p, size_t k, const std::string& offset, const DeviceFeatures& features,
                       const std::string& device);
// Input k's offset for flat index `i`: its mode over a layout at `lay` of `rank` dims.
std::string input_offset(int mode, size_t k, const std::string& rank, const std::string& lay, const std::string& i);
// `AT(...) = store(value)` of output m (io.v[num_inputs + m]) at index i.
std::string store_output(const FusedProgram& p, size_t m, const std::string& value, const std::string& i,
                         const DeviceFeatures& features, const std::string& device);
GlslType type_of(DType d, const DeviceFeatures& features, const std::string& device);
}  // namespace codegen

}  // namespace burn::vulkan
