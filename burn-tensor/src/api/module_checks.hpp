// Private checks shared by the module-op api files (conv, pool, resample, norm): backward gradients
// and allocatable outputs (the shapes themselves: shape_rules.hpp).
#pragma once

#include <string>
#include <vector>

#include "checks.hpp"

namespace burn::api::detail {

// grad_out of a backward op: the input's device and dtype, and the forward output's shape `want`.
inline void check_grad_out(const H& x, const H& g, const Shape& want, const char* op) {
  same_device(x, g, op);
  if (g.prim->dtype() != x.prim->dtype())
    throw DTypeError(op, "grad_out is " + dt(g.prim->dtype()) + " but the input is " + dt(x.prim->dtype()));
  if (shape(g) != want)
    throw ShapeError(
        op, "grad_out has shape " + shape(g).to_string() + ", expected the output's shape " + want.to_string());
}

// The output of a module op must be countable and allocatable before a backend (or a DEFAULT body that
// builds host-side tap tables for it) starts: OutOfMemory / ShapeError naming the op otherwise.
inline void check_output(const Shape& out, const H& like, const char* op) {
  checked_bytes(out, dtype_size(like.prim->dtype()), op);
}

}  // namespace burn::api::detail
