// The operands of the module ops (pool, conv, norm): float tensors, contiguous, of the input's dtype.
#pragma once

#include <string>

#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl::nn {

// `p` as a contiguous float tensor (a copy when it is a view), of dtype `*want` unless `want` is null;
// ValueError when absent, DTypeError naming the op and `what` for another dtype, Unsupported for f16/bf16
// (not yet) and for f64 without cl_khr_fp64.
inline ClPtr float_operand(const OpenClBackend& be, const Prim& p, const DType* want, const char* op,
                           const char* what) {
  if (!p) throw ValueError(op, std::string("the ") + what + " is missing");
  const ClPtr t = be.cl(p, op);
  if (!is_float(t->dtype()))
    throw DTypeError(op, std::string(what) + " must be a float tensor, got " + std::string(dtype_name(t->dtype())));
  if (want && t->dtype() != *want)
    throw DTypeError(op, std::string(what) + " is " + std::string(dtype_name(t->dtype())) + " but the input is " +
                             std::string(dtype_name(*want)));
  cl_type(t->dtype(), be.context().profile(), op);
  return be.contiguous(t, op);
}

// An optional parameter (weight, bias, running statistic): null stays null, else float_operand of `want`.
inline ClPtr optional_operand(const OpenClBackend& be, const Prim& p, DType want, const char* op, const char* what) {
  return p ? float_operand(be, p, &want, op, what) : nullptr;
}

}  // namespace burn::opencl::nn
