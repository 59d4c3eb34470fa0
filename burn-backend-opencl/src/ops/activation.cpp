// The activation ops: each is its expression (burn/gpu/exprs.hpp) run by the elementwise launcher, defined by
// the GPU backends' shared op glue (burn/gpu/elementwise_ops.hpp). softmax and log_softmax:
// burn-gpu/kernels/softmax.kernel (the vulkan plugin's too).
#include <string>

#include "burn/gpu/elementwise_ops.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "ops/elementwise.hpp"

namespace burn::opencl {

BURN_GPU_ACTIVATION_OPS(OpenClBackend)

namespace {
// A workgroup per long row (gpu::AroundDim::by_rows): 64 work-items, the size every other launch uses.
constexpr size_t kRowGroup = 64;

Prim softmax_op(const OpenClBackend& be, Prim x, size_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  const ClPtr in = be.cl(x, op);
  x.reset();
  if (!is_float(in->dtype()))
    throw DTypeError(
        op, "input must be a float tensor (f32, f64, f16 or bf16), got " + std::string(dtype_name(in->dtype())));
  const ClPtr t = be.contiguous(in, op);
  const Shape& s = t->shape();
  const gpu::AroundDim a = gpu::around_dim(s, dim, op);
  ClPtr out = be.alloc(s, t->dtype(), op);
  if (s.num_elements() == 0) return out;
  Launch lc(be.context(), "softmax", op);
  if (log) lc.define("LOG");
  if (a.by_rows) lc.define("ROWS");
  if (s.num_elements() >= (int64_t{1} << 31)) lc.define("INDEX64");
  lc.tensor("X", *t, false).tensor("Y", *out, true).i64(a.rows).i64(a.n).i64(a.inner);
  if (a.by_rows)
    lc.run_groups(a.rows, kRowGroup);
  else
    lc.run_1d(a.rows * a.inner);
  return out;
}
}  // namespace

Prim OpenClBackend::softmax(Prim x, size_t dim) { return softmax_op(*this, std::move(x), dim, false); }
Prim OpenClBackend::log_softmax(Prim x, size_t dim) { return softmax_op(*this, std::move(x), dim, true); }

}  // namespace burn::opencl
