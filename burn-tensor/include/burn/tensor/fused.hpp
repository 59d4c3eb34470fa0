// The fused-elementwise executor interface: what the fusion decorator (burn-fusion) hands a backend that
// can run a whole chain of elementwise ops in one pass. A backend offers it through
// query_interface(kFusedElementwiseInterface); a backend without it gets the chain op by op.
//
// A FusedProgram is a small register machine over one iteration shape: register i < inputs.size()
// holds input i broadcast to `shape` (NumPy rules, any strides); each instruction applies one
// elementwise op of the op table to registers and writes a new register; every register listed in
// `outputs` is stored into a new contiguous tensor of `shape`. No register but the outputs is ever
// written to memory. The interface name carries a version: a change to these structs is a new name.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "burn/tensor/backend.hpp"

namespace burn {

inline constexpr std::string_view kFusedElementwiseInterface = "fused-elementwise-1";

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
};

struct FusedProgram {
  Shape shape;                    // the iteration space: every instruction's result has this shape
  std::vector<DType> reg_dtype;   // one per register: inputs first, then one per instruction
  size_t num_inputs = 0;          // registers [0, num_inputs) are loads of the inputs
  std::vector<FusedInstr> code;   // instruction k writes register num_inputs + k
  std::vector<uint16_t> outputs;  // registers stored, one new tensor each, in this order
};

class BURN_TENSOR_API FusedExecutor {
 public:
  virtual ~FusedExecutor();
  // Whether every op of the program runs here on its register dtypes; the caller runs the program op
  // by op otherwise.
  virtual bool can_run(const FusedProgram& program) const = 0;
  // Whether `p` is a primitive of this backend (a decorator in between may wrap primitives).
  virtual bool owns(const Primitive& p) const = 0;
  // Runs the program; inputs[i] has dtype reg_dtype[i] and a shape that broadcasts to program.shape.
  // Returns one tensor per entry of `outputs`.
  virtual Prims run(const FusedProgram& program, const Prims& inputs) = 0;
};

}  // namespace burn
