// The elementwise launcher: burn-gpu's plan (dtype checks, broadcast shape, buffer reuse; burn/gpu/views.hpp),
// then the kernel's arguments, scalars and faults.
#include "ops/elementwise.hpp"

#include <optional>

#include "burn/gpu/exprs.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"

namespace burn::opencl {

Prim elementwise(const OpenClBackend& be, OpId op, std::initializer_list<Prim> inputs, Scalar s0, Scalar s1) {
  const char* name = op_info(op).name;
  Context& ctx = be.context();
  const gpu::ElementwisePlan plan = gpu::plan_elementwise(op, inputs, "OpenCL device " + ctx.profile().name, reusable);
  std::vector<ClPtr> in;
  std::vector<gpu::View> views;
  for (const Prim& p : inputs) {
    in.push_back(be.cl(p, name));
    views.push_back(view_of(*in.back()));
  }
  ClPtr out = plan.reuse >= 0 ? in[static_cast<size_t>(plan.reuse)] : be.alloc(plan.shape, plan.expr.result, name);
  if (plan.n == 0) return out;

  const gpu::Layout l = gpu::broadcast_layout(plan.shape, views);
  std::vector<int> modes;
  for (size_t i = 0; i < in.size(); ++i) modes.push_back(l.mode(i));
  Launch lc(ctx, "elementwise", name);
  lc.use(elementwise_defines(op, plan.dtype, modes, l.rank(), l.index64, ctx.profile()));
  for (size_t i = 0; i < 3; ++i) {
    if (i < in.size())
      lc.buffer(*in[i], false);
    else
      lc.no_tensor();
  }
  lc.buffer(*out, true);
  lc.faults(plan.expr.faults);
  lc.i64(plan.n);
  lc.u64(plan.expr.scalars > 0 ? gpu::scalar_bits(s0, plan.scalar_dtype) : 0);
  lc.u64(plan.expr.scalars > 1 ? gpu::scalar_bits(s1, plan.scalar_dtype) : 0);
  lc.layout_block(l);
  lc.u32(plan.expr.faults ? ctx.fault_tag(name, "a divisor") : 0);
  lc.run_1d(plan.n);
  return out;
}

gpu::Defines elementwise_defines(OpId op, DType d, const std::vector<int>& modes, size_t rank, bool index64,
                                 const DeviceProfile& profile) {
  const char* name = op_info(op).name;
  const std::optional<gpu::Expr> e = gpu::elementwise_expr(op, d);
  if (!e) throw Unsupported(name, "dtype " + std::string(dtype_name(d)) + " on OpenCL device " + profile.name);
  static const char* const kNames[] = {"A", "B", "C"};
  gpu::Defines out;
  for (size_t k = 0; k < modes.size(); ++k)
    add_operand_defines(out, kNames[k], static_cast<int>(k) == e->bool_operand ? DType::Bool : d, profile, name);
  add_operand_defines(out, "Y", e->result, profile, name);
  gpu::add_layout_defines(out, modes, rank, index64, std::vector<std::string>(kNames, kNames + modes.size()));
  const DType sd = e->scalar_i64 ? DType::I64 : d;
  out.emplace_back("OP", gpu::with_literals(e->text, d, gpu::Dialect::OpenCl));
  out.emplace_back("ARITY", std::to_string(modes.size()));
  out.emplace_back("S_C", cl_type(sd, profile, name).compute);
  if (e->scalars > 0) out.emplace_back("SCALAR0(bits)", gpu::scalar_decoder(sd));
  if (e->scalars > 1) out.emplace_back("SCALAR1(bits)", gpu::scalar_decoder(sd));
  return out;
}

}  // namespace burn::opencl
