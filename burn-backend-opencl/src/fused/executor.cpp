// The OpenCL backend's fused executor (burn/tensor/fused.hpp): an elementwise chain, a reduce with its
// prologue and epilogue, or a matmul, conv or conv_transpose with its epilogue runs as one launch of the
// kernel burn-gpu's code generator writes in the dialect (the vulkan plugin runs the same text), built through
// the program cache like every kernel. A matmul anchor of a dtype CLBlast runs is refused
// (burn-backend-opencl/README.md), so burn-fusion runs the matmul by itself and fuses the elementwise ops
// after it.
#include "fused/executor.hpp"

#include <algorithm>

#include "burn/gpu/fused.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"
#include "opencl_backend.hpp"
#include "ops/anchors.hpp"
#include "ops/reduce.hpp"

namespace burn::opencl {

namespace {

constexpr size_t kMaxInputs = 16, kMaxTensors = 48;

// A tree launch's work-group: the eager kernels' size (ops/activation.cpp), a power of two.
constexpr size_t kTreeGroup = 64;

gpu::FusedSpelling spelling(const DeviceProfile& profile) {
  return {gpu::Dialect::OpenCl, [&profile](DType d) { return std::string(cl_type(d, profile, "fusion").compute); }};
}

// A reduce instruction the shared generator writes, whose eager fold this device has for its dtype.
bool reduce_ok(const FusedProgram& p, size_t k, const DeviceProfile& profile) {
  if (!gpu::reduce_generatable(p, k)) return false;
  const FusedInstr& in = p.code[k];
  if (fused_reduce_keeps_shape(in.op)) return true;
  try {
    reduce_spec(in.op, p.reg_dtype[in.args[0]], profile, "fusion");
  } catch (const Error&) {
    return false;
  }
  return true;
}

// Operand defines of the program's inputs, outputs and (a reduce or anchor program) its result.
Defines operand_defines(const FusedProgram& p, const DeviceProfile& profile) {
  Defines d;
  for (size_t k = 0; k < p.num_inputs; ++k)
    add_operand_defines(d, gpu::fused_input(k), p.reg_dtype[k], profile, "fusion");
  for (size_t m = 0; m < p.outputs.size(); ++m)
    add_operand_defines(d, gpu::fused_output(m), p.reg_dtype[p.outputs[m]], profile, "fusion");
  const size_t sk = gpu::special_index(p);
  if (sk < p.code.size())
    add_operand_defines(d, gpu::fused_result(), p.reg_dtype[p.num_inputs + sk], profile, "fusion");
  // Registers between the operands may be f64 (casts).
  const bool f64 = std::find(p.reg_dtype.begin(), p.reg_dtype.end(), DType::F64) != p.reg_dtype.end();
  if (f64 && std::none_of(d.begin(), d.end(), [](const auto& kv) { return kv.first == "HAS_F64"; }))
    d.emplace_back("HAS_F64", "1");
  return d;
}

}  // namespace

bool OpenClFusedExecutor::can_run(const FusedProgram& p) const {
  if (p.code.empty() || p.reg_dtype.size() != p.num_inputs + p.code.size()) return false;
  const size_t sk = gpu::special_index(p);
  if (sk < p.code.size()) {
    const OpId op = p.code[sk].op;
    // CLBlast's GEMM has no epilogue hook (docs/decisions.md): where it runs the dtype, the matmul runs alone.
    if (op == OpId::matmul && clblast_runs(backend_, p.reg_dtype[p.num_inputs])) return false;
    if (is_fused_anchor(op) ? !gpu::anchor_generatable(p, sk) : !reduce_ok(p, sk, backend_.context().profile()))
      return false;
  }
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
  return gpu::instructions_generatable(p, sk);
}

bool OpenClFusedExecutor::owns(const Primitive& p) const {
  const auto* t = dynamic_cast<const OpenClTensor*>(&p);
  return t && &t->context() == &backend_.context();
}

Prims OpenClFusedExecutor::run(const FusedProgram& p, const Prims& inputs) {
  if (inputs.size() != p.num_inputs)
    throw Error("fusion",
                "a fused program of " + std::to_string(p.num_inputs) + " inputs got " + std::to_string(inputs.size()));
  const size_t sk = gpu::special_index(p);
  if (sk < p.code.size()) {
    return is_fused_anchor(p.code[sk].op) ? run_anchor(p, inputs) : run_reduce(p, inputs);
  }
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
  lc.use(operand_defines(p, ctx.profile()));
  lc.layout_args(modes, l.rank(), l.index64, names);
  for (size_t k = 0; k < in.size(); ++k) lc.buffer(*in[k], false);
  for (size_t m = 0; m < out.size(); ++m) lc.buffer(*out[m], true);
  lc.words(gpu::program_scalars(p));
  lc.faults(faults);
  lc.i64(n);
  lc.layout_block(l);
  lc.u32(faults ? ctx.fault_tag("fusion", "a divisor") : 0);
  lc.generated(gpu::generate_elementwise(p, spelling(ctx.profile())));
  lc.run_1d(n);
  return outs;
}

Prims OpenClFusedExecutor::run_reduce(const FusedProgram& p, const Prims& inputs) {
  Context& ctx = backend_.context();
  const size_t rk = gpu::special_index(p);
  const FusedInstr& red = p.code[rk];
  const uint16_t rr = static_cast<uint16_t>(p.num_inputs + rk);
  const char* name = op_info(red.op).name;
  const bool norm = red.op == OpId::layer_norm || red.op == OpId::rms_norm;
  std::vector<ClPtr> in;
  for (const Prim& x : inputs) in.push_back(backend_.cl(x, "fusion"));
  // A norm's weight and bias are read whole, element k of the line at k.
  for (size_t q = 1; norm && q < red.n_args; ++q)
    if (red.args[q] != kNoRegister) in[red.args[q]] = backend_.contiguous(in[red.args[q]], name);
  std::vector<gpu::View> views;
  for (const ClPtr& t : in) views.push_back(view_of(*t));
  gpu::ReducePlan plan = gpu::plan_reduce(p, views);
  Prims outs;
  std::vector<ClPtr> out;
  for (uint16_t o : p.outputs) {
    out.push_back(backend_.alloc(o < rr ? p.shape : plan.result_shape, p.reg_dtype[o], "fusion"));
    outs.push_back(out.back());
  }
  // As the eager softmax chooses (gpu::around_dim): a work-group per long contiguous line.
  plan.launch.tree =
      plan.inner == 1 && plan.n >= gpu::AroundDim::kRowsMin && ctx.profile().max_work_group >= kTreeGroup;

  gpu::FusedFold fold;
  if (!fused_reduce_keeps_shape(red.op)) {
    const ReduceSpec spec = reduce_spec(red.op, p.reg_dtype[red.args[0]], ctx.profile(), "fusion");
    fold = {spec.acc_cl, spec.init, spec.step, spec.finish, spec.better};
  }
  bool faults = false;
  for (size_t k = 0; k < p.code.size(); ++k)
    faults = faults || (k != rk && gpu::fused_expr(p.code[k], p.reg_dtype)->faults);
  Launch lc(ctx, "fused", "fusion");
  lc.use(operand_defines(p, ctx.profile()));
  if (plan.lay.index64) lc.define("INDEX64");
  for (const ClPtr& t : in) lc.buffer(*t, false);
  for (const ClPtr& t : out) lc.buffer(*t, true);
  lc.words(gpu::program_scalars(p));
  lc.faults(faults);
  lc.layout_block(plan.lay).layout_block(plan.elay);
  lc.i64(plan.lines).i64(plan.n).i64(plan.inner);
  lc.u32(faults ? ctx.fault_tag("fusion", "a divisor") : 0);
  lc.generated(gpu::generate_reduce(p, plan.launch, fold, spelling(ctx.profile())));
  if (plan.launch.tree)
    lc.run_groups(plan.lines, kTreeGroup);
  else
    lc.run_1d(plan.lines);
  return outs;
}

Prims OpenClFusedExecutor::run_anchor(const FusedProgram& p, const Prims& inputs) {
  Context& ctx = backend_.context();
  const FusedInstr& an = p.code[0];
  const DType d = p.reg_dtype[p.num_inputs];
  size_t c = 0;
  while (p.reg_dtype[p.outputs[c]] != d) ++c;  // can_run: some output has the anchor's dtype
  const std::vector<bool> used = gpu::inputs_read(p, 1, p.code.size());
  std::vector<ClPtr> in(inputs.size());
  std::vector<gpu::View> views;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (used[k]) in[k] = backend_.cl(inputs[k], "fusion");
    // The epilogue's operands over the anchor's shape (its own are read whole by the kernel).
    views.push_back(used[k] ? view_of(*in[k]) : gpu::View{p.shape, std::vector<int64_t>(p.shape.rank(), 0), 0});
  }
  gpu::Layout l = gpu::broadcast_layout(p.shape, views);
  // The layout block has the kernel's index width, which the anchor's operands may make 64-bit: worked out here
  // as the kernel's launcher does, before either is written.
  const ClPtr a = backend_.cl(inputs[an.args[0]], "fusion"), b = backend_.cl(inputs[an.args[1]], "fusion");
  if (an.op == OpId::matmul) {
    l.index64 = l.index64 || gpu::gemm_index64(view_of(*a), view_of(*b), p.shape.num_elements());
  } else {
    const int64_t span = std::max({p.shape.num_elements(), a->shape().num_elements(), b->shape().num_elements()});
    l.index64 = l.index64 || span >= kIndex32;
  }
  const std::vector<int> modes = gpu::modes_of(l, used);
  Prims outs(p.outputs.size());
  std::vector<ClPtr> out(p.outputs.size());
  for (size_t m = 0; m < p.outputs.size(); ++m)
    if (m != c) outs[m] = out[m] = backend_.alloc(p.shape, p.reg_dtype[p.outputs[m]], "fusion");

