// The fold of a reduction or scan on one dtype: the reduce and scan kernels' defines (ACC, INIT, STEP,
// LIFT, FINISH; BETTER for argmax/argmin; SUBGROUP_OP where the device has sub-group arithmetic) in OpenCL C, and the
// dtypes of the result and the partial states. supports() asks it too. Private to the plugin.
#pragma once

#include <string>

#include "opencl_backend.hpp"

namespace burn::opencl {

enum class ReduceKind { Plain, Arg };
struct ReduceSpec {
  const char* op;  // the op named in errors
  ReduceKind kind = ReduceKind::Plain;
  DType in{}, out{}, acc{};
  std::string acc_cl, init, step, lift, finish, better, subgroup;
};
// The spec of `fold` (sum, sum_dim, prod, max_dim, argmax, any, ...) on `dtype`; errors name `op`:
// DTypeError for a dtype the fold does not take, Unsupported for one the device lacks.
ReduceSpec reduce_spec(OpId fold, DType dtype, const DeviceProfile& profile, const char* op);

}  // namespace burn::opencl
