// Planning a segment (see plan.hpp) and the plan cache.
#include "plan.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

namespace burn::fusion {

PlanKey plan_key(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& alive, bool executor) {
  PlanKey key;
  key.reserve(ops.size() * 4 + 1);
  key.push_back(executor ? 1 : 0);
  for (size_t i = 0; i < ops.size(); ++i) {
    const ir::PendingOp& op = ops[i];
    key.push_back(static_cast<uint64_t>(op.op) | uint64_t(static_cast<uint8_t>(op.dtype)) << 16 |
                  uint64_t(op.n_in) << 24 | uint64_t(static_cast<uint8_t>(op.param_dtype)) << 32 |
                  uint64_t(alive[i]) << 40);
    // The nearest earlier op with the same output shape: runs are cut where shapes change.
    uint64_t same = i;
    for (size_t j = i; j-- > 0;)
      if (ops[j].shape == op.shape) {
        same = j;
        break;
      }
    key.push_back(same);
    if (ir::reducible(op.op)) key.push_back(op.dim);  // the reduce instruction's dim is part of the plan
    const int64_t count = op.shape.num_elements();
    for (size_t k = 0; k < op.n_in; ++k) {
      const ir::Arg& a = op.in[k];
      // Whether the operand has the op's element count: an op after a view joins its run only then.
      const Shape* s = a.value >= 0 ? &ops[a.value].shape : a.external ? &a.external->shape() : nullptr;
      const uint64_t full = s && s->num_elements() == count ? uint64_t(1) << 62 : 0;
      // An absent operand (a norm without weight or bias) is a key of its own.
      key.push_back(full | (a.value >= 0 ? (uint64_t(1) << 63) | uint64_t(a.value)
                            : a.external ? uint64_t(static_cast<uint8_t>(a.external->dtype()))
                                         : uint64_t(0xFFFF)));
    }
  }
  return key;
}

namespace {

uint64_t hash_key(const PlanKey& key) {
  uint64_t h = 14695981039346656037ull;
  for (uint64_t w : key) h = (h ^ w) * 1099511628211ull;
  return h;
}

// A segment cut into runs: each run's ops, and per op where it stands in its run.
struct Cutting {
  std::vector<std::pair<uint32_t, uint32_t>> runs;  // [begin, end) op indices
  std::vector<uint32_t> run_of;
  std::vector<uint8_t> after_view;  // per op: a view of its run came before it
  std::vector<uint32_t> source;     // per op: itself, or for a view inside a run the op it views
};

// Runs: consecutive computed ops of one output shape (the prologue). A reduction whose input is a
// value of the open run joins it; any other reduction starts a run. After a reduction, only its
// epilogue joins: elementwise ops of the reduction's output shape whose values from this run are
// the reduction's or the epilogue's (a prologue value is gone once the reduction has run). A
// matmul or conv (an anchor) always starts a run and is followed by its epilogue the same way.
// A view of a value of a run without a reduction joins it (the element order is the same); the ops
// after it must have the view's shape, and any operand from outside the run as many elements, so
// that the run's iteration shape indexes them alike. A view that cannot join runs alone. A run also
// starts at every op marked in `cut_before`.
Cutting cut_runs(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& needed,
                 const std::vector<uint8_t>& cut_before) {
  const size_t n = ops.size();
  Cutting c;
  c.run_of.assign(n, UINT32_MAX);
  c.after_view.assign(n, 0);
  c.source.resize(n);
  std::vector<uint8_t> after_reduce(n, 0);  // per op: the reduction of its run or its epilogue
  int64_t first = -1;                       // first computed op of the open run (-1: the next op starts one)
  int64_t red = -1;                         // the open run's reduction or anchor, if it has one
  int64_t shape_of = -1;                    // the op whose shape the open run's next elementwise op must have
  bool reduces = false;                     // the open run has a reduction (not only an anchor)
  bool viewed = false;                      // the open run has a view
  // Whether op i's operands from outside the open run have its element count.
  const auto outside_operands_full = [&](size_t i, uint32_t cur) {
    const int64_t count = ops[i].shape.num_elements();
    for (size_t k = 0; k < ops[i].n_in; ++k) {
      const ir::Arg& a = ops[i].in[k];
      if (a.value >= 0 && c.run_of[a.value] == cur) continue;
      const Shape* s = a.value >= 0 ? &ops[a.value].shape : a.external ? &a.external->shape() : nullptr;
      if (!s || s->num_elements() != count) return false;
    }
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    c.source[i] = static_cast<uint32_t>(i);
    if (!needed[i]) continue;
    const bool reduce = ir::reducible(ops[i].op);
    const bool anchor = ir::anchor(ops[i].op);
    const bool view = ir::view(ops[i].op);
    const uint32_t cur = static_cast<uint32_t>(c.runs.size()) - 1;
    bool joins = false;
    if (first < 0 || anchor || cut_before[i]) {
      joins = false;  // a matmul or conv heads its own run: its inputs are whole tensors, not tile registers
    } else if (view) {
      const int32_t v = ops[i].in[0].value;
      joins = v >= 0 && c.run_of[v] == cur && !reduces;
    } else if (red < 0) {
      const int32_t v = ops[i].in[0].value;
      joins = reduce ? v >= 0 && c.run_of[v] == cur && !viewed
                     : ops[i].shape == ops[shape_of].shape && (!viewed || outside_operands_full(i, cur));
    } else if (!reduce && ops[i].shape == ops[shape_of].shape) {
      joins = !viewed || outside_operands_full(i, cur);
      for (size_t k = 0; k < ops[i].n_in; ++k) {
        const int32_t w = ops[i].in[k].value;
        if (w >= 0 && c.run_of[w] == cur && !after_reduce[w]) joins = false;
      }
    }
    if (!joins) {
      if (!c.runs.empty()) c.runs.back().second = static_cast<uint32_t>(i);
      c.runs.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(n));
      first = shape_of = static_cast<int64_t>(i);
      red = -1;
      reduces = viewed = false;
    }
    c.run_of[i] = static_cast<uint32_t>(c.runs.size() - 1);
    c.after_view[i] = viewed;
    if (reduce || anchor) red = shape_of = static_cast<int64_t>(i);  // an anchor is followed by its epilogue only
    reduces = reduces || reduce;
    after_reduce[i] = red >= 0;
    if (view) {
      if (joins) {
        viewed = true;
        shape_of = static_cast<int64_t>(i);
        c.source[i] = c.source[ops[i].in[0].value];
      } else {
        first = -1;  // a view heading a run runs alone: its input is not a register of the run
      }
    }
  }
  return c;
}

// Which values leave their run: alive handles, values a later run reads, and the sources of those
// that are views inside a run (the view is reshaped from its source after the run).
std::vector<uint8_t> stored_values(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& needed,
                                   const std::vector<uint8_t>& alive, const Cutting& c) {
  const size_t n = ops.size();
  std::vector<uint8_t> stored(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!needed[i]) continue;
    if (alive[i]) stored[i] = 1;
    for (size_t k = 0; k < ops[i].n_in; ++k) {
      const int32_t v = ops[i].in[k].value;
      if (v >= 0 && c.run_of[v] != c.run_of[i]) stored[v] = 1;
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (needed[i] && stored[i] && c.source[i] != i) stored[c.source[i]] = 1;
  return stored;
}

size_t computed_ops(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& needed, uint32_t begin,
                    uint32_t end) {
  size_t count = 0;
  for (uint32_t i = begin; i < end; ++i) count += needed[i] && !ir::view(ops[i].op);
  return count;
}

// The fused program of run [begin, end) (registers, inputs, outputs, views); whether the executor
// accepts it. A run of fewer than two computed ops is never fused: one op alone is its eager kernel.
bool build_program(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& needed,
                   const std::vector<uint8_t>& stored, const Cutting& c, const FusedExecutor& executor, Run& run) {
  if (computed_ops(ops, needed, run.begin, run.end) < 2) return false;
  FusedProgram& p = run.program;
  // Inputs first: every external argument, and each value of an earlier run once (once before the
  // run's first view and once after it, since those after it are reshaped to the iteration shape).
  std::unordered_map<int64_t, uint16_t> value_input;
  std::vector<std::array<uint16_t, 3>> arg_reg(run.end - run.begin);
  for (uint32_t i = run.begin; i < run.end; ++i) {
    if (!needed[i]) continue;
    for (size_t k = 0; k < ops[i].n_in; ++k) {
      const ir::Arg& a = ops[i].in[k];
      if (a.value >= 0 && static_cast<uint32_t>(a.value) >= run.begin) continue;  // computed in this run
      if (a.value < 0 && !a.external) {                                           // an absent norm operand
        arg_reg[i - run.begin][k] = kNoRegister;
        continue;
      }
      uint16_t reg;
      if (a.value >= 0) {
        auto [it, added] =
            value_input.try_emplace(int64_t{a.value} * 2 + c.after_view[i], static_cast<uint16_t>(run.inputs.size()));
        reg = it->second;
        if (!added) {
          arg_reg[i - run.begin][k] = reg;
          continue;
        }
        run.inputs.push_back({static_cast<uint32_t>(a.value), -1});
        p.reg_dtype.push_back(ops[a.value].dtype);
      } else {
        reg = static_cast<uint16_t>(run.inputs.size());
        run.inputs.push_back({i, static_cast<int32_t>(k)});
        p.reg_dtype.push_back(a.external->dtype());
      }
      if (c.after_view[i]) run.view_inputs.push_back(reg);
      arg_reg[i - run.begin][k] = reg;
    }
  }
  p.num_inputs = run.inputs.size();
  std::unordered_map<uint32_t, uint16_t> op_reg;
  for (uint32_t i = run.begin; i < run.end; ++i) {
    if (!needed[i]) continue;
    const ir::PendingOp& op = ops[i];
    if (ir::view(op.op)) {  // no instruction: the register of its source
      ++run.view_count;
      op_reg[i] = op_reg.at(c.source[i]);
      if (stored[i]) run.views.emplace_back(i, c.source[i]);
      continue;
    }
    FusedInstr in;
    in.op = op.op;
    in.n_args = op.n_in;
    in.param_dtype = op.param_dtype;
    in.dim = op.dim;
    for (size_t k = 0; k < op.n_in; ++k) {
      const int32_t v = op.in[k].value;
      in.args[k] = v >= 0 && static_cast<uint32_t>(v) >= run.begin ? op_reg.at(static_cast<uint32_t>(v))
                                                                   : arg_reg[i - run.begin][k];
    }
    in.out = static_cast<uint16_t>(p.reg_dtype.size());
    op_reg[i] = in.out;
    p.reg_dtype.push_back(op.dtype);
    p.code.push_back(in);
    run.instr_op.push_back(i);
    if (stored[i]) {
      p.outputs.push_back(in.out);
      run.output_op.push_back(i);
    }
  }
  return executor.can_run(p);
}

// ---- the score ----
// The cost of running a piece of a segment, in bytes moved: what its kernels read from and write to
// memory, plus kLaunchBytes per kernel or program launched (a few microseconds of fixed cost at
// memory speed). Ops run one by one read every operand and write every result; a fused program reads
// each input once and writes only the values that leave it.
constexpr double kLaunchBytes = 32 * 1024;

double bytes_of(const Shape& shape, DType dtype) {
  return static_cast<double>(shape.num_elements()) * static_cast<double>(dtype_size(dtype));
}

double operand_bytes(const std::vector<ir::PendingOp>& ops, const ir::Arg& a) {
  if (a.value >= 0) return bytes_of(ops[a.value].shape, ops[a.value].dtype);
  return a.external ? bytes_of(a.external->shape(), a.external->dtype()) : 0.0;
}

double eager_cost(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& needed, uint32_t begin,
                  uint32_t end) {
  double cost = 0;
  for (uint32_t i = begin; i < end; ++i) {
    if (!needed[i]) continue;
    if (ir::view(ops[i].op)) continue;  // metadata only
    cost += kLaunchBytes + bytes_of(ops[i].shape, ops[i].dtype);
    for (size_t k = 0; k < ops[i].n_in; ++k) cost += operand_bytes(ops, ops[i].in[k]);
  }
  return cost;
}

double fused_cost(const std::vector<ir::PendingOp>& ops, const Run& run) {
  double cost = kLaunchBytes;
  for (const InputSource& src : run.inputs)
    cost +=
        operand_bytes(ops, src.slot < 0 ? ir::Arg{static_cast<int32_t>(src.op), nullptr} : ops[src.op].in[src.slot]);
  for (uint32_t o : run.output_op) cost += bytes_of(ops[o].shape, ops[o].dtype);
  // The anchor's own kernel: its whole operands are read and its result written before the epilogue.
  if (!run.instr_op.empty() && ir::anchor(ops[run.instr_op.front()].op))
    cost += bytes_of(ops[run.instr_op.front()].shape, ops[run.instr_op.front()].dtype);
  return cost;
}

// The search over the ways to cut run [begin, end), which the executor refused whole, into pieces:
// each runs fused (a run of its own under the rules, which the executor accepts) or op by op; the
// cutting of least cost wins (dynamic programming over where pieces start). A longer fused piece
// never costs more than two pieces of it (it reads each input once and stores fewer values), so from
// each start only the longest piece the executor accepts is weighed against the op alone; that piece
// is found by bisection, since a piece the rules or the executor refuse stays refused when it grows.
// Returns the ops that start a piece.
std::vector<uint32_t> best_cuts(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& needed,
                                const std::vector<uint8_t>& alive, const FusedExecutor& executor, uint32_t begin,
                                uint32_t end) {
  std::vector<uint32_t> idx;  // the computed ops of the run
  for (uint32_t i = begin; i < end; ++i)
    if (needed[i]) idx.push_back(i);
  const size_t m = idx.size(), n = ops.size();
  // The piece idx[j, k) as a run of its own: null when the rules or the executor refuse it.
  std::vector<uint8_t> cut(n, 0);
  const auto piece = [&](size_t j, size_t k) -> std::optional<Run> {
    cut[idx[j]] = 1;
    if (k < m) cut[idx[k]] = 1;
    const Cutting c = cut_runs(ops, needed, cut);
    cut[idx[j]] = 0;
    if (k < m) cut[idx[k]] = 0;
    Run run;
    run.begin = idx[j];
    run.end = idx[k - 1] + 1;
    if (c.run_of[idx[j]] != c.run_of[idx[k - 1]]) return std::nullopt;
    const bool fusable = build_program(ops, needed, stored_values(ops, needed, alive, c), c, executor, run);
    if (!fusable && computed_ops(ops, needed, run.begin, run.end) >= 2) return std::nullopt;
    run.fused = fusable;
    return run;
  };
  // best[k]: the cheapest way to run idx[0, k); from[k]: where its last piece starts.
  std::vector<double> best(m + 1, std::numeric_limits<double>::infinity());
  std::vector<size_t> from(m + 1, 0);
  best[0] = 0;
  const auto relax = [&](size_t j, size_t k, double cost) {
    if (best[j] + cost < best[k]) {
      best[k] = best[j] + cost;
      from[k] = j;
    }
  };
  // Past kSearchOps computed ops the search follows one path instead of weighing every start: from
  // where the last piece ended, the longest accepted piece, else the op alone (it bounds the first
  // plan of a long refused run; the path is the optimum unless an op joins a piece only from later).
  constexpr size_t kSearchOps = 64;
  const bool one_path = m > kSearchOps;
  size_t path = 0;  // one_path: where the next piece starts
  for (size_t j = 0; j < m; ++j) {
    if (one_path && j != path) continue;
    path = j + 1;
    relax(j, j + 1, eager_cost(ops, needed, idx[j], idx[j] + 1));
    size_t lo = j + 1, hi = m;  // the longest piece not refused is idx[j, lo)
    while (lo < hi) {
      const size_t mid = (lo + hi + 1) / 2;
      if (piece(j, mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    if (lo < j + 2) continue;
    const std::optional<Run> run = piece(j, lo);
    if (run && run->fused) {
      relax(j, lo, fused_cost(ops, *run));
      path = lo;
    }
  }
  std::vector<uint32_t> starts;
  for (size_t k = m; k > 0; k = from[k]) starts.push_back(idx[from[k]]);
  return starts;
}

}  // namespace

std::shared_ptr<const Plan> make_plan(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& alive,
                                      const FusedExecutor* executor) {
  auto plan = std::make_shared<Plan>();
  const size_t n = ops.size();
  plan->needed.assign(n, 0);
  // Dead-code elimination: a result is computed only if its handle is alive or a computed op reads it.
  for (size_t i = n; i-- > 0;) {
    if (alive[i]) plan->needed[i] = 1;
    if (!plan->needed[i]) continue;
    for (size_t k = 0; k < ops[i].n_in; ++k)
      if (ops[i].in[k].value >= 0) plan->needed[ops[i].in[k].value] = 1;
  }
  // The runs of a cutting, each built into a program when the executor accepts it.
  const auto build_runs = [&](const Cutting& c) {
    plan->stored = stored_values(ops, plan->needed, alive, c);
    plan->runs.clear();
    for (const auto& [begin, end] : c.runs) {
      Run run;
      run.begin = begin;
      run.end = end;
      if (executor) run.fused = build_program(ops, plan->needed, plan->stored, c, *executor, run);
      plan->runs.push_back(std::move(run));
    }
  };
  // The longest runs the rules allow. Where the executor refuses one whole (an op or dtype it does not
  // run), the search cuts it into the pieces of least cost.
  std::vector<uint8_t> cut(n, 0);
  build_runs(cut_runs(ops, plan->needed, cut));
  if (!executor) return plan;
  bool recut = false;
  for (const Run& run : plan->runs) {
    if (run.fused || computed_ops(ops, plan->needed, run.begin, run.end) < 2) continue;
    for (uint32_t start : best_cuts(ops, plan->needed, alive, *executor, run.begin, run.end)) {
      cut[start] = 1;
      recut = true;
    }
  }
  if (recut) build_runs(cut_runs(ops, plan->needed, cut));
  return plan;
}

std::shared_ptr<const Plan> PlanCache::find(const PlanKey& key) const {
  std::lock_guard lock(mutex_);
  const auto it = plans_.find(hash_key(key));
  if (it == plans_.end()) return nullptr;
  for (const auto& [k, plan] : it->second)
    if (k == key) return plan;
  return nullptr;
}

void PlanCache::insert(PlanKey key, std::shared_ptr<const Plan> plan) {
  std::lock_guard lock(mutex_);
  if (count_ >= kMaxPlans) {
    plans_.clear();
    count_ = 0;
  }
  plans_[hash_key(key)].emplace_back(std::move(key), std::move(plan));
  ++count_;
}

size_t PlanCache::size() const {
  std::lock_guard lock(mutex_);
  return count_;
}

}  // namespace burn::fusion
