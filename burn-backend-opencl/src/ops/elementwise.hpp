// Running one elementwise op of the table (burn/gpu/exprs.hpp) over broadcast inputs: the launcher behind
// the shared op definitions (burn/gpu/elementwise_ops.hpp). Private to the plugin.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "burn/gpu/layout.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

// op(inputs..., s0, s1) into a new contiguous tensor of the inputs' broadcast shape, or into an input's
// buffer when the caller moved in its only handle. Unsupported naming the op, dtype and device when the
// expression table has no entry for the inputs' dtype.
Prim elementwise(const OpenClBackend& be, OpId op, std::initializer_list<Prim> inputs, Scalar s0 = {}, Scalar s1 = {});

// Every define of the elementwise kernel for `op` on `dtype` with `arity` operands (their layout is the
// launch's arguments: Launch::layout_args), built at the first call and kept for the process.
const gpu::Defines& elementwise_defines(OpId op, DType dtype, size_t arity, const DeviceProfile& profile);

}  // namespace burn::opencl
