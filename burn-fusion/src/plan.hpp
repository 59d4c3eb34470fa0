// Plans: how a flushed segment runs. The ops a result nobody holds or reads depends on are dropped;
// the rest are cut into runs of consecutive ops over one iteration shape (a reduction of a value of the
// open run joins it, followed only by its epilogue: ops over the reduction's result; a matmul or conv
// starts a run, followed only by its epilogue; a view of a value of a run without a reduction joins it,
// followed by ops of the view's shape whose other operands have as many elements); a run of two or
// more ops the executor accepts becomes one fused program, every other op runs alone on the inner
// backend. A plan depends only on the
// shape-free op sequence (PlanKey), so a loop that records the same ops every step plans once and then
// only fills in shapes, scalars and tensors.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "burn/tensor/fused.hpp"
#include "ir.hpp"

namespace burn::fusion {

// Where a fused program's input comes from: the external argument `slot` of op `op`, or (slot < 0)
// the value of op `op`, computed by an earlier run of the segment.
struct InputSource {
  uint32_t op = 0;
  int32_t slot = -1;
};

struct Run {
  uint32_t begin = 0, end = 0;  // op indices [begin, end) of the segment; skipped ops inside are not run
  bool fused = false;
  // Fused runs: the program without its shape, scalars and parameters, and where its registers go.
  FusedProgram program;
  std::vector<InputSource> inputs;  // one per input register
  std::vector<uint32_t> instr_op;   // the op of each instruction
  std::vector<uint32_t> output_op;  // the op whose value each stored output is
  // Views (ir::view) inside the fused run: no instruction; the ops after one are computed over the
  // run's iteration shape, so their inputs are reshaped to it and their outputs back to their shapes.
  uint32_t view_count = 0;
  std::vector<uint16_t> view_inputs;  // input registers read after a view (of the view's element count)
  // Each stored view and the op before any view whose value it is (stored too): reshaped after the run.
  std::vector<std::pair<uint32_t, uint32_t>> views;
};

struct Plan {
  std::vector<uint8_t> needed;  // per op: run (1) or skipped (0)
  std::vector<uint8_t> stored;  // per op: its value leaves its run (alive handle or a later run reads it)
  std::vector<Run> runs;
};

// The shape-free description of a segment: per op its kind, dtypes, argument structure, which earlier
// op has the same output shape (or none), whether each argument has the op's element count, whether
// its handle is alive and a reduction's dim; plus whether an executor may be used.
using PlanKey = std::vector<uint64_t>;
PlanKey plan_key(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& alive, bool executor);

// Builds the plan of a segment; `executor` (may be null) decides which runs are fused.
std::shared_ptr<const Plan> make_plan(const std::vector<ir::PendingOp>& ops, const std::vector<uint8_t>& alive,
                                      const FusedExecutor* executor);

class PlanCache {
 public:
  // The cached plan for `key`, or null.
  std::shared_ptr<const Plan> find(const PlanKey& key) const;
  void insert(PlanKey key, std::shared_ptr<const Plan> plan);
  size_t size() const;

 private:
  static constexpr size_t kMaxPlans = 4096;  // a program recording ever-new sequences must not grow without bound
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, std::vector<std::pair<PlanKey, std::shared_ptr<const Plan>>>> plans_;
  size_t count_ = 0;
};

}  // namespace burn::fusion
