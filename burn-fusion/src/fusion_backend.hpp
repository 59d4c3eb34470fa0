// The Fusion decorator: elementwise ops, reductions over a dim and the matmul/conv anchors are
// recorded into a per-thread segment of pending ops (ir::PendingOp) and run when a result is needed;
// every other op resolves its inputs (running the segments that compute them) and runs on the inner
// backend. See burn-fusion/README.md.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "burn/fusion/fusion.hpp"
#include "burn/tensor/fused.hpp"
#include "ir.hpp"
#include "plan.hpp"

namespace burn::fusion {

struct Segment;

// What every segment of one fusion device shares: the inner backend, its executor, the plan cache
// and the counters. Segments hold it, so it outlives the backend object if tensors do.
struct FusionState {
  explicit FusionState(BackendPtr inner_backend);
  BackendPtr inner;
  FusedExecutor* executor = nullptr;  // queried once; null when the inner backend has none
  std::atomic<bool> executor_enabled{true};
  PlanCache plans;

  struct Counters {
    std::atomic<uint64_t> recorded{0}, flushes{0}, fused_runs{0}, fused_ops{0}, eager_ops{0}, skipped_ops{0}, stored{0},
        plan_hits{0}, plan_misses{0};
  } counters;
  mutable std::mutex last_plan_mutex;
  std::shared_ptr<const Plan> last_plan;  // of the last segment executed, with its op kinds
  std::vector<OpId> last_kinds;

  // Runs a flushed segment's ops: the alive results are set on their handles.
  void execute(std::vector<ir::PendingOp>& ops);
};

// A run of recorded ops, executed together. Recorded by one thread; any thread may flush it (a read of
// one of its tensors), so everything is under `mutex`.
struct Segment {
  explicit Segment(std::shared_ptr<FusionState> s) : state(std::move(s)) {}
  std::mutex mutex;
  std::atomic<bool> flushed{false};
  std::exception_ptr error;  // what the execution threw: every handle of the segment rethrows it
  std::vector<ir::PendingOp> ops;
  std::shared_ptr<FusionState> state;

  // Executes the ops once (later calls return, or rethrow the first failure).
  void flush();
};

// The fusion decorator's primitive: ready (holds the inner primitive) or pending (value `index` of
// `segment`, computed when the segment is flushed).
class FusionPrim final : public Primitive {
 public:
  explicit FusionPrim(Prim inner);
  FusionPrim(Shape shape, DType dtype, std::shared_ptr<Segment> segment, uint32_t index);

  bool ready() const { return ready_.load(std::memory_order_acquire); }
  const std::shared_ptr<Segment>& segment() const { return segment_; }
  uint32_t index() const { return index_; }
  // The inner primitive; flushes the segment that computes it first.
  const Prim& resolve();
  // Set by the flush, under the segment's mutex.
  void set(Prim inner);

 private:
  std::shared_ptr<Segment> segment_;
  uint32_t index_ = 0;
  std::atomic<bool> ready_{false};
  Prim inner_;
};

// The FusionPrim behind a primitive; DeviceError naming `op` if it came from another device.
FusionPrim& fusion_prim(const Prim& p, const char* op);

class FusionBackend final : public ForwardingBackend, public Inspector {
 public:
  explicit FusionBackend(BackendPtr inner);

  void* query_interface(std::string_view name) override;
  void sync() override;

  // Inspector
  Stats stats() const override;
  void reset_stats() override;
  void set_executor_enabled(bool enabled) override { state_->executor_enabled = enabled; }
  bool uses_executor() const override { return state_->executor && state_->executor_enabled; }
  std::vector<std::string> last_plan() const override;
  size_t cached_plans() const override { return state_->plans.size(); }

#define BURN_FUSION_DECL(group, name, tier, grad, bound, ret, ...) ret name BURN_OP_PARAMS(__VA_ARGS__) override;
  BURN_OP_TABLE(BURN_FUSION_DECL)
#undef BURN_FUSION_DECL

