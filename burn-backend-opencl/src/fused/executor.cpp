// The OpenCL backend's fused executor (burn/tensor/fused.hpp): an elementwise chain runs as one launch of
// the kernel burn-gpu's code generator writes in the dialect, built through the program cache like every
// kernel. Programs with a reduce or an anchor are refused (the vulkan plugin's reduce and anchor generators
// are GLSL of their own, burn-backend-opencl/README.md), so burn-fusion cuts them and runs those ops one by
// one, fusing the elementwise pieces around them.
#include "fused/executor.hpp"

#include "burn/gpu/fused.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"

namespace burn::opencl {

namespace {

constexpr size_t kMaxInputs = 16, kMaxTensors = 48;

gpu::FusedSpelling spelling(const DeviceProfile& profile) {
  return {gpu::Dialect::OpenCl, [&profile](DType d) { return std::string(cl_type(d, profile, "fusion").compute); }};
}

}  // namespace

bool OpenClFusedExecutor::can_run(const FusedProgram& p) const {
  if (p.code.empty() || p.reg_dtype.size() != p.num_inputs + p.code.size()) return false;
  if (gpu::special_index(p) < p.code.size()) return false;
  // burn_modes holds 2 bits per input; each tensor is 16 bytes of arguments, which OpenCL bounds by
  // CL_DEVICE_MAX_PARAMETER_SIZE (at least 1024 bytes): longer programs are cut by burn-fusion.
  if (p.num_inputs > kMaxInputs || p.num_inputs + p.outputs.size() > kMaxTensors) return false;
  try {
    for (DType d : p.reg_dtype) cl_type(d, backend_.context().profile(), "fusion");
  } catch (const Error&) {
    return false;
  }
  // An output is a register of the program (an input stored again included).
  for (uint16_t o : p.outputs)
    if (o >= p.reg_dtype.size()) return false;
  return gpu::instructions_generatable(p, p.code.size());
}

bool OpenClFusedExecutor::owns(const Primitive& p) const {
  const auto* t = dynamic_cast<const OpenClTensor*>(&p);
  return t && &t->context() == &backend_.context();
}

Prims OpenClFusedExecutor::run(const FusedProgram& p, const Prims& inputs) {
  if (inputs.size() != p.num_inputs)
    throw Error("fusion",
                "a fused program of " + std::to_string(p.num_inputs) + " inputs got " + std::to_string(inputs.size()));
  if (gpu::special_index(p) < p.code.size())
    throw Error("fusion", "internal: the opencl fused executor got a program with a reduce or an anchor");
  Context& ctx = backend_.context();
  std::vector<ClPtr> in;
  std::vector<gpu::View> views;
  for (const Prim& x : inputs) {
    in.push_back(backend_.cl(x, "fusion"));
    views.push_back(view_of(*in.back()));
  }
  Prims outs;
  std::vector<ClPtr> out;
  for (uint16_t o : p.outputs) {
    out.push_back(backend_.alloc(p.shape, p.reg_dtype[o], "fusion"));
    outs.push_back(out.back());
  }
  const int64_t n = p.shape.num_elements();
  if (n == 0) return outs;

  bool faults = false;
  for (const FusedInstr& i : p.code) faults = faults || gpu::fused_expr(i, p.reg_dtype)->faults;
  gpu::Layout l = gpu::broadcast_layout(p.shape, views);
  l.index64 = l.index64 || n >= kIndex32;
  std::vector<std::string> names;
  std::vector<int> modes;
  for (size_t k = 0; k < in.size(); ++k) {
    names.push_back(gpu::fused_input(k));
    modes.push_back(l.mode(k));
  }
  Launch lc(ctx, "fused", "fusion");
  for (const DType d : p.reg_dtype)
    if (d == DType::F64) lc.define("HAS_F64");  // registers between the operands may be f64 (casts)
  lc.layout_args(modes, l.rank(), l.index64, names);
  for (size_t k = 0; k < in.size(); ++k) lc.tensor(names[k], *in[k], false);
  for (size_t m = 0; m < out.size(); ++m) lc.tensor(gpu::fused_output(m), *out[m], true);
  lc.words(gpu::program_scalars(p));
  lc.faults(faults);
  lc.i64(n);
  lc.layout_block(l);
  lc.u32(faults ? ctx.fault_tag("fusion", "a divisor") : 0);
  lc.generated(gpu::generate_elementwise(p, spelling(ctx.profile())));
  lc.run_1d(n);
  return outs;
}

}  // namespace burn::opencl
