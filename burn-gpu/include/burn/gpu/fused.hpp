// The fusion code generator's shared part: a FusedProgram (burn/tensor/fused.hpp) becomes kernel text of
// burn's kernel dialect (README.md), each elementwise instruction the expression exprs.cpp gives the eager
// op, so a fused chain computes what the ops computed one at a time, in one launch, with only the outputs
// written to memory. Both GPU plugins run the elementwise kernel; the vulkan plugin builds its reduce and
// anchor kernels on emit_instr (burn-backend-vulkan/src/fused/).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "burn/gpu/exprs.hpp"
#include "burn/tensor/fused.hpp"

namespace burn::gpu {

// How a plugin spells what the generated text names beyond the dialect: its language (float literals) and
// each dtype's compute type (throwing Unsupported for a dtype the device lacks).
struct FusedSpelling {
  Dialect dialect = Dialect::Glsl;
  std::function<std::string(DType)> compute;
};

// The expression of a fused elementwise instruction (a cast included), or nothing.
std::optional<Expr> fused_expr(const FusedInstr& in, const std::vector<DType>& reg);

// The index of the program's reduce or anchor instruction, or code.size() when it has none.
size_t special_index(const FusedProgram& program);

// Whether every instruction but the one at `sk` (special_index) has an expression on its register dtypes
// and reads registers defined before it, and (after sk) no register of the prologue, whose values are gone.
bool instructions_generatable(const FusedProgram& program, size_t sk);

// The 2 x 64 bits of scalars of every instruction, in the order the generated kernel reads them (a norm's
// eps as its first).
std::vector<uint8_t> program_scalars(const FusedProgram& program);

// The dialect expression of a scalar of dtype d (its compute type) from the 64 bits at `bits`.
std::string decode_scalar(DType d, const std::string& bits);

// Instruction j as statements declaring r<num_inputs + j> from the r<args> in scope; word(k) is the kernel's
// expression of scalar word k (program_scalars).
void emit_instr(std::ostream& s, const FusedProgram& p, size_t j, const FusedSpelling& spelling,
                const std::function<std::string(size_t)>& word);

// The operand names of the elementwise kernel: input k is IN<k>, output m OUT<m>; the host gives each the
// operand defines of its dtype (X_T, X_C, ...) and the inputs' layout defines (X_MODE, X_STRIDES).
std::string fused_input(size_t k);
std::string fused_output(size_t m);

// The elementwise kernel of `program` (no reduce or anchor) in the dialect. Arguments, in this order: the
// tensor table `io` (PARAM_TENSOR_TABLE, the inputs then the outputs, TABLE_TENSOR each), the scalar words
// `scal` (program_scalars), `faults`, n (int64_t, the elements), the layout block `lay` of the inputs over
// the program's shape, tag (uint, the fault tag of a divisor). The text does not depend on the inputs'
// layout: OFFSET reads each input's mode.
std::string generate_elementwise(const FusedProgram& program, const FusedSpelling& spelling);

}  // namespace burn::gpu
