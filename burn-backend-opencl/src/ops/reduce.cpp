// Reductions and scans on the device (burn-gpu/kernels/reduce.kernel, scan.kernel), with the vulkan plugin's
// mode choice: sum, mean, prod, max, min, any, all over one dim or the whole tensor, argmax/argmin with or
// without the values, cumsum, cumprod, cummax, cummin. A reduction runs in passes: each folds chunks of
// every line into partial states (a work-group per chunk of 4096 with a tree for long contiguous lines on
// GPUs, a work-item per chunk of 256 folded in order otherwise), until one chunk per line is left, so a
// long f32 sum is a tree of short in-order sums. A scan walks each line in order (a work-item per line), or
// for long lines scans blocks from the scanned block totals (a work-group per block on GPUs).
// Accumulators follow the cpu backend: floats in their type, ints in their type (the mean of i32 in i64).
#include "ops/reduce.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "burn/gpu/reduce.hpp"
#include "burn/gpu/views.hpp"
#include "burn/tensor/error.hpp"
#include "launch.hpp"

namespace burn::opencl {

namespace {

using gpu::kReduceGroup;
using gpu::kReduceRowChunk;
bool is_float_dtype(DType d) { return d == DType::F32 || d == DType::F64 || d == DType::F16 || d == DType::BF16; }
bool is_numeric(DType d) { return is_float_dtype(d) || d == DType::I64 || d == DType::I32; }
bool is_any_all(OpId op) { return op == OpId::any || op == OpId::all || op == OpId::any_dim || op == OpId::all_dim; }

// The extremes of an accumulator type (OpenCL C's macros).
const char* lowest(DType d) {
  switch (d) {
    case DType::I32: return "INT_MIN";
    case DType::I64: return "LONG_MIN";
    case DType::F64: return "(-(double)INFINITY)";
    default: return "(-INFINITY)";
  }
}
const char* highest(DType d) {
  switch (d) {
    case DType::I32: return "INT_MAX";
    case DType::I64: return "LONG_MAX";
    case DType::F64: return "((double)INFINITY)";
    default: return "INFINITY";
  }
}

[[noreturn]] void wrong_dtype(const char* op, const char* want, DType got) {
  throw DTypeError(op, std::string("expected a ") + want + ", got " + std::string(dtype_name(got)));
}

// One pass's input: values (x) and, after the first pass, partial indices (x2), read along lines.
struct Source {
  ClPtr x, x2;
  gpu::Layout starts;                // the lines' starts over x
  std::vector<int64_t> red_shape;    // the line's dims (collapsed; empty when n <= 1)
  std::vector<int64_t> red_strides;  // over x
  int64_t n = 0;
};

struct Pass {
  bool first = true, last = true, row = false;
  int64_t lines = 0, total = 0, chunk = 0, chunks = 1;
  bool index64 = false;
};

// Work-groups with a tree in local memory (GPUs) or a work-item per chunk or block (CPU-type devices, as the
// vulkan plugin decides); BURN_OPENCL_REDUCE=tree or =lines forces one.
bool workgroup_trees(const DeviceProfile& profile) {
  const char* env = std::getenv("BURN_OPENCL_REDUCE");
  if (env && std::string_view(env) == "tree") return true;
  if (env && std::string_view(env) == "lines") return false;
  return !profile.is_cpu();
}

gpu::Defines pass_defines(const ReduceSpec& s, const Pass& p, bool want_values, const DeviceProfile& profile) {
  const DType second = DType::I64;
  gpu::Defines d;
  add_operand_defines(d, "X", p.first ? s.in : s.acc, profile, s.op);
  add_operand_defines(d, "X2", second, profile, s.op);
  add_operand_defines(d, "Y", p.last ? s.out : s.acc, profile, s.op);
  add_operand_defines(d, "Y2", second, profile, s.op);
  d.emplace_back("ACC", s.acc_cl);
  d.emplace_back("INIT", s.init);
  if (p.first) d.emplace_back("FIRST", "1");
  if (p.last) d.emplace_back("LAST", "1");
  if (p.row) {
    d.emplace_back("ROW", "1");
    if (!s.subgroup.empty()) {
      d.emplace_back("HAS_SUBGROUP_ARITH", "1");
      d.emplace_back("SUBGROUP_OP", s.subgroup);
    }
  }
  if (s.kind == ReduceKind::Arg) {
    d.emplace_back("KIND_ARG", "1");
    d.emplace_back("BETTER(v, w)", s.better);
    if (want_values) d.emplace_back("WANT_VALUES", "1");
  } else {
    d.emplace_back("STEP(a, b)", s.step);
    d.emplace_back("FINISH(a)", s.finish);
    if (p.first && !s.lift.empty()) d.emplace_back("LIFT(v)", s.lift);
  }
  return d;
}

void run_pass(const OpenClBackend& be, const ReduceSpec& s, const Source& src, const ClPtr& y, const ClPtr& y2,
              bool want_values, const Pass& p) {
  Context& ctx = be.context();
  gpu::Layout starts = src.starts;
  starts.index64 = starts.index64 || p.index64;
  Launch lc(ctx, "reduce", s.op);
  lc.use(pass_defines(s, p, want_values, ctx.profile()));
  lc.layout_args({starts.mode(0)}, starts.rank(), starts.index64, {"X"});
  auto tensor = [&](const ClPtr& t, bool write) {
    if (t)
      lc.buffer(*t, write);
    else
      lc.no_tensor();
  };
  // X3 and Y3 are var's partial counts, which this plugin does not run.
  tensor(src.x, false);
  tensor(src.x2, false);
  lc.no_tensor();
  tensor(y, true);
  tensor(y2, true);
  lc.no_tensor();
  lc.layout_block(starts);
  std::vector<int64_t> red = src.red_shape;
  red.insert(red.end(), src.red_strides.begin(), src.red_strides.end());
  lc.index_block(red, starts.index64);
  lc.i64(src.n).i64(p.total).i64(src.red_shape.size() == 1 ? src.red_strides[0] : 0);
  lc.i64(p.lines * p.chunks).i64(p.chunks).i64(p.chunk).i64(0);
  lc.i32(static_cast<int32_t>(src.red_shape.size()));
  if (p.row)
    lc.run_groups(p.lines * p.chunks, kReduceGroup);
  else
    lc.run_1d(p.lines * p.chunks);
}

// Reduces every line of src into y (values) and y2 (arg: indices), pass after pass.
void reduce_lines(const OpenClBackend& be, const ReduceSpec& s, Source src, int64_t lines, bool index64, const ClPtr& y,
                  const ClPtr& y2) {
  if (lines == 0) return;
  Pass p;
  p.lines = lines;
  p.total = src.n;
  p.index64 = index64;
  const bool want_values = y != nullptr;
  const bool trees = workgroup_trees(be.context().profile());
  for (;;) {
    p.row = gpu::reduce_rows(src.red_shape, src.red_strides, src.n, lines, trees);
    p.chunk = p.row ? kReduceRowChunk : gpu::kReduceLineChunk;
    p.chunks = std::max<int64_t>(1, (src.n + p.chunk - 1) / p.chunk);
    p.last = p.chunks == 1;
    if (p.last) {
      run_pass(be, s, src, y, y2, want_values, p);
      return;
    }
    const Shape part{lines * p.chunks};
    const ClPtr v = be.alloc(part, s.acc, s.op);
    const ClPtr i = s.kind == ReduceKind::Arg ? be.alloc(part, DType::I64, s.op) : nullptr;
    run_pass(be, s, src, v, i, true, p);
    // The next pass reads the partials as lines of `chunks` contiguous states.
    src = Source{v, i, gpu::collapse(Shape{lines}, {{p.chunks}}), {p.chunks}, {1}, p.chunks};
    p.first = false;
  }
}

// The line part of a Source for lines along a dim.
Source along(const ClPtr& x, size_t dim, gpu::Lines& l) {
  l = gpu::lines_along(view_of(*x), dim);
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

// x's elements as one line in memory order (the folds here do not depend on the order).
Source whole(const ClPtr& x, bool& index64) {
  const gpu::View v = gpu::memory_order(view_of(*x));
  Source src;
  src.n = x->shape().num_elements();
  src.x = make_view(x, v);
  src.starts = gpu::collapse(Shape{}, {{}});
  if (src.n > 1) {
    const gpu::Layout red = gpu::collapse(v.shape, {v.strides});
    src.red_shape = red.shape;
    src.red_strides = red.strides[0];
    index64 = index64 || red.index64;
  }
  return src;
}

Prim reduce_dim_op(const OpenClBackend& be, OpId op, const Prim& xp, size_t dim) {
  const char* name = op_info(op).name;
  const ClPtr x = be.cl(xp, name);
  gpu::check_dim(name, x->shape(), dim);
  const ReduceSpec s = reduce_spec(op, x->dtype(), be.context().profile(), name);
  if ((op == OpId::max_dim || op == OpId::min_dim) && x->shape()[dim] == 0)
    throw ValueError(name, "cannot reduce over an empty dim of a tensor of shape " + x->shape().to_string());
  gpu::Lines l;
  const Source src = along(x, dim, l);
  ClPtr y = be.alloc(gpu::with_dim(x->shape(), dim, 1), s.out, name);
  reduce_lines(be, s, src, l.count, l.starts.index64, y, nullptr);
  return y;
}

Prim reduce_all_op(const OpenClBackend& be, OpId op, const Prim& xp) {
  const char* name = op_info(op).name;
  const ClPtr x = be.cl(xp, name);
  const ReduceSpec s = reduce_spec(op, x->dtype(), be.context().profile(), name);
  if ((op == OpId::max || op == OpId::min) && x->shape().num_elements() == 0)
    throw ValueError(name, "cannot reduce an empty tensor of shape " + x->shape().to_string());
  bool index64 = x->shape().num_elements() >= kIndex32;
  const Source src = whole(x, index64);
  ClPtr y = be.alloc(Shape{1}, s.out, name);
  reduce_lines(be, s, src, 1, index64, y, nullptr);
  return y;
}

PrimPair arg_reduce(const OpenClBackend& be, OpId op, const Prim& xp, size_t dim, bool values) {
  const char* name = op_info(op).name;
  const ClPtr x = be.cl(xp, name);
  gpu::check_dim(name, x->shape(), dim);
  const ReduceSpec s = reduce_spec(op, x->dtype(), be.context().profile(), name);
  if (x->shape()[dim] == 0)
    throw ValueError(name, "cannot reduce over an empty dim of a tensor of shape " + x->shape().to_string());
  gpu::Lines l;
  const Source src = along(x, dim, l);
  const Shape out = gpu::with_dim(x->shape(), dim, 1);
  ClPtr v = values ? be.alloc(out, x->dtype(), name) : nullptr;
  ClPtr i = be.alloc(out, DType::I64, name);
  reduce_lines(be, s, src, l.count, l.starts.index64, v, i);
  return {v, i};
}

OpId scan_fold(OpId scan) {
  switch (scan) {
    case OpId::cumsum: return OpId::sum_dim;
    case OpId::cumprod: return OpId::prod_dim;
    case OpId::cummax: return OpId::max_dim;
    case OpId::cummin: return OpId::min_dim;
    default: throw Unsupported(op_info(scan).name, "is not a scan of the OpenCL scan kernel");
  }
}

// Partial states of s's fold (a plain one) over chunks of kReduceRowChunk elements of x's lines along dim:
// [lines * chunks] in s.acc, chunk c of line j at j * chunks + c (a scan's block totals).
ClPtr reduce_chunks(const OpenClBackend& be, const ReduceSpec& s, const ClPtr& x, size_t dim, int64_t& chunks) {
  gpu::Lines l;
  const Source src = along(x, dim, l);
  Pass p;
  p.row = workgroup_trees(be.context().profile());
  p.last = false;
  p.lines = l.count;
  p.total = l.n;
  p.chunk = kReduceRowChunk;
  p.chunks = chunks = std::max<int64_t>(1, (l.n + kReduceRowChunk - 1) / kReduceRowChunk);
  p.index64 = l.starts.index64;
  ClPtr part = be.alloc(Shape{l.count * p.chunks}, s.acc, s.op);
  if (l.count > 0) run_pass(be, s, src, part, nullptr, true, p);
  return part;
}

// y = the inclusive scan of x along dim with s's fold (y contiguous, of x's shape), as the vulkan plugin:
// long lines, when few or contiguous, in blocks from their scanned block totals.
void scan_into(const OpenClBackend& be, const ReduceSpec& s, OpId fold, const ClPtr& x, size_t dim, const ClPtr& y) {
  Context& ctx = be.context();
  const gpu::Lines l = gpu::lines_along(view_of(*x), dim, &y->shape());
  if (l.count == 0 || l.n == 0) return;
  const bool blocked = gpu::scan_blocked(l);
  ClPtr prefix;
  int64_t chunks = 1;
  if (blocked) {
    const ClPtr totals = reduce_chunks(be, s, x, dim, chunks);
    prefix = be.alloc(Shape{l.count, chunks}, s.acc, s.op);
    const ClPtr rows = make_view(totals, Shape{l.count, chunks}, {chunks, 1}, 0);
    scan_into(be, reduce_spec(fold, s.acc, ctx.profile(), s.op), fold, rows, 1, prefix);
  }
  const bool tree_blocks = blocked && workgroup_trees(ctx.profile());
  Launch lc(ctx, "scan", s.op);
  gpu::Defines d;
  add_operand_defines(d, "X", s.in, ctx.profile(), s.op);
  add_operand_defines(d, "Y", s.in, ctx.profile(), s.op);
  add_operand_defines(d, "P", s.acc, ctx.profile(), s.op);
  d.emplace_back("ACC", s.acc_cl);
  d.emplace_back("INIT", s.init);
  d.emplace_back("STEP(a, b)", s.step);
  if (tree_blocks) d.emplace_back("BLOCKED", "1");
  lc.use(d);
  lc.layout_args({l.starts.mode(0), l.starts.mode(1)}, l.starts.rank(), l.starts.index64, {"X", "Y"});
  lc.buffer(*x, false).buffer(*y, true);
  if (prefix)
    lc.buffer(*prefix, false);
  else
    lc.no_tensor();
  lc.layout_block(l.starts);
  lc.i64(l.n).i64(l.stride).i64(l.out_stride).i64(l.count).i64(chunks).i64(blocked ? kReduceRowChunk : l.n);
  if (tree_blocks)
    lc.run_groups(l.count * chunks, kReduceGroup);
  else
    lc.run_1d(l.count * chunks);
}

Prim scan(const OpenClBackend& be, OpId op, const Prim& xp, size_t dim) {
  const char* name = op_info(op).name;
  const ClPtr x = be.cl(xp, name);
  gpu::check_dim(name, x->shape(), dim);
  const OpId fold = scan_fold(op);
  const ReduceSpec s = reduce_spec(fold, x->dtype(), be.context().profile(), name);
  ClPtr y = be.alloc(x->shape(), x->dtype(), name);
  scan_into(be, s, fold, x, dim, y);
  return y;
}

}  // namespace

ReduceSpec reduce_spec(OpId op, DType d, const DeviceProfile& profile, const char* name) {
  ReduceSpec s;
  s.op = name;
  s.in = s.out = d;
  if (!is_any_all(op) && !is_numeric(d)) wrong_dtype(s.op, "numeric tensor (f32, f64, f16, bf16, i64 or i32)", d);
  cl_type(d, profile, s.op);  // Unsupported for f64 without cl_khr_fp64
  // f16 and bf16 accumulate in f32 (the vulkan plugin's and the cpu backend's rule), rounded once at the end.
  s.acc = is_any_all(op)                                                  ? DType::Bool
          : (op == OpId::mean || op == OpId::mean_dim) && d == DType::I32 ? DType::I64
          : d == DType::F16 || d == DType::BF16                           ? DType::F32
                                                                          : d;
  s.acc_cl = cl_type(s.acc, profile, s.op).compute;
  s.finish = "(a)";
  switch (op) {
    case OpId::sum:
    case OpId::sum_dim:
    case OpId::mean:
    case OpId::mean_dim:
      s.init = "CVT(ACC, 0)";
      s.step = "((a) + (b))";
      s.subgroup = "sub_group_reduce_add";
      if (op == OpId::mean || op == OpId::mean_dim)
        s.finish = is_float_dtype(d) ? "((a) / CVT(ACC, ARG(total)))"
                                     : "(ARG(total) == 0 ? CVT(ACC, 0) : (a) / CVT(ACC, ARG(total)))";
      break;
    case OpId::prod:
    case OpId::prod_dim:
      s.init = "CVT(ACC, 1)";
      s.step = "((a) * (b))";
      break;
    case OpId::max:
    case OpId::max_dim:
    case OpId::min:
    case OpId::min_dim: {
      const bool mx = op == OpId::max || op == OpId::max_dim;
      s.init = mx ? lowest(s.acc) : highest(s.acc);
      s.step = mx ? "b_max(a, b)" : "b_min(a, b)";
      // Float sub-group max/min leave NaN to the driver; NaN must propagate.
      if (!is_float_dtype(d)) s.subgroup = mx ? "sub_group_reduce_max" : "sub_group_reduce_min";
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
      s.lift = "(((v) != CVT(X_C, 0)) ? 1u : 0u)";  // NaN is nonzero, as in torch
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
      // OpenCL's isnan takes floats only; ints have no NaN.
      s.better = is_float_dtype(d) ? std::string("((v) ") + cmp + " (w) || (isnan(v) && !isnan(w)))"
                                   : std::string("((v) ") + cmp + " (w))";
      break;
    }
    default: throw Unsupported(s.op, "is not a reduction of the OpenCL reduce kernel");
  }
  // Sub-group arithmetic (cl_khr_subgroups: add, min, max) on 32-bit accumulators, as the vulkan plugin.
  const bool narrow = s.acc_cl == "float" || s.acc_cl == "int" || s.acc_cl == "uint";
  if (!profile.has_extension("cl_khr_subgroups") || !narrow || s.kind != ReduceKind::Plain) s.subgroup.clear();
  return s;
}

// ---- the ops ----

Prim OpenClBackend::sum(Prim x) { return reduce_all_op(*this, OpId::sum, x); }
Prim OpenClBackend::mean(Prim x) { return reduce_all_op(*this, OpId::mean, x); }
Prim OpenClBackend::prod(Prim x) { return reduce_all_op(*this, OpId::prod, x); }
Prim OpenClBackend::max(Prim x) { return reduce_all_op(*this, OpId::max, x); }
Prim OpenClBackend::min(Prim x) { return reduce_all_op(*this, OpId::min, x); }
Prim OpenClBackend::any(Prim x) { return reduce_all_op(*this, OpId::any, x); }
Prim OpenClBackend::all(Prim x) { return reduce_all_op(*this, OpId::all, x); }

Prim OpenClBackend::sum_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::sum_dim, x, dim); }
Prim OpenClBackend::mean_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::mean_dim, x, dim); }
Prim OpenClBackend::prod_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::prod_dim, x, dim); }
Prim OpenClBackend::max_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::max_dim, x, dim); }
Prim OpenClBackend::min_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::min_dim, x, dim); }
Prim OpenClBackend::any_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::any_dim, x, dim); }
Prim OpenClBackend::all_dim(Prim x, size_t dim) { return reduce_dim_op(*this, OpId::all_dim, x, dim); }

Prim OpenClBackend::argmax(Prim x, size_t dim) { return arg_reduce(*this, OpId::argmax, x, dim, false).second; }
Prim OpenClBackend::argmin(Prim x, size_t dim) { return arg_reduce(*this, OpId::argmin, x, dim, false).second; }
PrimPair OpenClBackend::max_dim_with_indices(Prim x, size_t dim) {
  return arg_reduce(*this, OpId::max_dim_with_indices, x, dim, true);
}
PrimPair OpenClBackend::min_dim_with_indices(Prim x, size_t dim) {
  return arg_reduce(*this, OpId::min_dim_with_indices, x, dim, true);
}

Prim OpenClBackend::cumsum(Prim x, size_t dim) { return scan(*this, OpId::cumsum, x, dim); }
Prim OpenClBackend::cumprod(Prim x, size_t dim) { return scan(*this, OpId::cumprod, x, dim); }
Prim OpenClBackend::cummax(Prim x, size_t dim) { return scan(*this, OpId::cummax, x, dim); }
Prim OpenClBackend::cummin(Prim x, size_t dim) { return scan(*this, OpId::cummin, x, dim); }

}  // namespace burn::opencl
