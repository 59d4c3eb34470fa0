// The Vulkan backend's fused executor (burn/tensor/fused.hpp): every program the code generator can write
// runs as one dispatch: an elementwise chain, a reduce with its prologue and epilogue, a matmul, conv or
// conv_transpose with its epilogue (the EPILOGUE_STORE hook of burn-gpu/kernels/matmul.kernel, conv.kernel and
// kernels/matmul_coop.comp). The rest (ops without an expression) are refused, so burn-fusion runs them op by op.
#include "fused/executor.hpp"

#include <algorithm>
#include <cstring>

#include "burn/tensor/error.hpp"
#include "fused/codegen.hpp"
#include "ops/matmul.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"
#include "ops/reduce.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {

namespace {

void append_address(std::vector<uint8_t>& io, const VkPtr& t) {
  const uint64_t a = t->address();
  const size_t at = io.size();
  io.resize(at + 8);
  std::memcpy(io.data() + at, &a, 8);
}

// HAS_F64, HAS_F16 and HAS_BF16 for the program's dtypes, but for `except` (whose defines a launcher gave).
void feature_defines(Dispatch& dp, const FusedProgram& program, DType except = DType::Bool) {
  bool f64 = false, f16 = false, bf16 = false;
  for (DType d : program.reg_dtype) {
    if (d == except) continue;
    f64 = f64 || d == DType::F64;
    f16 = f16 || d == DType::F16;
    bf16 = bf16 || d == DType::BF16;
  }
  if (f64) dp.define("HAS_F64");
  if (f16) dp.define("HAS_F16");
  if (bf16) dp.define("HAS_BF16");
}

// Whether an invocation walking `per_invocation` elements of a line in a layout of `rank` dims stays under
// the driver's loop limit (lavapipe stops a loop after 65535 iterations, the inner loops of its index
// arithmetic counted, and says nothing); 0 is no limit.
bool walk_fits(uint32_t max_loop, int64_t per_invocation, size_t rank) {
  return max_loop == 0 || per_invocation * static_cast<int64_t>(rank + 2) <= static_cast<int64_t>(max_loop / 2);
}

}  // namespace

bool anchor_index64(OpId op, bool epilogue_index64, const gpu::View& a, const gpu::View& b, const Shape& result) {
  if (epilogue_index64) return true;
  if (op == OpId::matmul) return gpu::gemm_index64(a, b, result.num_elements());
  // ops/conv.cpp's launch: the largest of its operands and result.
  return nn::needs_index64(std::max({result.num_elements(), a.shape.num_elements(), b.shape.num_elements()}));
}

bool VulkanFusedExecutor::can_run(const FusedProgram& program) const {
  const DeviceProfile& p = backend_.context().profile();
  return can_generate(program, p.features, p.name);
}

// A reduction whose lines are too long for the driver's loop limit runs op by op (the eager reductions
// split such lines over several dispatches); the program's rank bounds the collapsed layout's.
bool VulkanFusedExecutor::fits(const FusedProgram& program) const {
  const size_t sk = special_index(program);
  if (sk >= program.code.size() || is_fused_anchor(program.code[sk].op)) return true;
  const int64_t n = gpu::reduce_line_length(program, program.code[sk]);
  const uint32_t max_loop = backend_.context().profile().limits.max_loop;
  return walk_fits(max_loop, (n + kFusedTreeGroup - 1) / kFusedTreeGroup, program.shape.rank());
}

bool VulkanFusedExecutor::owns(const Primitive& p) const {
  const auto* t = dynamic_cast<const VulkanTensor*>(&p);
  return t && &t->context() == &backend_.context();
}

