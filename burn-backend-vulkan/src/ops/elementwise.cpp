// The elementwise launcher: dtype checks, the broadcast layout, buffer reuse, scalars and faults.
#include "ops/elementwise.hpp"

#include <algorithm>
#include <vector>

#include "burn/gpu/exprs.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "dispatch.hpp"

namespace burn::vulkan {

using gpu::elementwise_expr;
using gpu::Expr;
using gpu::scalar_bits;
using gpu::scalar_decoder;

Prim elementwise(const VulkanBackend& be, OpId op, std::initializer_list<Prim> inputs, Scalar s0, Scalar s1) {
  const char* name = op_info(op).name;
  Context& ctx = be.context();
  std::vector<Shape> shapes;
  for (const Prim& p : inputs) {
    if (!p) throw ValueError(name, "a tensor argument is missing");
    shapes.push_back(p->shape());
  }
  const DType d = inputs.begin()->get()->dtype();
  const std::optional<Expr> e = elementwise_expr(op, d);
  if (!e) throw Unsupported(name, "dtype " + std::string(dtype_name(d)) + " on Vulkan device " + ctx.profile().name);
  int k = 0;
  for (const Prim& p : inputs) {
    const DType want = k++ == e->bool_operand ? DType::Bool : d;
    if (p->dtype() != want)
      throw DTypeError(name, "operand " + std::to_string(k - 1) + " is " + std::string(dtype_name(p->dtype())) +
                                 ", expected " + std::string(dtype_name(want)));
  }
  const Shape shape = shapes.size() == 1   ? shapes[0]
                      : shapes.size() == 2 ? shape_rules::broadcast(shapes[0], shapes[1], name)
                                           : shape_rules::broadcast(shapes[0], shapes[1], shapes[2], name);
  const int64_t n = shape.num_elements();

  // The result goes into an input's buffer when the caller gave up its only handle (asked before `in`
  // takes more handles).
  int reuse = -1;
  k = 0;
  for (const Prim& p : inputs) {
    if (reuse < 0 && reusable(p, shape, e->result)) reuse = k;
    ++k;
  }
  std::vector<VkPtr> in;
  for (const Prim& p : inputs) in.push_back(be.vk(p, name));
  VkPtr out = reuse >= 0 ? in[static_cast<size_t>(reuse)] : be.alloc(shape, e->result);
  if (n == 0) return out;

  std::vector<std::vector<int64_t>> strides;
  for (const VkPtr& t : in) strides.push_back(broadcast_strides(*t, shape));
  const Layout l = collapse(shape, strides);
  std::vector<int> modes;
  for (size_t k = 0; k < in.size(); ++k) modes.push_back(l.mode(k));
  Dispatch dp(ctx, "elementwise", name);
  dp.use(elementwise_defines(op, d, modes, l.rank(), l.index64, ctx.profile().features, ctx.profile().name));
  for (size_t i = 0; i < 3; ++i) {
    if (i < in.size())
      dp.address(*in[i], false);
    else
      dp.push_u64(0);
  }
  dp.address(*out, true);
  dp.push_u64(e->faults ? ctx.faults_address() : 0);
  dp.push_i64(n);
  const DType sd = e->scalar_i64 ? DType::I64 : d;
  dp.push_u64(e->scalars > 0 ? scalar_bits(s0, sd) : 0);
  dp.push_u64(e->scalars > 1 ? scalar_bits(s1, sd) : 0);
  dp.layout_block(l);
  dp.push_i32(e->faults ? static_cast<int32_t>(ctx.fault_tag(name, "a divisor")) : 0);
  dp.run_1d(n);
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
  out.emplace_back("S_C", glsl_type(sd, features, device, name).compute);
  if (e->scalars > 0) out.emplace_back("SCALAR0(bits)", scalar_decoder(sd));
  if (e->scalars > 1) out.emplace_back("SCALAR1(bits)", scalar_decoder(sd));
  return out;
}

}  // namespace burn::vulkan
