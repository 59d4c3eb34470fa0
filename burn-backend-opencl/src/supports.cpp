// OpenClBackend::supports(op, dtype), asked of the launchers' own checks: the device's dtypes (cl_type),
// then the expression table for the elementwise ops; views, fills and copies move every dtype the device
// has; the pending ops (pending.cpp) and the DEFAULT ops the plugin does not override are not claimed
// (their composites call pending ops or are not checked yet).
#include <algorithm>
#include <iterator>
#include <optional>

#include "burn/gpu/exprs.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

namespace {

constexpr OpId kOwnOps[] = {BURN_OPENCL_OPS(BURN_OP_ID_OF)};
constexpr OpId kPending[] = {OpId::gather,   OpId::scatter_add, OpId::argwhere, OpId::matmul, OpId::sum_dim,
                             OpId::prod_dim, OpId::max_dim,     OpId::min_dim,  OpId::argmax, OpId::argmin,
                             OpId::cumsum,   OpId::cumprod,     OpId::cummax,   OpId::cummin, OpId::sort};

template <size_t N>
bool in(const OpId (&list)[N], OpId op) {
  return std::find(std::begin(list), std::end(list), op) != std::end(list);
}

}  // namespace

bool OpenClBackend::supports(OpId op, DType dtype) const {
  if (!in(kOwnOps, op) || in(kPending, op)) return false;
  try {
    cl_type(dtype, ctx_->profile(), op_info(op).name);
  } catch (const Unsupported&) {
    return false;
  }
  switch (op_info(op).group) {
    case OpGroup::creation:
    case OpGroup::layout: return true;
    default: return gpu::elementwise_expr(op, dtype).has_value();
  }
}

}  // namespace burn::opencl
