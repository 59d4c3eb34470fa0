// The elementwise launcher: burn-gpu's plan (dtype checks, broadcast shape, buffer reuse; burn/gpu/views.hpp),
// then the dispatch's push constants, scalars and faults.
#include "ops/elementwise.hpp"

#include <algorithm>
#include <vector>

#include "burn/gpu/exprs.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "dispatch.hpp"

namespace burn::vulkan {

using gpu::elementwise_expr;
using gpu::Expr;
using gpu::scalar_bits;
using gpu::scalar_decoder;

Prim elementwise(const VulkanBackend& be, OpId op, std::initializer_list<Prim> inputs, Scalar s0, Scalar s1) {
  const char* name = op_info(op).name;
  Context& ctx = be.context();
  const gpu::ElementwisePlan plan = gpu::plan_elementwise(op, inputs, "Vulkan device " + ctx.profile().name, reusable);
  std::vector<VkPtr> in;
  std::vector<gpu::View> views;
  for (const Prim& p : inputs) {
    in.push_back(be.vk(p, name));
    views.push_back(view_of(*in.back()));
  }
  VkPtr out = plan.reuse >= 0 ? in[static_cast<size_t>(plan.reuse)] : be.alloc(plan.shape, plan.expr.result);
  if (plan.n == 0) return out;

  const Layout l = gpu::broadcast_layout(plan.shape, views);
  std::vector<int> modes;
  for (size_t k = 0; k < in.size(); ++k) modes.push_back(l.mode(k));
  Dispatch dp(ctx, "elementwise", name);
  dp.use(elementwise_defines(op, plan.dtype, modes, l.rank(), l.index64, ctx.profile().features, ctx.profile().name));
  for (size_t i = 0; i < 3; ++i) {
    if (i < in.size())
      dp.address(*in[i], false);
    else
      dp.push_u64(0);
  }
  dp.address(*out, true);
  dp.push_u64(plan.expr.faults ? ctx.faults_address() : 0);
  dp.push_i64(plan.n);
  dp.push_u64(plan.expr.scalars > 0 ? scalar_bits(s0, plan.scalar_dtype) : 0);
  dp.push_u64(plan.expr.scalars > 1 ? scalar_bits(s1, plan.scalar_dtype) : 0);
  dp.layout_block(l);
  dp.push_i32(plan.expr.faults ? static_cast<int32_t>(ctx.fault_tag(name, "a divisor")) : 0);
  dp.run_1d(gpu::items_invocations(plan.n));
  return out;
}

Defines elementwise_defines(OpId op, DType d, const std::vector<int>& modes, size_t rank, bool index64,
                            const DeviceFeatures& features, const std::string& device) {
  const char* name = op_info(op).name;
  const std::optional<Expr> e = elementwise_expr(op, d);
  if (!e) throw Unsupported(name, "dtype " + std::string(dtype_name(d)) + " on Vulkan device " + device);
  static const char* const kNames[] = {"A", "B", "C"};
  Defines out;
  for (size_t k = 0; k < modes.size(); ++k)
    add_operand_defines(out, kNames[k], static_cast<int>(k) == e->bool_operand ? DType::Bool : d, features, device,
                        name);
  add_operand_defines(out, "Y", e->result, features, device, name);
  add_layout_defines(out, modes, rank, index64, std::vector<std::string>(kNames, kNames + modes.size()));
  const DType sd = e->scalar_i64 ? DType::I64 : d;
  out.emplace_back("OP", gpu::with_literals(e->text, d, gpu::Dialect::Glsl));
  out.emplace_back("ARITY", std::to_string(modes.size()));
  out.emplace_back("ITEMS", std::to_string(gpu::kItemsPerInvocation));
  out.emplace_back("S_C", glsl_type(sd, features, device, name).compute);
  if (e->scalars > 0) out.emplace_back("SCALAR0(bits)", scalar_decoder(sd));
  if (e->scalars > 1) out.emplace_back("SCALAR1(bits)", scalar_decoder(sd));
  return out;
}

}  // namespace burn::vulkan