Prims VulkanFusedExecutor::run(const FusedProgram& program, const Prims& inputs) {
  if (inputs.size() != program.num_inputs)
    throw Error("fusion", "a fused program of " + std::to_string(program.num_inputs) + " inputs got " +
                              std::to_string(inputs.size()));
  const size_t sk = special_index(program);
  if (sk < program.code.size()) {
    if (is_fused_anchor(program.code[sk].op)) return run_anchor(program, inputs);
    return run_reduce(program, inputs);
  }
  Context& ctx = backend_.context();
  std::vector<VkPtr> in;
  std::vector<std::vector<int64_t>> strides;
  for (const Prim& p : inputs) {
    in.push_back(backend_.vk(p, "fusion"));
    strides.push_back(broadcast_strides(*in.back(), program.shape));
  }
  Prims outs;
  std::vector<VkPtr> out;
  for (uint16_t o : program.outputs) {
    out.push_back(backend_.alloc(program.shape, program.reg_dtype[o]));
    outs.push_back(out.back());
  }
  const int64_t n = program.shape.num_elements();
  if (n == 0) return outs;

  const Layout l = collapse(program.shape, strides);
  std::vector<uint8_t> io;
  for (const VkPtr& t : in) append_address(io, t);
  for (const VkPtr& t : out) append_address(io, t);
  Dispatch dp(ctx, "fused", "fusion");
  for (const VkPtr& t : in) dp.access(&t->allocation(), false);
  for (const VkPtr& t : out) dp.access(&t->allocation(), true);
  Defines operands;
  add_fused_operand_defines(operands, program, ctx.profile().features, ctx.profile().name);
  dp.use(operands);
  feature_defines(dp, program);  // registers between the operands may have other dtypes (casts)
  dp.args(std::move(io)).args(program_scalars(program)).push_u64(ctx.faults_address()).push_i64(n);
  std::vector<std::string> names;
  for (size_t k = 0; k < in.size(); ++k) names.push_back(gpu::fused_input(k));
  dp.layout(l, names);
  dp.push_i32(static_cast<int32_t>(ctx.fault_tag("fusion", "a divisor")));
  dp.generated(generate_elementwise(program, ctx.profile().features, ctx.profile().name));
  dp.run_1d(n);
  return outs;
}

Prims VulkanFusedExecutor::run_reduce(const FusedProgram& p, const Prims& inputs) {
  Context& ctx = backend_.context();
  const FusedInstr& red = p.code[special_index(p)];
  const uint16_t rr = static_cast<uint16_t>(p.num_inputs + special_index(p));
  const char* name = op_info(red.op).name;
  std::vector<VkPtr> in;
  for (const Prim& x : inputs) in.push_back(backend_.vk(x, "fusion"));
  // A norm's weight and bias are read whole, element k of the line at k.
  const bool norm = red.op == OpId::layer_norm || red.op == OpId::rms_norm;
  for (size_t q = 1; norm && q < red.n_args; ++q)
    if (red.args[q] != kNoRegister) in[red.args[q]] = backend_.contiguous(in[red.args[q]], name);
  std::vector<gpu::View> views;
  for (const VkPtr& t : in) views.push_back(view_of(*t));
  gpu::ReducePlan plan = gpu::plan_reduce(p, views);
  const Layout &lay = plan.lay, &elay = plan.elay;
  const int64_t n = plan.n, lines = plan.lines, inner = plan.inner;
  ReduceLaunch& launch = plan.launch;
  Prims outs;
  std::vector<VkPtr> out;
  for (uint16_t o : p.outputs) {
    out.push_back(backend_.alloc(o < rr ? p.shape : plan.result_shape, p.reg_dtype[o]));
    outs.push_back(out.back());
  }

  // As the eager reductions choose (ops/reduce.cpp's use_rows): a workgroup per line for long lines on GPUs
  // and wherever an invocation's walk of a line would pass the driver's loop limit.
  const uint32_t max_loop = ctx.profile().limits.max_loop;
  launch.tree =
      n >= 64 && ((workgroup_trees(ctx) && (inner == 1 || lines < 16)) || !walk_fits(max_loop, n, lay.rank()));
  if (!walk_fits(max_loop, (n + kFusedTreeGroup - 1) / kFusedTreeGroup, lay.rank()))
    throw Error(name, "internal: a fused reduction over lines of " + std::to_string(n) +
                          " elements passed fits() but is longer than the loop limit of Vulkan device " +
                          ctx.profile().name + " lets a workgroup walk");

  std::vector<uint8_t> io;
  for (const VkPtr& t : in) append_address(io, t);
  for (const VkPtr& t : out) append_address(io, t);
  Dispatch dp(ctx, "fused", "fusion");
  for (const VkPtr& t : in) dp.access(&t->allocation(), false);
  for (const VkPtr& t : out) dp.access(&t->allocation(), true);
  Defines operands;
  add_fused_operand_defines(operands, p, ctx.profile().features, ctx.profile().name);
  dp.use(operands);
  feature_defines(dp, p);
  if (lay.index64) dp.define("INDEX64");
  dp.args(std::move(io)).args(program_scalars(p)).push_u64(ctx.faults_address());
  dp.layout_block(lay).layout_block(elay);
  dp.push_i64(lines).push_i64(n).push_i64(inner);
  dp.push_i32(static_cast<int32_t>(ctx.fault_tag("fusion", "a divisor")));
  dp.generated(generate_reduce(p, launch, ctx.profile().features, ctx.profile().name));
  if (launch.tree)
    run_groups(dp, lines, kFusedTreeGroup);
  else
    dp.run_1d(lines, 64);
  return outs;
}

