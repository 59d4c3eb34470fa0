// The Vulkan backend's fused executor (burn/tensor/fused.hpp): every program the code generator can write
// runs as one dispatch: an elementwise chain, a reduce with its prologue and epilogue, a matmul with its
// epilogue (kernels/matmul.comp's EPILOGUE hook), a conv or conv_transpose with its bias and epilogue
// (burn-gpu/kernels/conv.kernel's). The rest (ops without an expression) are refused, so burn-fusion runs them op by
// op.
#include "fused/executor.hpp"

#include <cstring>

#include "burn/tensor/error.hpp"
#include "fused/codegen.hpp"
#include "ops/matmul.hpp"
#include "ops/nn.hpp"
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

// Which inputs the instructions in [from, to) read (the reduce or anchor excluded by the caller's range).
std::vector<bool> inputs_read(const FusedProgram& p, size_t from, size_t to) {
  std::vector<bool> used(p.num_inputs, false);
  for (size_t k = from; k < to; ++k)
    for (uint8_t q = 0; q < p.code[k].n_args; ++q)
      if (p.code[k].args[q] < p.num_inputs) used[p.code[k].args[q]] = true;
  return used;
}

// The strides over `shape` of the inputs in `used` (zeros for the others, which that layout never reads).
Layout layout_of(const std::vector<VkPtr>& in, const std::vector<bool>& used, const Shape& shape) {
  std::vector<std::vector<int64_t>> strides;
  for (size_t k = 0; k < in.size(); ++k)
    strides.push_back(used[k] ? broadcast_strides(*in[k], shape) : std::vector<int64_t>(shape.rank(), 0));
  return collapse(shape, strides);
}

std::vector<int> modes_of(const Layout& l, const std::vector<bool>& used) {
  std::vector<int> m;
  for (size_t k = 0; k < used.size(); ++k) m.push_back(used[k] ? l.mode(k) : -1);
  return m;
}

// Whether an invocation walking `per_invocation` elements of a line in a layout of `rank` dims stays under
// the driver's loop limit (lavapipe stops a loop after 65535 iterations, the inner loops of its index
// arithmetic counted, and says nothing); 0 is no limit.
bool walk_fits(uint32_t max_loop, int64_t per_invocation, size_t rank) {
  return max_loop == 0 || per_invocation * static_cast<int64_t>(rank + 2) <= static_cast<int64_t>(max_loop / 2);
}

// The length of the lines a fused reduce walks: a norm's over its last `dim` dims, every other along `dim`.
int64_t reduce_line_length(const FusedProgram& p, const FusedInstr& red) {
  const char* name = op_info(red.op).name;
  const Shape& shape = p.shape;
  const size_t rank = shape.rank();
  if (red.op == OpId::layer_norm || red.op == OpId::rms_norm) {
    if (red.dim == 0 || red.dim > rank)
      throw Error(name, "internal: a fused norm over " + std::to_string(red.dim) + " dims of a program of shape " +
                            shape.to_string());
    int64_t n = 1;
    for (size_t d = rank - red.dim; d < rank; ++d) n *= shape[d];
    return n;
  }
  check_dim(name, shape, red.dim);
  return shape[red.dim];
}

}  // namespace

bool VulkanFusedExecutor::can_run(const FusedProgram& program) const {
  const DeviceProfile& p = backend_.context().profile();
  return can_generate(program, p.features, p.name);
}