  // The tensor and non-tensor arguments of an elementwise call.
  struct Call {
    OpId op;
    std::array<const Prim*, 3> prims{};
    uint8_t n_prims = 0;
    std::array<Scalar, 2> scalars;
    uint8_t n_scalars = 0;
    std::array<double, 2> params{};
    uint8_t n_params = 0;
    DType param_dtype = DType::F32;
  };
  // Records the call into this thread's segment; null when it must run now (operands the inner backend
  // refuses, so that its error is raised at the call).
  Prim record(const Call& call);
  // Records a reduction over `dim` (ir::reducible) of a tensor pending in this thread's segment, so a
  // plan can fuse it with the ops that compute its input; null when it must run now (a ready input, a
  // dim or dtype the eager kernel raises for, an empty tensor).
  Prim record_reduce(OpId op, const Prim& x, size_t dim);
  // layer_norm (weight and bias may be null) and rms_norm (bias null) of a pending x: recorded when x is
  // pending here and weight and bias are ready tensors of x's dtype over its trailing `normalized_dims`.
  Prim record_reduce(OpId op, const Prim& x, const Prim& weight, const Prim& bias, size_t normalized_dims, double eps);
  Prim record_reduce(OpId op, const Prim& x, const Prim& weight, size_t normalized_dims, double eps) {
    return record_reduce(op, x, weight, nullptr, normalized_dims, eps);
  }
  // matmul of float tensors the eager kernel accepts: recorded as the head of a run (ir::anchor) whose
  // epilogue may follow; null when it must run now (a shape or dtype the kernel raises for).
  Prim record_anchor(OpId op, const Prim& lhs, const Prim& rhs);
  // conv and conv_transpose (bias may be null) with options normalised as the tensor API hands them on, likewise.
  Prim record_anchor(OpId op, const Prim& x, const Prim& weight, const Prim& bias, const ConvOptions& options);
  Prim record_anchor(OpId op, const Prim& x, const Prim& weight, const Prim& bias, const ConvTransposeOptions& options);
  // reshape of a tensor pending in this thread's segment to a concrete shape of as many elements:
  // recorded as a view (ir::view); null when it must run now (a ready tensor, -1, a wrong size).
  Prim record_view(const Prim& x, const Shape& shape);

 protected:
  std::string decorator_name() const override { return "fusion"; }

 private:
  // This thread's open segment of this device (a new one when the last was flushed).
  std::shared_ptr<Segment> current_segment();
  bool recordable(const Call& call, Shape& shape, DType& dtype) const;
  // Appends the call to this thread's segment (inputs pending elsewhere run first).
  Prim push(const Call& call, Shape shape, DType dtype, std::shared_ptr<const ConvOptions> conv,
            std::shared_ptr<const ConvTransposeOptions> conv_transpose = nullptr);
  // The float dtype of an anchor's operands (a and b present, bias optional), each a fusion tensor; nullopt
  // when the eager kernel would refuse them (another dtype, mixed dtypes, an op the inner backend lacks).
  std::optional<DType> anchor_dtype(OpId op, const Prim& a, const Prim& b, const Prim* bias);
  // Appends an anchor of result `shape` (operands a, b and, for convs, bias); null when the result is
  // past the allocation limit, so the eager call raises.
  Prim push_anchor(OpId op, const Prim& a, const Prim& b, const Prim* bias, Shape shape, DType dtype,
                   std::shared_ptr<const ConvOptions> conv, std::shared_ptr<const ConvTransposeOptions> conv_transpose);
  // Appends `rec`, a reduction or view of pending `x`, to this thread's segment; null when x is not
  // pending there.
  Prim push_of_pending(ir::PendingOp rec, FusionPrim& x);

  const uint64_t id_;  // keys the per-thread segments; never reused, unlike the object's address
  std::shared_ptr<FusionState> state_;
};

}  // namespace burn::fusion