Prims VulkanFusedExecutor::run_anchor(const FusedProgram& p, const Prims& inputs) {
  Context& ctx = backend_.context();
  const FusedInstr& an = p.code[0];
  const uint16_t ar = static_cast<uint16_t>(p.num_inputs);
  const DType d = p.reg_dtype[ar];
  size_t c = 0;
  while (p.reg_dtype[p.outputs[c]] != d) ++c;  // can_run: some output has the anchor's dtype
  std::vector<VkPtr> in;
  const std::vector<bool> used = gpu::inputs_read(p, 1, p.code.size());
  for (size_t k = 0; k < inputs.size(); ++k) in.push_back(used[k] ? backend_.vk(inputs[k], "fusion") : nullptr);
  // The epilogue's operands over the product's shape (the matmul's operands are read whole by the kernel).
  std::vector<std::vector<int64_t>> strides;
  for (size_t k = 0; k < in.size(); ++k)
    strides.push_back(used[k] ? broadcast_strides(*in[k], p.shape) : std::vector<int64_t>(p.shape.rank(), 0));
  Layout l = collapse(p.shape, strides);
  const std::vector<int> modes = gpu::modes_of(l, used);
  auto arg = [&](size_t q) -> Prim { return an.args[q] == kNoRegister ? nullptr : inputs[an.args[q]]; };
  // The anchor's operands are the program's inputs (anchor_generatable), read whole by the kernel.
  const gpu::View a = view_of(*backend_.vk(arg(0), "fusion")), b = view_of(*backend_.vk(arg(1), "fusion"));
  l.index64 = anchor_index64(an.op, l.index64, a, b, p.shape);
  Prims outs(p.outputs.size());
  std::vector<VkPtr> out(p.outputs.size());
  for (size_t m = 0; m < p.outputs.size(); ++m)
    if (m != c) outs[m] = out[m] = backend_.alloc(p.shape, p.reg_dtype[p.outputs[m]]);

  AnchorEpilogue e = anchor_epilogue(p, c, modes, l.rank(), ctx.profile().features, ctx.profile().name);
  e.index64 = l.index64;
  e.bind = [&](Dispatch& dp) {
    std::vector<uint8_t> io;
    for (size_t k = 0; k < in.size(); ++k) {
      if (!used[k]) {
        io.resize(io.size() + 8, 0);
        continue;
      }
      append_address(io, in[k]);
      dp.access(&in[k]->allocation(), false);
    }
    for (size_t m = 0; m < out.size(); ++m) {
      if (!out[m]) {
        io.resize(io.size() + 8, 0);
        continue;
      }
      append_address(io, out[m]);
      dp.access(&out[m]->allocation(), true);
    }
    feature_defines(dp, p, d);
    dp.args(std::move(io)).args(program_scalars(p)).layout_block(l).push_u64(ctx.faults_address());
    dp.push_i32(static_cast<int32_t>(ctx.fault_tag("fusion", "a divisor")));
  };
  const char* name = op_info(an.op).name;
  if (an.op == OpId::matmul) {
    GemmOptions o;
    o.fused = std::move(e);
    outs[c] = matmul_with(backend_, arg(0), arg(1), gemm_kernel(ctx.profile(), d), o);
  } else {
    outs[c] = an.op == OpId::conv
                  ? conv_with_epilogue(backend_, arg(0), arg(1), arg(2), an.conv, e)
                  : conv_transpose_with_epilogue(backend_, arg(0), arg(1), arg(2), an.conv_transpose, e);
  }
  if (outs[c]->shape() != p.shape)
    throw Error(name, "internal: the fused anchor's result " + outs[c]->shape().to_string() +
                          " does not match the program's shape " + p.shape.to_string());
  return outs;
}

}  // namespace burn::vulkan