// A reduction whose lines are too long for the driver's loop limit runs op by op (the eager reductions
// split such lines over several dispatches); the program's rank bounds the collapsed layout's.
bool VulkanFusedExecutor::fits(const FusedProgram& program) const {
  const size_t sk = special_index(program);
  if (sk >= program.code.size() || is_fused_anchor(program.code[sk].op)) return true;
  const int64_t n = reduce_line_length(program, program.code[sk]);
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
  const size_t rk = special_index(p);
  const FusedInstr& red = p.code[rk];
  const uint16_t rr = static_cast<uint16_t>(p.num_inputs + rk);
  const char* name = op_info(red.op).name;
  const bool keeps = fused_reduce_keeps_shape(red.op);
  const bool norm = red.op == OpId::layer_norm || red.op == OpId::rms_norm;
  const Shape& shape = p.shape;
  const size_t rank = shape.rank();
  const int64_t n = reduce_line_length(p, red);
  int64_t inner = 1;
  for (size_t d = red.dim + 1; !norm && d < rank; ++d) inner *= shape[d];
  const int64_t total = shape.num_elements();
  // The fusion stream records no reduction of an empty tensor (it runs them eagerly, for their errors).
  if (total == 0) throw Error(name, "internal: a fused reduction over an empty tensor of shape " + shape.to_string());
  const int64_t lines = n == 0 ? 0 : total / n;
  const Shape red_shape = keeps ? shape : with_dim(shape, red.dim, 1);

  std::vector<VkPtr> in;
  for (const Prim& x : inputs) in.push_back(backend_.vk(x, "fusion"));
  // A norm's weight and bias are read whole, element k of the line at k.
  for (size_t q = 1; norm && q < red.n_args; ++q) {
    const uint16_t r = red.args[q];
    if (r == kNoRegister) continue;
    if (in[r]->shape().num_elements() != n)
      throw Error(name, "internal: a fused norm's weight or bias of shape " + in[r]->shape().to_string() +
                            " does not match the " + std::to_string(n) + " normalized elements");
    in[r] = backend_.contiguous(in[r], name);
  }
  Prims outs;
  std::vector<VkPtr> out;
  for (uint16_t o : p.outputs) {
    out.push_back(backend_.alloc(o < rr ? shape : red_shape, p.reg_dtype[o]));
    outs.push_back(out.back());
  }

  std::vector<bool> pro_in = inputs_read(p, 0, rk), epi_in = inputs_read(p, rk + 1, p.code.size());
  if (red.args[0] < p.num_inputs) pro_in[red.args[0]] = true;
  std::vector<bool> over_shape = pro_in;
  if (keeps)
    for (size_t k = 0; k < p.num_inputs; ++k) over_shape[k] = over_shape[k] || epi_in[k];
  Layout lay = layout_of(in, over_shape, shape);
  Layout elay = keeps ? collapse(Shape{}, {std::vector<int64_t>{}}) : layout_of(in, epi_in, red_shape);
  const bool index64 = lay.index64 || elay.index64 || total >= (int64_t{1} << 31);
  lay.index64 = elay.index64 = index64;

  ReduceLaunch launch;
  launch.modes = modes_of(lay, over_shape);
  launch.rank = lay.rank();
  if (!keeps) {
    launch.emodes = modes_of(elay, epi_in);
    launch.erank = elay.rank();
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
  feature_defines(dp, p);
  if (index64) dp.define("INDEX64");
  const std::string acc =
      codegen::type_of(p.reg_dtype[red.args[0]], ctx.profile().features, ctx.profile().name).compute;
  if (launch.tree && keeps) dp.define("WG_REDUCE_T", acc);
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
  const std::vector<bool> used = inputs_read(p, 1, p.code.size());
  for (size_t k = 0; k < inputs.size(); ++k) in.push_back(used[k] ? backend_.vk(inputs[k], "fusion") : nullptr);
  // The epilogue's operands over the product's shape (the matmul's operands are read whole by the kernel).
  std::vector<std::vector<int64_t>> strides;
  for (size_t k = 0; k < in.size(); ++k)
    strides.push_back(used[k] ? broadcast_strides(*in[k], p.shape) : std::vector<int64_t>(p.shape.rank(), 0));
  const Layout l = collapse(p.shape, strides);
  const std::vector<int> modes = modes_of(l, used);
  Prims outs(p.outputs.size());
  std::vector<VkPtr> out(p.outputs.size());
  for (size_t m = 0; m < p.outputs.size(); ++m)
    if (m != c) outs[m] = out[m] = backend_.alloc(p.shape, p.reg_dtype[p.outputs[m]]);

  const AnchorEpilogue e = anchor_epilogue(p, c, modes, l.rank(), ctx.profile().features, ctx.profile().name);
  auto bind = [&](Dispatch& dp) {
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
  auto arg = [&](size_t q) -> Prim { return an.args[q] == kNoRegister ? nullptr : inputs[an.args[q]]; };
  const char* name = op_info(an.op).name;
  if (an.op == OpId::matmul) {
    GemmOptions o;
    o.epilogue = e.expression;
    o.epilogue_push = e.push;
    o.epilogue_preamble = e.preamble;
    o.index64 = l.index64;
    o.bind = bind;
    outs[c] = matmul_with(backend_, arg(0), arg(1), gemm_kernel(ctx.profile(), d), o);
  } else {
    const ConvEpilogue o{e.expression, e.push, e.preamble, bind, l.index64};
    outs[c] = an.op == OpId::conv
                  ? conv_with_epilogue(backend_, arg(0), arg(1), arg(2), an.conv, o)
                  : conv_transpose_with_epilogue(backend_, arg(0), arg(1), arg(2), an.conv_transpose, o);
  }
  if (outs[c]->shape() != p.shape)
    throw Error(name, "internal: the fused anchor's result " + outs[c]->shape().to_string() +
                          " does not match the program's shape " + p.shape.to_string());
  return outs;
}

}  // namespace burn::vulkan
