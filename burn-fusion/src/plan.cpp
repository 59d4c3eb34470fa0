// Planning a segment (see plan.hpp) and the plan cache.
#include "plan.hpp"

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
    for (size_t k = 0; k < op.n_in; ++k) {
      const ir::Arg& a = op.in[k];
      // An absent operand (a norm without weight or bias) is a key of its own.
      key.push_back(a.value >= 0 ? (uint64_t(1) << 63) | uint64_t(a.value)
                    : a.external ? uint64_t(static_cast<uint8_t>(a.external->dtype()))
                                 : uint64_t(0xFFFF));
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

}  // namespace

std::shared_ptr<const Plan> make_plan(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& alive,
                                      const FusedExecutor* executor) {
  auto plan = std::make_shared<Plan>();
  const size_t n = ops.size();
  plan->needed.assign(n, 0);
  plan->stored.assign(n, 0);
  // Dead-code elimination: a result is computed only if its handle is alive or a computed op reads it.
  for (size_t i = n; i-- > 0;) {
    if (alive[i]) plan->needed[i] = 1;
    if (!plan->needed[i]) continue;
    for (size_t k = 0; k < ops[i].n_in; ++k)
      if (ops[i].in[k].value >= 0) plan->needed[ops[i].in[k].value] = 1;
  }
  // Runs: consecutive computed ops of one output shape (the prologue). A reduction whose input is a
  // value of the open run joins it; any other reduction starts a run. After a reduction, only its
  // epilogue joins: elementwise ops of the reduction's output shape whose values from this run are
  // the reduction's or the epilogue's (a prologue value is gone once the reduction has run). A
  // matmul or conv (an anchor) always starts a run and is followed by its epilogue the same way.
  std::vector<uint32_t> run_of(n, UINT32_MAX);
  std::vector<uint8_t> after_reduce(n, 0);  // per op: the reduction of its run or its epilogue
  int64_t first = -1;                       // first computed op of the open run
  int64_t red = -1;                         // the open run's reduction, if it has one
  for (size_t i = 0; i < n; ++i) {
    if (!plan->needed[i]) continue;
    const bool reduce = ir::reducible(ops[i].op);
    const bool anchor = ir::anchor(ops[i].op);
    const uint32_t cur = static_cast<uint32_t>(plan->runs.size()) - 1;
    bool joins = false;
    if (anchor) {
      joins = false;  // a matmul or conv heads its own run: its inputs are whole tensors, not tile registers
    } else if (first >= 0 && red < 0) {
      const int32_t v = ops[i].in[0].value;
      joins = reduce ? v >= 0 && run_of[v] == cur : ops[i].shape == ops[first].shape;
    } else if (first >= 0 && !reduce && ops[i].shape == ops[red].shape) {
      joins = true;
      for (size_t k = 0; k < ops[i].n_in; ++k) {
        const int32_t w = ops[i].in[k].value;
        if (w >= 0 && run_of[w] == cur && !after_reduce[w]) joins = false;
      }
    }
    if (!joins) {
      if (!plan->runs.empty()) plan->runs.back().end = static_cast<uint32_t>(i);
      plan->runs.push_back(Run{static_cast<uint32_t>(i), static_cast<uint32_t>(n), false, {}, {}, {}, {}});
      first = static_cast<int64_t>(i);
      red = -1;
    }
    run_of[i] = static_cast<uint32_t>(plan->runs.size() - 1);
    if (reduce || anchor) red = static_cast<int64_t>(i);  // an anchor is followed by its epilogue only
    after_reduce[i] = red >= 0;
  }
  // A value leaves its run when its handle is alive or a later run reads it.
  for (size_t i = 0; i < n; ++i) {
    if (!plan->needed[i]) continue;
    if (alive[i]) plan->stored[i] = 1;
    for (size_t k = 0; k < ops[i].n_in; ++k) {
      const int32_t v = ops[i].in[k].value;
      if (v >= 0 && run_of[v] != run_of[i]) plan->stored[v] = 1;
    }
  }
  if (!executor) return plan;
  for (Run& run : plan->runs) {
    size_t count = 0;
    for (uint32_t i = run.begin; i < run.end; ++i) count += plan->needed[i];
    if (count < 2) continue;  // one op alone is exactly its eager kernel
    FusedProgram& p = run.program;
    // Inputs first: every external argument, and each value of an earlier run once.
    std::unordered_map<int32_t, uint16_t> value_input;
    std::vector<std::array<uint16_t, 3>> arg_reg(run.end - run.begin);
    for (uint32_t i = run.begin; i < run.end; ++i) {
      if (!plan->needed[i]) continue;
      for (size_t k = 0; k < ops[i].n_in; ++k) {
        const ir::Arg& a = ops[i].in[k];
        if (a.value >= 0 && static_cast<uint32_t>(a.value) >= run.begin) continue;  // computed in this run
        if (a.value < 0 && !a.external) {                                           // an absent norm operand
          arg_reg[i - run.begin][k] = kNoRegister;
          continue;
        }
        uint16_t reg;
        if (a.value >= 0) {
          auto [it, added] = value_input.try_emplace(a.value, static_cast<uint16_t>(run.inputs.size()));
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
        arg_reg[i - run.begin][k] = reg;
      }
    }
    p.num_inputs = run.inputs.size();
    std::unordered_map<uint32_t, uint16_t> op_reg;
    for (uint32_t i = run.begin; i < run.end; ++i) {
      if (!plan->needed[i]) continue;
      const ir::PendingOp& op = ops[i];
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
      if (plan->stored[i]) {
        p.outputs.push_back(in.out);
        run.output_op.push_back(i);
      }
    }
    run.fused = executor->can_run(p);
  }
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
