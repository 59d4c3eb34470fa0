// OpenClBackend::supports(op, dtype), asked of the launchers' own checks: the device's dtypes (cl_type),
// then the expression table for the elementwise ops, the reduce specs for the reductions and scans; views,
// fills, copies, gathers and argwhere move every dtype the device has; sorts take the dtypes a comparison
// takes. The DEFAULT ops the plugin does not override are not claimed (their composites are not checked here yet).
#include <algorithm>
#include <iterator>
#include <optional>

#include "burn/gpu/exprs.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"
#include "ops/reduce.hpp"

namespace burn::opencl {

namespace {

constexpr OpId kOwnOps[] = {BURN_OPENCL_OPS(BURN_OP_ID_OF)};

template <size_t N>
bool in(const OpId (&list)[N], OpId op) {
  return std::find(std::begin(list), std::end(list), op) != std::end(list);
}

}  // namespace

bool OpenClBackend::supports(OpId op, DType dtype) const {
  if (!in(kOwnOps, op)) return false;
  try {
    cl_type(dtype, ctx_->profile(), op_info(op).name);
  } catch (const Unsupported&) {
    return false;
  }
  if (op == OpId::matmul) return is_float(dtype) || dtype == DType::I64 || dtype == DType::I32;
  if (op == OpId::gather || op == OpId::select || op == OpId::argwhere) return true;  // they move bits or test them
  if (op == OpId::arange) return dtype != DType::Bool;  // arange_length refuses a range of bool
  if (op == OpId::softmax || op == OpId::log_softmax) return is_float(dtype);
  if (op == OpId::sort || op == OpId::argsort || op == OpId::topk) {
    try {
      reduce_spec(OpId::max_dim, dtype, ctx_->profile(), op_info(op).name);  // the dtypes a comparison takes
      return true;
    } catch (const Error&) {
      return false;
    }
  }
  if (op == OpId::scatter_add || op == OpId::select_add) return dtype != DType::Bool;
  if (op_info(op).group == OpGroup::pool || op_info(op).group == OpGroup::conv || op_info(op).group == OpGroup::norm ||
      op_info(op).group == OpGroup::resample || op_info(op).group == OpGroup::attention)
    return is_float(dtype);
  switch (op_info(op).group) {
    case OpGroup::creation:
    case OpGroup::layout: return true;
    case OpGroup::reduce: {
      // The scans fold as their reductions; reduce_spec throws for a dtype the fold does not take.
      const OpId fold = op == OpId::cumsum    ? OpId::sum_dim
                        : op == OpId::cumprod ? OpId::prod_dim
                        : op == OpId::cummax  ? OpId::max_dim
                        : op == OpId::cummin  ? OpId::min_dim
                                              : op;
      try {
        reduce_spec(fold, dtype, ctx_->profile(), op_info(op).name);
        return true;
      } catch (const Error&) {
        return false;
      }
    }
    default: return gpu::elementwise_expr(op, dtype, gpu::Bf16::as_float).has_value();
  }
}

}  // namespace burn::opencl
