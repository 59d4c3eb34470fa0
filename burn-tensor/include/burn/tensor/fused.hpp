// The fused-elementwise executor interface: what the fusion decorator (burn-fusion) hands a backend that
// can run a whole chain of elementwise ops in one pass. A backend offers it through
// query_interface(kFusedElementwiseInterface); a backend without it gets the chain op by op.
//
// A FusedProgram is a small register machine over one iteration shape: register i < inputs.size()
// holds input i broadcast to `shape` (NumPy rules, any strides); each instruction applies one
// elementwise op of the op table to registers and writes a new register; every register listed in
// `outputs` is stored into a new contiguous tensor of `shape`. No register but the outputs is ever
// written to memory. The interface name carries a version: a change to these structs is a new name
// (version 2 added reduce instructions, version 3 anchor instructions; older versions are no longer
// asked for).
//
// Reduce instructions (version 2): one instruction of a program may be one of sum_dim, mean_dim,
// max_dim, min_dim, argmax, argmin (result of `shape` with `dim` of size 1; argmax/argmin give I64),
// softmax or log_softmax (result of `shape`), over `dim` of its one argument; or layer_norm (args x,
// weight, bias) or rms_norm (x, weight) over the last `dim` dims with params[0] = eps, where weight
// and bias are input registers read whole (the trailing shape, not broadcast) or kNoRegister when
// absent. The instructions before it are its prologue: they are computed per lane block and folded
// without being written out, unless listed in `outputs` (stored with `shape`). The instructions after
// it are its epilogue, over the reduce's result shape: they read inputs (broadcast to that shape), the
// reduce's register and each other, never a prologue register.
//
// Anchor instructions (version 3): the first instruction of a program may instead be matmul (args lhs,
// rhs), conv or conv_transpose (args x, weight, bias; bias kNoRegister when absent; `conv` or
// `conv_transpose` holds the normalised options), read whole from input registers (no broadcasting to `shape`); its
// result has `shape`. The instructions after it are its epilogue over `shape` (bias add, activation, residual add,
// ...), reading inputs, the anchor's register and each other. A program has at most one anchor or one reduce.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/module_options.hpp"

namespace burn {

inline constexpr std::string_view kFusedElementwiseInterface = "fused-elementwise-4";

// The ops a reduce instruction may be (version 2).
constexpr bool is_fused_reduce(OpId op) {
  return op == OpId::sum_dim || op == OpId::mean_dim || op == OpId::max_dim || op == OpId::min_dim ||
         op == OpId::argmax || op == OpId::argmin || op == OpId::softmax || op == OpId::log_softmax ||
         op == OpId::layer_norm || op == OpId::rms_norm;
}
// Whether a reduce instruction keeps its argument's shape (softmax, the norms) rather than making
// `dim` size 1.
constexpr bool fused_reduce_keeps_shape(OpId op) {
  return op == OpId::softmax || op == OpId::log_softmax || op == OpId::layer_norm || op == OpId::rms_norm;
}
// The compute-bound ops an anchor instruction may be (version 3).
constexpr bool is_fused_anchor(OpId op) { return op == OpId::matmul || op == OpId::conv || op == OpId::conv_transpose; }
// An absent optional operand of a reduce instruction (a norm without weight or bias).
inline constexpr uint16_t kNoRegister = 0xFFFF;

// One instruction: `out` = op(args...) with the op's non-tensor parameters (scalars, doubles, the cast
// target) as recorded. The tensor parameters of the op, in table order, are args[0..n_args).
struct FusedInstr {
  OpId op;
  uint16_t out = 0;
  uint16_t args[3] = {0, 0, 0};
  uint8_t n_args = 0;
  DType param_dtype = DType::F32;  // cast's target
  Scalar scalars[2];
  double params[2] = {0.0, 0.0};
  uint32_t dim = 0;                     // a reduce instruction's dim
  ConvOptions conv;                     // a conv anchor's options, normalised (one value per spatial dim)
  ConvTransposeOptions conv_transpose;  // a conv_transpose anchor's, likewise
};

struct FusedProgram {
  Shape shape;                    // the iteration space: every elementwise instruction's result has this shape
  std::vector<DType> reg_dtype;   // one per register: inputs first, then one per instruction
  size_t num_inputs = 0;          // registers [0, num_inputs) are loads of the inputs
  std::vector<FusedInstr> code;   // instruction k writes register num_inputs + k
  std::vector<uint16_t> outputs;  // registers stored, one new tensor each, in this order
};

class BURN_TENSOR_API FusedExecutor {
 public:
  virtual ~FusedExecutor();
  // Whether every op of the program runs here on its register dtypes; the caller runs the program op
  // by op otherwise. Asked while planning, where the program has no shape yet (plans are shape-free).
  virtual bool can_run(const FusedProgram& program) const = 0;
  // Whether the program, its shape now set, fits the device's limits (a reduction line longer than the
  // driver lets a kernel walk); asked before each run, the caller runs the program op by op otherwise.
  virtual bool fits(const FusedProgram& program) const = 0;
  // Whether `p` is a primitive of this backend (a decorator in between may wrap primitives).
  virtual bool owns(const Primitive& p) const = 0;
  // Runs the program; inputs[i] has dtype reg_dtype[i] and a shape that broadcasts to program.shape.
  // Returns one tensor per entry of `outputs`.
  virtual Prims run(const FusedProgram& program, const Prims& inputs) = 0;
};

}  // namespace burn
