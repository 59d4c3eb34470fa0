// Reductions on the device (burn-gpu/kernels/reduce.kernel): sum, mean, prod, max, min, any, all over one dim or the
// whole tensor, argmax/argmin with or without the values, var. A reduction runs in passes: each folds
// chunks of every line into partial states (a workgroup per chunk with a tree for long contiguous
// lines, an invocation per chunk for short or strided ones), until one chunk per line is left, so a
// long f32 sum is a tree of short in-order sums. Accumulators follow the cpu backend: floats in their
// type (f16 in f32), ints in their type with wrapping (the mean of i32 in i64), as in
// burn-backend-cpu/src/ops/reduce_kernels.hpp.
#include "ops/reduce.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "burn/tensor/error.hpp"

namespace burn::vulkan {

namespace {

constexpr int64_t kIndex32 = int64_t{1} << 31;

bool is_float_dtype(DType d) { return d == DType::F32 || d == DType::F64 || d == DType::F16; }
bool is_numeric(DType d) { return is_float_dtype(d) || d == DType::I64 || d == DType::I32; }

// The extremes of an accumulator type, without 64-bit literals: the defines precede the prelude's
// #extension lines, and glslang rejects such literals there.
std::string lowest(DType d) {
  switch (d) {
    case DType::I32: return "(-2147483647 - 1)";
    case DType::I64: return "int64_t(uint64_t(1u) << 63u)";
    case DType::F64: return "uint64BitsToDouble(uint64_t(0xfff00000u) << 32u)";
    default: return "uintBitsToFloat(0xff800000u)";
  }
}
std::string highest(DType d) {
  switch (d) {
    case DType::I32: return "2147483647";
    case DType::I64: return "int64_t(~(uint64_t(1u) << 63u))";
    case DType::F64: return "uint64BitsToDouble(uint64_t(0x7ff00000u) << 32u)";
    default: return "uintBitsToFloat(0x7f800000u)";
  }
}

[[noreturn]] void wrong_dtype(const char* op, const char* want, DType got) {
  throw DTypeError(op, std::string("expected a ") + want + ", got " + std::string(dtype_name(got)));
}

// One pass's input: values (x) and the partial indices or M2 and counts (x2, x3) of later passes,
// read along lines.
struct Source {
  VkPtr x, x2, x3;
  Layout starts;                     // the lines' starts over x
  std::vector<int64_t> red_shape;    // the line's dims (collapsed; empty when n <= 1)
  std::vector<int64_t> red_strides;  // over x
  int64_t n = 0;
};

// Where a pass writes: the result (values, indices) or the partial states.
struct Sink {
  VkPtr y, y2, y3;
};

struct Pass : ReducePassKind {
  int64_t lines = 0, total = 0, correction = 0, chunk = 0, chunks = 1;
  bool index64 = false;
};

void run_pass(const VulkanBackend& be, const ReduceSpec& s, const Source& src, const Sink& dst, const Pass& p) {
  Context& ctx = be.context();
  Layout starts = src.starts;
  starts.index64 = starts.index64 || p.index64;
  Dispatch dp(ctx, "reduce", s.op);
  dp.use(reduce_pass_defines(s, p, starts.mode(0), starts.rank(), starts.index64, ctx.profile().features,
                             ctx.profile().name));
  // Absent operands (partials of other kinds, arg values not wanted) get address 0.
  auto address = [&](const VkPtr& t, bool write) {
    if (t)
      dp.address(*t, write);
    else
      dp.push_u64(0);
  };
  address(src.x, false);
  address(src.x2, false);
  address(src.x3, false);
  address(dst.y, true);
  address(dst.y2, true);
  address(dst.y3, true);
  dp.layout_block(starts);
  std::vector<int64_t> red = src.red_shape;
  red.insert(red.end(), src.red_strides.begin(), src.red_strides.end());
  dp.args(Dispatch::index_array(red, starts.index64));
  dp.push_i64(src.n).push_i64(p.total).push_i64(src.red_shape.size() == 1 ? src.red_strides[0] : 0);
  dp.push_i64(p.lines * p.chunks).push_i64(p.chunks).push_i64(p.chunk).push_i64(p.correction);
  dp.push_i32(static_cast<int32_t>(src.red_shape.size()));
  if (p.row)
    run_groups(dp, p.lines * p.chunks, kReduceGroup);
  else
    dp.run_1d(p.lines * p.chunks, kReduceGroup);
}

std::vector<VkPtr> partials(const VulkanBackend& be, const ReduceSpec& s, int64_t count) {
  const Shape shape{count};
  switch (s.kind) {
    case ReduceKind::Arg: return {be.alloc(shape, s.acc), be.alloc(shape, DType::I64), nullptr};
    case ReduceKind::Var: return {be.alloc(shape, s.acc), be.alloc(shape, s.acc), be.alloc(shape, s.acc)};
    case ReduceKind::Plain: break;
  }
  return {be.alloc(shape, s.acc), nullptr, nullptr};
}

// Reduces every line of src into dst (values y, indices y2), pass after pass.
void reduce_lines(const VulkanBackend& be, const ReduceSpec& s, Source src, int64_t lines, bool index64,
                  const Sink& dst, int64_t correction = 0) {
  if (lines == 0) return;
  Pass p;
  p.lines = lines;
  p.total = src.n;
  p.correction = correction;
  p.index64 = index64;
  p.values = s.kind != ReduceKind::Arg || dst.y != nullptr;
  const bool trees = workgroup_trees(be.context());
  for (;;) {
    p.row = gpu::reduce_rows(src.red_shape, src.red_strides, src.n, lines, trees);
    p.chunk = p.row ? kRowChunk : gpu::kReduceLineChunk;
    p.chunks = std::max<int64_t>(1, (src.n + p.chunk - 1) / p.chunk);
    p.last = p.chunks == 1;
    if (p.last) {
      run_pass(be, s, src, dst, p);
      return;
    }
    const std::vector<VkPtr> part = partials(be, s, lines * p.chunks);
    run_pass(be, s, src, Sink{part[0], part[1], part[2]}, p);
    // The next pass reads the partials as lines of `chunks` contiguous states.
    src = Source{part[0], part[1], part[2], collapse(Shape{lines}, {{p.chunks}}), {p.chunks}, {1}, p.chunks};
    p.first = false;
  }
}

// The line part of a Source for lines along a dim.
Source along(const VkPtr& x, size_t dim, Lines& l) {
  l = lines_along(*x, dim);
  Source src;
  src.x = x;
  src.starts = l.starts;
  src.n = l.n;
  if (l.n > 1) {
    src.red_shape = {l.n};
    src.red_strides = {l.stride};
  }
  return src;
}

// x's elements as one line in memory order, for reductions that do not depend on the order: dims
// sorted by stride, flipped dims turned forward, then merged (a permuted tensor is one contiguous line).
Source whole(const VkPtr& x, bool& index64) {
  const gpu::View v = gpu::memory_order(view_of(*x));
  Source src;
  src.n = x->shape().num_elements();
  src.x = make_view(x, v);
  src.starts = collapse(Shape{}, {{}});
  if (src.n > 1) {
    const Layout red = collapse(v.shape, {v.strides});
    src.red_shape = red.shape;
    src.red_strides = red.strides[0];
    index64 = index64 || red.index64;
  }
  return src;
}

Prim reduce_dim_op(const VulkanBackend& be, OpId op, const Prim& xp, size_t dim, int64_t correction = 0) {
  const char* name = op_info(op).name;
  const VkPtr x = be.vk(xp, name);
  check_dim(name, x->shape(), dim);
  const ReduceSpec s = reduce_spec(op, x->dtype(), be.context(), name);
  const bool needs_elements = op == OpId::max_dim || op == OpId::min_dim;
  if (needs_elements && x->shape()[dim] == 0)
    throw ValueError(name, "cannot reduce over an empty dim of a tensor of shape " + x->shape().to_string());
  Lines l;
  const Source src = along(x, dim, l);
  VkPtr y = be.alloc(with_dim(x->shape(), dim, 1), s.out);
  reduce_lines(be, s, src, l.count, l.starts.index64, Sink{y, nullptr, nullptr}, correction);
  return y;
}

Prim reduce_all_op(const VulkanBackend& be, OpId op, const Prim& xp) {
  const char* name = op_info(op).name;
  const VkPtr x = be.vk(xp, name);
  const ReduceSpec s = reduce_spec(op, x->dtype(), be.context(), name);
  if ((op == OpId::max || op == OpId::min) && x->shape().num_elements() == 0)
    throw ValueError(name, "cannot reduce an empty tensor of shape " + x->shape().to_string());
  bool index64 = x->shape().num_elements() >= kIndex32;
  const Source src = whole(x, index64);
  VkPtr y = be.alloc(Shape{1}, s.out);
  reduce_lines(be, s, src, 1, index64, Sink{y, nullptr, nullptr});
  return y;
}

PrimPair arg_reduce(const VulkanBackend& be, OpId op, const Prim& xp, size_t dim, bool values) {
  const char* name = op_info(op).name;
  const VkPtr x = be.vk(xp, name);
  check_dim(name, x->shape(), dim);
  const ReduceSpec s = reduce_spec(op, x->dtype(), be.context(), name);
  if (x->shape()[dim] == 0)
    throw ValueError(name, "cannot reduce over an empty dim of a tensor of shape " + x->shape().to_string());
  Lines l;
  const Source src = along(x, dim, l);
  const Shape out = with_dim(x->shape(), dim, 1);
  VkPtr v = values ? be.alloc(out, x->dtype()) : nullptr;
  VkPtr i = be.alloc(out, DType::I64);
  reduce_lines(be, s, src, l.count, l.starts.index64, Sink{v, i, nullptr});
  return {v, i};
}

}  // namespace

bool workgroup_trees(const Context& ctx) {
  const char* env = std::getenv("BURN_VULKAN_REDUCE");
  if (env && std::string_view(env) == "tree") return true;
  if (env && std::string_view(env) == "lines") return false;
  return !ctx.profile().cpu_type();
}

DType accumulator_dtype(OpId op, DType dtype) {
  if (op == OpId::any || op == OpId::all || op == OpId::any_dim || op == OpId::all_dim) return DType::Bool;
  if (dtype == DType::F16) return DType::F32;
  if ((op == OpId::mean || op == OpId::mean_dim) && dtype == DType::I32) return DType::I64;
  return dtype;
}

VkPtr reduce_chunks(const VulkanBackend& be, const ReduceSpec& s, const VkPtr& x, size_t dim, int64_t& chunks) {
  Lines l;
  const Source src = along(x, dim, l);
  Pass p;
  p.row = workgroup_trees(be.context());
  p.last = false;
  p.lines = l.count;
  p.total = l.n;
  p.chunk = kRowChunk;
  p.chunks = chunks = std::max<int64_t>(1, (l.n + kRowChunk - 1) / kRowChunk);
  p.index64 = l.starts.index64;
  VkPtr part = be.alloc(Shape{l.count * p.chunks}, s.acc);
  if (l.count > 0) run_pass(be, s, src, Sink{part, nullptr, nullptr}, p);
  return part;
}

ReduceSpec reduce_spec(OpId op, DType d, const DeviceFeatures& f, const std::string& device, const char* name) {
  ReduceSpec s;
  s.op = name;
  s.in = s.out = d;
  const bool any_all = op == OpId::any || op == OpId::all || op == OpId::any_dim || op == OpId::all_dim;
  if (any_all) {
    if (d == DType::BF16) glsl_type(d, f, device, s.op);  // Unsupported naming the device
  } else if (op == OpId::var) {
    if (!is_float_dtype(d)) wrong_dtype(s.op, "float tensor (f32, f64 or f16)", d);
  } else if (!is_numeric(d)) {
    wrong_dtype(s.op, "numeric tensor (f32, f64, f16, i64 or i32)", d);
  }
  glsl_type(d, f, device, s.op);  // Unsupported for f64/f16 on a device without them
  s.acc = accumulator_dtype(op, d);
  s.acc_glsl = glsl_type(s.acc, f, device, s.op).compute;
  s.finish = "(a)";
  switch (op) {
    case OpId::sum:
    case OpId::sum_dim:
    case OpId::mean:
    case OpId::mean_dim:
      s.init = "ACC(0)";
      s.step = "((a) + (b))";
      s.subgroup = "subgroupAdd";
      if (op == OpId::mean || op == OpId::mean_dim)
        s.finish = is_float_dtype(d) ? "((a) / ACC(ARG(total)))"
                                     : "(ARG(total) == int64_t(0) ? ACC(0) : (a) / ACC(ARG(total)))";
      break;
    case OpId::prod:
    case OpId::prod_dim:
      s.init = "ACC(1)";
      s.step = "((a) * (b))";
      s.subgroup = "subgroupMul";
      break;
    case OpId::max:
    case OpId::max_dim:
    case OpId::min:
    case OpId::min_dim: {
      const bool mx = op == OpId::max || op == OpId::max_dim;
      s.init = mx ? lowest(s.acc) : highest(s.acc);
      s.step = mx ? "b_max(a, b)" : "b_min(a, b)";
      // Float subgroup max/min leave NaN to the driver; NaN must propagate.
      if (!is_float_dtype(d)) s.subgroup = mx ? "subgroupMax" : "subgroupMin";
      break;
    }
    case OpId::any:
    case OpId::any_dim:
    case OpId::all:
    case OpId::all_dim: {
      const bool an = op == OpId::any || op == OpId::any_dim;
      s.out = DType::Bool;
      s.init = an ? "0u" : "1u";
      s.step = an ? "((a) | (b))" : "((a) & (b))";
      s.lift = "(((v) != X_C(0)) ? 1u : 0u)";  // NaN is nonzero, as in torch
      s.subgroup = an ? "subgroupOr" : "subgroupAnd";
      break;
    }
    case OpId::argmax:
    case OpId::max_dim_with_indices:
    case OpId::argmin:
    case OpId::min_dim_with_indices: {
      const bool mx = op == OpId::argmax || op == OpId::max_dim_with_indices;
      s.kind = ReduceKind::Arg;
      s.init = mx ? lowest(s.acc) : highest(s.acc);
      const char* cmp = mx ? ">" : "<";
      s.better = std::string("((v) ") + cmp + " (w) || (b_isnan(v) && !b_isnan(w)))";
      break;
    }
    case OpId::var: s.kind = ReduceKind::Var; break;
    default: throw Unsupported(s.op, "is not a reduction of the Vulkan reduce kernel");
  }
  // Subgroup arithmetic on 32-bit accumulators only (64-bit ones need shaderSubgroupExtendedTypes).
  const bool narrow = s.acc_glsl == "float" || s.acc_glsl == "int" || s.acc_glsl == "uint";
  if (!f.subgroup_arithmetic || !narrow || s.kind != ReduceKind::Plain) s.subgroup.clear();
  return s;
}

Defines reduce_pass_defines(const ReduceSpec& s, const ReducePassKind& p, int x_mode, size_t rank, bool index64,
                            const DeviceFeatures& f, const std::string& device) {
  // X2/Y2 hold the partial indices (arg) or M2 (var), X3/Y3 the partial counts (var); every pass declares
  // all six operands, the unused ones at address 0.
  const DType second = s.kind == ReduceKind::Arg ? DType::I64 : s.acc;
  Defines d;
  add_operand_defines(d, "X", p.first ? s.in : s.acc, f, device, s.op);
  add_operand_defines(d, "X2", second, f, device, s.op);
  add_operand_defines(d, "X3", s.acc, f, device, s.op);
  add_operand_defines(d, "Y", p.last ? s.out : s.acc, f, device, s.op);
  add_operand_defines(d, "Y2", second, f, device, s.op);
  add_operand_defines(d, "Y3", s.acc, f, device, s.op);
  add_layout_defines(d, {x_mode}, rank, index64, {"X"});
  d.emplace_back("ACC", s.acc_glsl);
  if (p.first) d.emplace_back("FIRST", "1");
  if (p.last) d.emplace_back("LAST", "1");
  switch (s.kind) {
    case ReduceKind::Arg:
      d.emplace_back("KIND_ARG", "1");
      d.emplace_back("INIT", s.init);
      d.emplace_back("BETTER(v, w)", s.better);
      if (p.last && p.values) d.emplace_back("WANT_VALUES", "1");
      break;
    case ReduceKind::Var: d.emplace_back("KIND_VAR", "1"); break;
    case ReduceKind::Plain:
      d.emplace_back("INIT", s.init);
      d.emplace_back("STEP(a, b)", s.step);
      d.emplace_back("FINISH(a)", s.finish);
      if (p.first && !s.lift.empty()) d.emplace_back("LIFT(v)", s.lift);
      break;
  }
  if (p.row) {
    d.emplace_back("ROW", "1");
    if (!s.subgroup.empty()) {
      d.emplace_back("HAS_SUBGROUP_ARITH", "1");
      d.emplace_back("SUBGROUP_OP", s.subgroup);
    }
  }
  return d;
}

void run_groups(Dispatch& dp, int64_t groups, uint32_t local) {
  const auto& limits = dp.context().profile().limits;
  const int64_t gx = std::min<int64_t>(groups, std::min<uint32_t>(limits.max_workgroup_count[0], 65535));
  const int64_t gy =
      std::min<int64_t>((groups + gx - 1) / gx, std::min<uint32_t>(limits.max_workgroup_count[1], 65535));
  dp.run({static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1}, {local, 1, 1});
}

// ---- the ops ----

Prim VulkanBackend::sum(Prim x) { return reduce_all_op(*this, OpId::sum, x); }
Prim VulkanBackend::mean(Prim x) { return reduce_all_op(*this, OpId::mean, x); }
Prim VulkanBackend::prod(Prim x) { return reduce_all_op(*this, OpId::prod, x); }
Prim VulkanBackend::max(Prim x) { return reduce_all_op(*this, OpId::max, x); }
Prim VulkanBackend::min(Prim x) { return reduce_all_op(*this, OpId::min, x); }
Prim VulkanBackend::any(Prim x) { return reduce_all_op(*this, OpId::any, x); }
Prim VulkanBackend::all(Prim x) { return reduce_all_op(*this, OpId::all, x); }

Prim VulkanBackend::sum_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::sum_dim, x, dim); }
Prim VulkanBackend::mean_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::mean_dim, x, dim); }
Prim VulkanBackend::prod_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::prod_dim, x, dim); }
Prim VulkanBackend::max_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::max_dim, x, dim); }
Prim VulkanBackend::min_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::min_dim, x, dim); }
Prim VulkanBackend::any_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::any_dim, x, dim); }
Prim VulkanBackend::all_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::all_dim, x, dim); }
Prim VulkanBackend::var(Prim x, size_t dim, int64_t correction) {
  if (correction < 0) throw ValueError("var", "correction must be non-negative, got " + std::to_string(correction));
  return reduce_dim_op(*this, OpId::var, x, dim, correction);
}

Prim VulkanBackend::argmax(Prim x, size_t dim) { return arg_reduce(*this, OpId::argmax, x, dim, false).second; }
Prim VulkanBackend::argmin(Prim x, size_t dim) { return arg_reduce(*this, OpId::argmin, x, dim, false).second; }
PrimPair VulkanBackend::max_dim_with_indices(Prim x, size_t dim) {
  return arg_reduce(*this, OpId::max_dim_with_indices, x, dim, true);
}
PrimPair VulkanBackend::min_dim_with_indices(Prim x, size_t dim) {
  return arg_reduce(*this, OpId::min_dim_with_indices, x, dim, true);
}

}  // namespace burn::vulkan
