// The fusion IR: which op kinds of the op table the stream records (generated from the table's
// memory-/compute-bound column, group and signature), and the recorded op itself.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/fused.hpp"
#include "burn/tensor/op_kinds.hpp"

namespace burn::fusion {

class FusionPrim;

namespace ir {

// An op kind of the IR: the table's elementwise ops (burn/tensor/op_kinds.hpp).
constexpr bool fusable(OpId op) { return is_elementwise(op); }

// The reductions over one dim and the row norms the stream also records (when their input is pending
// in the segment), so that a plan can end a run with them: the executor's reduce instructions
// (burn/tensor/fused.hpp). A norm's weight and bias are external arguments, possibly null.
constexpr bool reducible(OpId op) { return is_fused_reduce(op); }

static_assert(reducible(OpId::sum_dim) && reducible(OpId::argmax) && reducible(OpId::log_softmax) &&
              reducible(OpId::layer_norm) && !reducible(OpId::group_norm) && !reducible(OpId::sum) &&
              !reducible(OpId::var) && !reducible(OpId::cumsum));

// The compute-bound ops the stream records as the head of a run (the executor's anchor instructions):
// matmul, conv and conv_transpose of float tensors, run by the inner backend's kernel, followed by an elementwise
// epilogue over their output.
constexpr bool anchor(OpId op) { return is_fused_anchor(op); }

static_assert(anchor(OpId::matmul) && anchor(OpId::conv) && anchor(OpId::conv_transpose) &&
              !anchor(OpId::deform_conv2d) && !fusable(OpId::conv));

// reshape of a pending value (squeeze, unsqueeze and flatten reach the backend as reshape): recorded as
// a view, so that `linear(x).relu()` on a 3-D x (matmul of the flattened x, then a reshape back) keeps
// the activation in the matmul's epilogue. Pending values are contiguous, so a view is the same
// elements in the same order: in a fused program it is no instruction, and the ops after it are
// computed over the iteration shape before it.
constexpr bool view(OpId op) { return op == OpId::reshape; }

static_assert(view(OpId::reshape) && !view(OpId::permute) && !view(OpId::expand));

// An input of a recorded op: the value of an earlier op of the same segment, or a materialised
// primitive of the inner backend.
struct Arg {
  int32_t value = -1;
  Prim external;
};

struct PendingOp {
  OpId op = OpId::add;
  uint8_t n_in = 0, n_scalars = 0, n_params = 0;
  std::array<Arg, 3> in;
  std::array<Scalar, 2> scalars;
  std::array<double, 2> params{};
  DType param_dtype = DType::F32;
  uint32_t dim = 0;                                            // a reduction's dim, a norm's normalized dims
  std::shared_ptr<const ConvOptions> conv;                     // a conv anchor's normalised options
  std::shared_ptr<const ConvTransposeOptions> conv_transpose;  // a conv_transpose anchor's
  Shape shape;
  DType dtype = DType::F32;
  std::weak_ptr<FusionPrim> out;  // the user's handle; expired once nobody holds it
};

// Runs one recorded op on `inner` with the given inputs (its tensor parameters in order).
Prim run_one(Backend& inner, const PendingOp& op, Prims inputs);

}  // namespace ir
}  // namespace burn::fusion
