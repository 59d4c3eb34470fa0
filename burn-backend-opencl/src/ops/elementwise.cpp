// The elementwise launcher: burn-gpu's plan (dtype checks, broadcast shape, buffer reuse; burn/gpu/views.hpp),
// then the kernel's arguments, scalars and faults.
#include "ops/elementwise.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>

#include "burn/gpu/exprs.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"

namespace burn::opencl {

namespace {

// Ops one program holds at most. Larger families build fewer programs but slow every op on PoCL (16: the
// loops of 4M-element add and exp took 15-50 % longer, 4: within the noise of the machine; docs/decisions.md
// "OpenCL program variants").
constexpr size_t kFamilyMax = 4;

// Ops whose expressions share the kernel's defines: operands, result, scalars, the mask operand, faults.
bool same_shape(const gpu::Expr& x, const gpu::Expr& y) {
  return x.result == y.result && x.arity == y.arity && x.scalars == y.scalars && x.faults == y.faults &&
         x.scalar_i64 == y.scalar_i64 && x.bool_operand == y.bool_operand;
}

struct Family {
  std::vector<std::string> exprs;  // in table order, the OpenCL spelling (literals written)
  uint32_t code = 0;               // the op's place in it (ARG(opcode))
};

// The program of `op` on `d`: the ops of op's group whose expression on d has op's shape, in table order,
// cut into runs of kFamilyMax. The same list for every member, so they share one program text.
const Family& family_of(OpId op, DType d, const gpu::Expr& e) {
  static std::mutex mu;
  static std::map<std::pair<OpId, DType>, Family> cache;
  std::lock_guard lock(mu);
  if (auto it = cache.find({op, d}); it != cache.end()) return it->second;
  std::vector<OpId> members;
  size_t at = 0;
  for (const OpInfo& info : all_ops()) {
    if (info.group != op_info(op).group) continue;
    const std::optional<gpu::Expr> x = gpu::elementwise_expr(info.id, d, gpu::Bf16::as_float);
    if (!x || !same_shape(*x, e)) continue;
    if (info.id == op) at = members.size();
    members.push_back(info.id);
  }
  const size_t first = at / kFamilyMax * kFamilyMax;
  Family f;
  for (size_t k = first; k < members.size() && k < first + kFamilyMax; ++k)
    f.exprs.push_back(
        gpu::with_literals(gpu::elementwise_expr(members[k], d, gpu::Bf16::as_float)->text, d, gpu::Dialect::OpenCl));
  f.code = static_cast<uint32_t>(at - first);
  return cache.emplace(std::make_pair(op, d), std::move(f)).first->second;
}

}  // namespace

Prim elementwise(const OpenClBackend& be, OpId op, std::initializer_list<Prim> inputs, Scalar s0, Scalar s1) {
  const char* name = op_info(op).name;
  Context& ctx = be.context();
  const gpu::ElementwisePlan plan =
      gpu::plan_elementwise(op, inputs, "OpenCL device " + ctx.profile().name, reusable, gpu::Bf16::as_float);
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
  lc.use_shared(elementwise_defines(op, plan.dtype, modes.size(), ctx.profile()));
  std::vector<std::string> names = {"A", "B", "C"};
  names.resize(modes.size());
  lc.layout_args(modes, l.rank(), l.index64, names);
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
  lc.u32(family_of(op, plan.dtype, plan.expr).code);
  lc.run_1d(gpu::items_invocations(plan.n));
  return out;
}

namespace {

gpu::Defines build_defines(OpId op, DType d, size_t arity, const DeviceProfile& profile) {
  const char* name = op_info(op).name;
  const std::optional<gpu::Expr> e = gpu::elementwise_expr(op, d, gpu::Bf16::as_float);
  if (!e) throw Unsupported(name, "dtype " + std::string(dtype_name(d)) + " on OpenCL device " + profile.name);
  static const char* const kNames[] = {"A", "B", "C"};
  gpu::Defines out;
  for (size_t k = 0; k < arity; ++k)
    add_operand_defines(out, kNames[k], static_cast<int>(k) == e->bool_operand ? DType::Bool : d, profile, name);
  add_operand_defines(out, "Y", e->result, profile, name);
  const DType sd = e->scalar_i64 ? DType::I64 : d;
  // The op's family (family_of) in one program; the launch passes the op's code.
  const Family& f = family_of(op, d, *e);
  std::string cases;
  for (size_t k = 0; k < f.exprs.size(); ++k)
    cases += (k ? " " : "") + std::string("CASE(") + std::to_string(k) + "u, (" + f.exprs[k] + "))";
  out.emplace_back("OP_FAMILY", "1");
  out.emplace_back("OPS(CASE)", cases);
  out.emplace_back("ARITY", std::to_string(arity));
  out.emplace_back("ITEMS", std::to_string(gpu::kItemsPerInvocation));
  out.emplace_back("S_C", cl_type(sd, profile, name).compute);
  if (e->scalars > 0) out.emplace_back("SCALAR0(bits)", gpu::scalar_decoder(sd));
  if (e->scalars > 1) out.emplace_back("SCALAR1(bits)", gpu::scalar_decoder(sd));
  return out;
}

}  // namespace

const gpu::Defines& elementwise_defines(OpId op, DType d, size_t arity, const DeviceProfile& profile) {
  // Built once per op, dtype, arity and fp64 support (all they depend on), so a launch copies none.
  static std::mutex mu;
  static std::map<std::tuple<OpId, DType, size_t, bool>, gpu::Defines> cache;
  const auto key = std::make_tuple(op, d, arity, profile.fp64);
  {
    std::lock_guard lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  gpu::Defines built = build_defines(op, d, arity, profile);
  std::lock_guard lock(mu);
  return cache.emplace(key, std::move(built)).first->second;
}

}  // namespace burn::opencl