  bool faults = false;
  for (size_t k = 1; k < p.code.size(); ++k) faults = faults || gpu::fused_expr(p.code[k], p.reg_dtype)->faults;
  AnchorEpilogue e;
  e.defines = gpu::generate_anchor_epilogue(p, c, modes, l.rank(), spelling(ctx.profile()));
  const Defines operands = operand_defines(p, ctx.profile());
  e.defines.insert(e.defines.end(), operands.begin(), operands.end());
  e.index64 = l.index64;
  e.bind = [&](Launch& lc) {
    for (size_t k = 0; k < in.size(); ++k) {
      if (in[k])
        lc.buffer(*in[k], false);
      else
        lc.no_tensor();
    }
    for (size_t m = 0; m < out.size(); ++m) {
      if (out[m])
        lc.buffer(*out[m], true);
      else
        lc.no_tensor();
    }
    lc.words(gpu::program_scalars(p));
    lc.layout_block(l);
    lc.faults(faults);
    lc.u32(faults ? ctx.fault_tag("fusion", "a divisor") : 0);
  };
  auto arg = [&](size_t q) -> Prim { return an.args[q] == kNoRegister ? nullptr : inputs[an.args[q]]; };
  if (an.op == OpId::matmul)
    outs[c] = matmul_with_epilogue(backend_, arg(0), arg(1), e);
  else if (an.op == OpId::conv)
    outs[c] = conv_with_epilogue(backend_, arg(0), arg(1), arg(2), an.conv, e);
  else
    outs[c] = conv_transpose_with_epilogue(backend_, arg(0), arg(1), arg(2), an.conv_transpose, e);
  if (outs[c]->shape() != p.shape)
    throw Error(op_info(an.op).name, "internal: the fused anchor's result " + outs[c]->shape().to_string() +
                                         " does not match the program's shape " + p.shape.to_string());
  return outs;
}

}  // namespace burn::opencl
