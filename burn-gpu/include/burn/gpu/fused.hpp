// The fusion code generator's shared part: a FusedProgram (burn/tensor/fused.hpp) becomes kernel text of
// burn's kernel dialect (README.md), each elementwise instruction the expression exprs.cpp gives the eager
// op, so a fused chain computes what the ops computed one at a time, in one launch, with only the outputs
// written to memory. Both GPU plugins run the elementwise and the reduce kernels and the anchors' epilogues.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "burn/gpu/exprs.hpp"
#include "burn/gpu/layout.hpp"
#include "burn/gpu/views.hpp"
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

// Whether the reduce instruction at `sk` is one generate_reduce writes: its operands and result of the eager
// op's dtypes (f32, f64, f16 for the float folds; i64 and i32 too for sum_dim, mean_dim, max_dim, min_dim,
// argmax and argmin), a norm's weight and bias inputs of its dtype, and every output a register computed
// in the kernel. The plugin checks that its eager fold takes the dtype on its device (reduce_spec).
bool reduce_generatable(const FusedProgram& program, size_t sk);

// Whether the anchor instruction at `sk` is one the epilogue generators take: the program's first, a matmul
// (lhs, rhs) or a conv / conv_transpose (x, weight, bias or none) reading inputs of the result's float dtype
// (f32, f64, f16), some output of that dtype (the kernel's own output), every output a register computed in
// the kernel.
bool anchor_generatable(const FusedProgram& program, size_t sk);

// The length of the lines the reduce instruction `red` of `program` folds: a norm's over its last `dim`
// dims, every other along `dim`.
int64_t reduce_line_length(const FusedProgram& program, const FusedInstr& red);

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

// The operand name of the reduce's result (a reduce kernel rounds it to its dtype as the eager op stored
// it: RES_FROM(RES_TO(v))); the host gives it the operand defines of that dtype.
std::string fused_result();

// Input k's offset for flat index `i` in the generated text: its mode (0 contiguous, 1 broadcast, 2 strided)
// over the layout block argument `lay` of `rank` dims (its strides after the shape, rank entries per input).
std::string fused_input_offset(int mode, size_t k, size_t rank, const std::string& lay, const std::string& i);

// A reduce program's launch: every input's layout mode over the program's shape (layout `lay`, `rank` dims)
// and over the reduce's result shape (`elay`, `erank`; reductions to size 1 only), -1 where the input is not
// read through that layout; `tree`: a workgroup of WG_X (a power of two) per line with workgroup trees
// (GPUs), else an invocation per line (CPU-type devices, short lines). The modes are in the kernel's text.
struct ReduceLaunch {
  std::vector<int> modes, emodes;
  size_t rank = 0, erank = 0;
  bool tree = false;
};

// What a plugin launches a reduce program with, from its inputs' views (a norm's weight and bias
// contiguous): the layouts `lay` and `elay` (the same index width, INDEX64 when set), the launch (tree
// false: the plugin chooses), the lines, their length n, their stride `inner`, and the shape of the
// reduce's result (that of the program for softmax and the norms).
struct ReducePlan {
  ReduceLaunch launch;
  Layout lay, elay;
  int64_t lines = 0, n = 0, inner = 1;
  Shape result_shape;
};
ReducePlan plan_reduce(const FusedProgram& program, const std::vector<View>& inputs);

// Which inputs the instructions in [from, to) read.
std::vector<bool> inputs_read(const FusedProgram& program, size_t from, size_t to);
// Each input's mode in layout l, -1 for those not `used`.
std::vector<int> modes_of(const Layout& l, const std::vector<bool>& used);

// The eager fold of sum_dim, mean_dim, max_dim, min_dim, argmax or argmin in the plugin's language (its
// reduce_spec): the accumulator's compute type, INIT, STEP(a, b) and FINISH(a) (which may read ARG(total),
// the line's length), or BETTER(v, w) for argmax and argmin. Unused for softmax and the norms.
struct FusedFold {
  std::string acc, init, step, finish, better;
};

// The kernel of a reduce program (burn-gpu/src/fused_reduce.cpp) in the dialect. Arguments, in this order:
// the tensor table `io` (inputs then outputs, as generate_elementwise), `scal` (program_scalars), `faults`,
// the layout blocks `lay` and `elay`, lines, total (elements per line), inner (the line's stride in the
// program's flat index) (int64_t each), tag (uint). The host defines WG_X (kFusedTreeGroup for a tree).
std::string generate_reduce(const FusedProgram& program, const ReduceLaunch& launch, const FusedFold& fold,
                            const FusedSpelling& spelling);

// A matmul, conv or conv_transpose anchor's epilogue as the defines of its kernel's hook (burn-gpu/kernels/
// matmul.kernel, conv.kernel; the vulkan plugin's matmul_coop.comp), each a single line: EPILOGUE_STORE(epi_v,
// epi_i), the statement the kernel runs at each element it stores (epi_v the sum, plus the bias for a conv;
// epi_i the flat index of its output, C or Y): the anchor's register as the eager op stored it, the epilogue's
// instructions, the other outputs stored, output `c_output` stored as the kernel's output; EPILOGUE_PUSH, its
// arguments after the kernel's own: the tensor table `io` (the inputs then the outputs; the unused ones and
// output c_output bound to nothing), `escal` (program_scalars), the layout block `elay` of the inputs over the
// program's shape (`input_modes`, -1 where unused, `rank` dims), `faults`, tag (uint); the table's slots;
// EPILOGUE_ONCE. The host gives the operand defines of IN<k>, OUT<m> and fused_result() (the anchor's dtype).
Defines generate_anchor_epilogue(const FusedProgram& program, size_t c_output, const std::vector<int>& input_modes,
                                 size_t rank, const FusedSpelling& spelling);

}  // namespace burn::gpu
