// interpolate and interpolate_backward on the device (burn-gpu/kernels/resample.kernel, the vulkan plugin's
// kernel too; the plan is burn/gpu/resample.hpp): every mode (nearest, linear, cubic) over 1 to 3 spatial
// dims with the tap tables of sampling_taps.hpp's interp_taps, as the cpu backend; the backward gathers
// through the tables inverted per input position (no float atomics, deterministic). f32 and f64.
#include <algorithm>
#include <string>

#include "burn/gpu/resample.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"
#include "ops/nn_operands.hpp"

namespace burn::opencl {

namespace {

Prim run(const OpenClBackend& be, const ClPtr& x, const ClPtr& g, const Shape& output_size,
         const InterpolateOptions& options, bool backward, const char* op) {
  Context& ctx = be.context();
  const DeviceProfile& prof = ctx.profile();
  const Shape& s = x->shape();
  const gpu::ResamplePlan p =
      gpu::resample_plan(s, output_size, options, backward, op, "the OpenCL device " + prof.name);
  if (backward && g->shape() != p.out)
    throw ShapeError(op, "grad_out " + g->shape().to_string() + " does not match the output " + p.out.to_string());
  const ClPtr y = be.alloc(p.result, x->dtype(), op);
  if (p.ints.empty()) return y;
  const bool index64 = std::max(s.num_elements(), p.out.num_elements()) >= kIndex32;
  Launch lc(ctx, "resample", op);
  gpu::Defines d;
  for (const char* name : {"X", "G", "Y"}) add_operand_defines(d, name, x->dtype(), prof, op);
  // The tap weights: f64 for f64, else f32 (f16 and bf16 compute in f32).
  const bool w64 = x->dtype() == DType::F64;
  add_operand_defines(d, "W", w64 ? DType::F64 : DType::F32, prof, op);
  if (!backward) d.emplace_back("FORWARD", "1");
  if (index64) d.emplace_back("INDEX64", "1");
  lc.use(d);
  if (backward)
    lc.no_tensor().buffer(*g, false);
  else
    lc.buffer(*x, false).no_tensor();
  lc.buffer(*y, true).index_block(p.ints, index64).array(p.weight_bytes(w64));
  lc.i64(p.planes);
  for (int a = 0; a < 3; ++a) lc.i32(static_cast<int32_t>(p.in[a]));
  for (int a = 0; a < 3; ++a) lc.i32(static_cast<int32_t>(p.out_dims[a]));
  lc.run_1d(p.result.num_elements());
  return y;
}

}  // namespace

Prim OpenClBackend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) {
  const ClPtr t = nn::float_operand(*this, x, nullptr, "interpolate", "input");
  return run(*this, t, nullptr, output_size, options, false, "interpolate");
}

Prim OpenClBackend::interpolate_backward(Prim x, Prim grad_out, const Shape& output_size,
                                         const InterpolateOptions& options) {
  static constexpr const char* op = "interpolate_backward";
  if (!x) throw ValueError(op, "the input is missing");
  const ClPtr t = cl(x, op);  // its shape and dtype only
  const DType dt = t->dtype();
  const ClPtr g = nn::float_operand(*this, grad_out, &dt, op, "grad_out");
  return run(*this, t, g, output_size, options, true, op);
}

}  // namespace burn::opencl
