// The Fusion decorator: recording into per-thread segments, resolving pending tensors, running every
// other op on the inner backend, the inspector, and the decorator registration.
#include "fusion_backend.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <type_traits>
#include <utility>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn::fusion {

namespace {

// A segment is flushed when it holds this many ops, so a loop that never reads cannot pile up work
// (and the external tensors its ops hold) without bound.
constexpr size_t kMaxSegmentOps = 256;

std::atomic<uint64_t> g_next_backend_id{1};

bool int_division(OpId op) {
  return op == OpId::div || op == OpId::remainder || op == OpId::fmod || op == OpId::div_scalar ||
         op == OpId::remainder_scalar || op == OpId::fmod_scalar;
}

}  // namespace

// ---- FusionPrim ----

FusionPrim::FusionPrim(Prim inner) : Primitive(inner->shape(), inner->dtype()), inner_(std::move(inner)) {
  ready_.store(true, std::memory_order_relaxed);
}

FusionPrim::FusionPrim(Shape shape, DType dtype, std::shared_ptr<Segment> segment, uint32_t index)
    : Primitive(std::move(shape), dtype), segment_(std::move(segment)), index_(index) {}

const Prim& FusionPrim::resolve() {
  if (ready()) return inner_;
  segment_->flush();
  if (!ready()) throw Error("fusion", "internal: a flushed segment left one of its live tensors unset");
  return inner_;
}

void FusionPrim::set(Prim inner) {
  inner_ = std::move(inner);
  ready_.store(true, std::memory_order_release);
}

FusionPrim& fusion_prim(const Prim& p, const char* op) {
  auto* f = dynamic_cast<FusionPrim*>(p.get());
  if (!f) throw DeviceError(op, "the tensor does not belong to this fusion device");
  return *f;
}

// ---- Segment and execution ----

void Segment::flush() {
  std::lock_guard lock(mutex);
  if (flushed) {
    if (error) std::rethrow_exception(error);
    return;
  }
  flushed = true;
  std::vector<ir::PendingOp> pending = std::move(ops);
  ops.clear();
  try {
    state->execute(pending);
  } catch (...) {
    error = std::current_exception();
    throw;
  }
}

FusionState::FusionState(BackendPtr inner_backend) : inner(std::move(inner_backend)) {
  executor = static_cast<FusedExecutor*>(inner->query_interface(kFusedElementwiseInterface));
  // BURN_FUSION_EXECUTOR=0 runs every segment op by op (A/B checks, conformance of that path).
  const char* env = std::getenv("BURN_FUSION_EXECUTOR");
  if (env && std::string_view(env) == "0") executor_enabled = false;
}

void FusionState::execute(std::vector<ir::PendingOp>& ops) {
  const size_t n = ops.size();
  if (n == 0) return;
  counters.flushes.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::shared_ptr<FusionPrim>> handles(n);
  std::vector<uint8_t> alive(n);
  for (size_t i = 0; i < n; ++i) {
    handles[i] = ops[i].out.lock();
    alive[i] = handles[i] != nullptr;
  }
  const bool use_executor = executor && executor_enabled.load(std::memory_order_relaxed);
  PlanKey key = plan_key(ops, alive, use_executor);
  std::shared_ptr<const Plan> plan = plans.find(key);
  if (plan) {
    counters.plan_hits.fetch_add(1, std::memory_order_relaxed);
  } else {
    counters.plan_misses.fetch_add(1, std::memory_order_relaxed);
    plan = make_plan(ops, alive, use_executor ? executor : nullptr);
    plans.insert(std::move(key), plan);
  }

  // Uses left of each value, so that its last reader may take (and the kernel reuse) its buffer.
  std::vector<uint32_t> uses(n, 0);
  uint64_t skipped = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!plan->needed[i]) {
      ++skipped;
      continue;
    }
    for (size_t k = 0; k < ops[i].n_in; ++k)
      if (ops[i].in[k].value >= 0) ++uses[ops[i].in[k].value];
  }
  counters.skipped_ops.fetch_add(skipped, std::memory_order_relaxed);
  std::vector<Prim> vals(n);
  auto release = [&](int32_t v) {
    if (--uses[v] == 0) vals[v].reset();
  };

  Backend& b = *inner;
  for (const Run& run : plan->runs) {
    if (run.fused) {
      FusedProgram p = run.program;
      // The iteration space: the first op's shape, or the input's when the run starts at a reduction.
      const ir::PendingOp& head = ops[run.instr_op.front()];
      p.shape = ir::reducible(head.op) ? ops[head.in[0].value].shape : head.shape;
      for (size_t k = 0; k < p.code.size(); ++k) {
        const ir::PendingOp& op = ops[run.instr_op[k]];
        for (size_t s = 0; s < op.n_scalars; ++s) p.code[k].scalars[s] = op.scalars[s];
        for (size_t d = 0; d < op.n_params; ++d) p.code[k].params[d] = op.params[d];
        if (op.conv) p.code[k].conv = *op.conv;
        if (op.conv_transpose) p.code[k].conv_transpose = *op.conv_transpose;
      }
      Prims inputs;
      inputs.reserve(run.inputs.size());
      bool owned = true;
      for (const InputSource& src : run.inputs) {
        inputs.push_back(src.slot < 0 ? vals[src.op] : ops[src.op].in[src.slot].external);
        owned = owned && executor->owns(*inputs.back());
      }
      if (owned && executor->fits(p)) {
        // After a view the program indexes by the iteration shape: same element count, same order.
        for (uint16_t r : run.view_inputs)
          if (inputs[r]->shape() != p.shape) inputs[r] = b.reshape(inputs[r], p.shape);
        Prims outs = executor->run(p, inputs);
        inputs.clear();
        for (size_t j = 0; j < outs.size(); ++j) {
          const Shape& shape = ops[run.output_op[j]].shape;
          vals[run.output_op[j]] =
              run.view_count > 0 && outs[j]->shape() != shape ? b.reshape(outs[j], shape) : outs[j];
        }
        for (const auto& [view, src] : run.views) vals[view] = b.reshape(vals[src], ops[view].shape);
        // In op order, so that a value's handle is set before its last reader releases it.
        for (uint32_t i = run.begin; i < run.end; ++i) {
          if (!plan->needed[i]) continue;
          for (size_t k = 0; k < ops[i].n_in; ++k) {
            ir::Arg& a = ops[i].in[k];
            if (a.value >= 0) release(a.value);
            a.external.reset();
          }
          if (alive[i]) handles[i]->set(vals[i]);
        }
        counters.fused_runs.fetch_add(1, std::memory_order_relaxed);
        counters.fused_ops.fetch_add(run.instr_op.size() + run.view_count, std::memory_order_relaxed);
        counters.stored.fetch_add(outs.size(), std::memory_order_relaxed);
        continue;
      }
    }
    // Op by op: the very kernels an unfused device would call.
    for (uint32_t i = run.begin; i < run.end; ++i) {
      if (!plan->needed[i]) continue;
      ir::PendingOp& op = ops[i];
      Prims ins(op.n_in);
      for (size_t k = 0; k < op.n_in; ++k) {
        ir::Arg& a = op.in[k];
        if (a.value < 0) {
          ins[k] = std::move(a.external);
        } else if (uses[a.value] == 1 && !alive[a.value]) {
          ins[k] = std::move(vals[a.value]);
          --uses[a.value];
        } else {
          ins[k] = vals[a.value];
          release(a.value);
        }
      }
      vals[i] = ir::run_one(b, op, std::move(ins));
      if (alive[i]) handles[i]->set(vals[i]);
      if (uses[i] == 0) vals[i].reset();
      counters.eager_ops.fetch_add(1, std::memory_order_relaxed);
      counters.stored.fetch_add(1, std::memory_order_relaxed);
    }
  }
  // What last_plan() formats, kept as kinds and plan: strings on every flush would cost small ops.
  std::vector<OpId> kinds(n);
  for (size_t i = 0; i < n; ++i) kinds[i] = ops[i].op;
  std::lock_guard lock(last_plan_mutex);
  last_kinds = std::move(kinds);
  last_plan = std::move(plan);
}

// ---- the backend ----

FusionBackend::FusionBackend(BackendPtr inner)
    : ForwardingBackend(std::move(inner)),
      id_(g_next_backend_id.fetch_add(1)),
      state_(std::make_shared<FusionState>(this->inner())) {}

void* FusionBackend::query_interface(std::string_view name) {
  if (name == "fusion") return static_cast<Inspector*>(this);
  // Our primitives are not the inner backend's: its executor must not be reached through us.
  if (name == kFusedElementwiseInterface) return nullptr;
  return ForwardingBackend::query_interface(name);
}

std::shared_ptr<Segment> FusionBackend::current_segment() {
  // Each thread records into its own segment per fusion device.
  thread_local std::vector<std::pair<uint64_t, std::shared_ptr<Segment>>> segments;
  for (auto& [id, seg] : segments) {
    if (id != id_) continue;
    if (seg->flushed.load(std::memory_order_acquire)) seg = std::make_shared<Segment>(state_);
    return seg;
  }
  // Entries of other devices whose segments ran hold nothing worth keeping.
  std::erase_if(segments, [](const auto& e) { return e.second->flushed.load(std::memory_order_acquire); });
  segments.emplace_back(id_, std::make_shared<Segment>(state_));
  return segments.back().second;
}

void FusionBackend::sync() {
  current_segment()->flush();
  ForwardingBackend::sync();
}

bool FusionBackend::recordable(const Call& c, Shape& shape, DType& dtype) const {
  const OpId op = c.op;
  const char* name = op_info(op).name;
  for (size_t k = 0; k < c.n_prims; ++k)
    if (!*c.prims[k]) return false;
  const DType dt0 = (*c.prims[0])->dtype();
  for (size_t k = 0; k < c.n_prims; ++k) {
    fusion_prim(*c.prims[k], name);  // DeviceError for a foreign tensor, as the eager path would raise
    const DType d = (*c.prims[k])->dtype();
    if (d == DType::F16 || d == DType::BF16)
      return false;  // each op rounds once; a fused chain would round once at its end
  }
  if (op == OpId::cast && (c.param_dtype == DType::F16 || c.param_dtype == DType::BF16)) return false;
  if (!inner()->supports(op, dt0)) return false;
  // Int division by zero raises at the call: such calls run now.
  if (int_division(op) && !is_float(dt0)) return false;
  if (op == OpId::mask_where) {
    if ((*c.prims[1])->dtype() != DType::Bool || (*c.prims[2])->dtype() != dt0) return false;
  } else if (op == OpId::mask_fill) {
    if ((*c.prims[1])->dtype() != DType::Bool) return false;
  } else {
    for (size_t k = 1; k < c.n_prims; ++k)
      if ((*c.prims[k])->dtype() != dt0) return false;
  }
  shape = (*c.prims[0])->shape();
  for (size_t k = 1; k < c.n_prims; ++k) {
    std::optional<Shape> joint = shape_rules::try_broadcast(shape, (*c.prims[k])->shape());
    if (!joint) return false;
    shape = std::move(*joint);
  }
  dtype = elementwise_result_dtype(op, dt0, c.param_dtype);
  // A result too large to allocate raises at the call (the inner backend's OutOfMemory, naming the op).
  try {
    checked_bytes(shape, dtype_size(dtype), name);
  } catch (const Error&) {
    return false;
  }
  return true;
}

Prim FusionBackend::record(const Call& c) {
  Shape shape;
  DType dtype;
  if (!recordable(c, shape, dtype)) return nullptr;
  return push(c, std::move(shape), dtype, nullptr);
}

Prim FusionBackend::push(const Call& c, Shape shape, DType dtype, std::shared_ptr<const ConvOptions> conv,
                         std::shared_ptr<const ConvTransposeOptions> conv_transpose) {
  for (;;) {
    std::shared_ptr<Segment> seg = current_segment();
    // Inputs pending elsewhere (another thread's segment) run first, with no segment lock held.
    for (size_t k = 0; k < c.n_prims; ++k) {
      if (!*c.prims[k]) continue;  // an absent conv bias
      FusionPrim& f = static_cast<FusionPrim&>(**c.prims[k]);
      if (!f.ready() && f.segment() != seg) f.resolve();
    }
    std::unique_lock lock(seg->mutex);
    if (seg->flushed.load(std::memory_order_relaxed)) continue;  // another thread ran it: start a new one
    if (seg->ops.size() >= kMaxSegmentOps) {
      lock.unlock();
      seg->flush();
      continue;
    }
    ir::PendingOp op;
    op.op = c.op;
    op.n_in = c.n_prims;
    for (size_t k = 0; k < c.n_prims; ++k) {
      if (!*c.prims[k]) continue;
      FusionPrim& f = static_cast<FusionPrim&>(**c.prims[k]);
      if (!f.ready() && f.segment() == seg)
        op.in[k].value = static_cast<int32_t>(f.index());
      else
        op.in[k].external = f.resolve();  // ready: no lock taken
    }
    op.n_scalars = c.n_scalars;
    op.scalars = c.scalars;
    op.n_params = c.n_params;
    op.params = c.params;
    op.param_dtype = c.param_dtype;
    op.conv = conv;
    op.conv_transpose = conv_transpose;
    op.shape = shape;
    op.dtype = dtype;
    auto out = std::make_shared<FusionPrim>(std::move(shape), dtype, seg, static_cast<uint32_t>(seg->ops.size()));
    op.out = out;
    seg->ops.push_back(std::move(op));
    state_->counters.recorded.fetch_add(1, std::memory_order_relaxed);
    return out;
  }
}

std::optional<DType> FusionBackend::anchor_dtype(OpId op, const Prim& a, const Prim& b, const Prim* bias) {
  if (!a || !b) return std::nullopt;
  const char* name = op_info(op).name;
  fusion_prim(a, name);
  fusion_prim(b, name);
  const bool has_bias = bias && *bias;
  if (has_bias) fusion_prim(*bias, name);
  const DType dt = a->dtype();
  if ((dt != DType::F32 && dt != DType::F64) || b->dtype() != dt || (has_bias && (*bias)->dtype() != dt) ||
      !inner()->supports(op, dt))
    return std::nullopt;
  return dt;
}

Prim FusionBackend::push_anchor(OpId op, const Prim& a, const Prim& b, const Prim* bias, Shape shape, DType dtype,
                                std::shared_ptr<const ConvOptions> conv,
                                std::shared_ptr<const ConvTransposeOptions> conv_transpose) {
  try {
    checked_bytes(shape, dtype_size(dtype), op_info(op).name);
  } catch (const Error&) {
    return nullptr;
  }
  Call c;
  c.op = op;
  c.prims = {&a, &b, bias};
  c.n_prims = bias ? 3 : 2;
  return push(c, std::move(shape), dtype, std::move(conv), std::move(conv_transpose));
}

Prim FusionBackend::record_anchor(OpId op, const Prim& lhs, const Prim& rhs) {
  // Recorded only when the eager kernel cannot raise: anything it would refuse runs now, for its error.
  const std::optional<DType> dt = anchor_dtype(op, lhs, rhs, nullptr);
  if (!dt) return nullptr;
  std::optional<Shape> out = shape_rules::try_matmul(lhs->shape(), rhs->shape());
  if (!out) return nullptr;
  return push_anchor(op, lhs, rhs, nullptr, std::move(*out), *dt, nullptr, nullptr);
}

Prim FusionBackend::record_anchor(OpId op, const Prim& x, const Prim& weight, const Prim& bias, const ConvOptions& o) {
  const std::optional<DType> dt = anchor_dtype(op, x, weight, &bias);
  if (!dt) return nullptr;
  // The options the program keeps, normalised by the rule (one value per spatial dim).
  auto opts = std::make_shared<ConvOptions>(o);
  std::optional<Shape> shape =
      shape_rules::try_conv(x->shape(), weight->shape(), bias ? &bias->shape() : nullptr, *opts);
  if (!shape || shape->num_elements() == 0) return nullptr;
  return push_anchor(op, x, weight, &bias, std::move(*shape), *dt, std::move(opts), nullptr);
}

Prim FusionBackend::record_anchor(OpId op, const Prim& x, const Prim& weight, const Prim& bias,
                                  const ConvTransposeOptions& o) {
  const std::optional<DType> dt = anchor_dtype(op, x, weight, &bias);
  if (!dt) return nullptr;
  auto opts = std::make_shared<ConvTransposeOptions>(o);
  std::optional<Shape> shape =
      shape_rules::try_conv_transpose(x->shape(), weight->shape(), bias ? &bias->shape() : nullptr, *opts);
  if (!shape || shape->num_elements() == 0) return nullptr;
  return push_anchor(op, x, weight, &bias, std::move(*shape), *dt, nullptr, std::move(opts));
}

Prim FusionBackend::record_reduce(OpId op, const Prim& x, size_t dim) {
  if (!x) return nullptr;
  FusionPrim& f = fusion_prim(x, op_info(op).name);
  if (f.ready()) return nullptr;  // nothing to fuse it with: the eager kernel
  const DType dt = x->dtype();
  const Shape& in_shape = x->shape();
  // What the eager kernel would refuse runs now, so that its error is raised at the call.
  std::optional<Shape> reduced = shape_rules::try_reduce_dim(in_shape, dim, false);
  if (!reduced || in_shape.num_elements() == 0) return nullptr;
  const bool keeps = fused_reduce_keeps_shape(op);
  const bool dtype_ok = keeps ? (dt == DType::F32 || dt == DType::F64)
                              : (dt == DType::F32 || dt == DType::F64 || dt == DType::I64 || dt == DType::I32);
  if (!dtype_ok || !inner()->supports(op, dt)) return nullptr;
  ir::PendingOp rec;
  rec.op = op;
  rec.n_in = 1;
  rec.dim = static_cast<uint32_t>(dim);
  rec.shape = keeps ? in_shape : std::move(*reduced);
  rec.dtype = op == OpId::argmax || op == OpId::argmin ? DType::I64 : dt;
  return push_of_pending(std::move(rec), f);
}

Prim FusionBackend::record_reduce(OpId op, const Prim& x, const Prim& weight, const Prim& bias, size_t normalized_dims,
                                  double eps) {
  const char* name = op_info(op).name;
  if (!x) return nullptr;
  FusionPrim& f = fusion_prim(x, name);
  if (f.ready()) return nullptr;
  const DType dt = x->dtype();
  const Shape& shape = x->shape();
  const std::optional<Shape> trailing = shape_rules::try_layer_norm_params(shape, normalized_dims);
  if (!trailing || shape.num_elements() == 0) return nullptr;
  if ((dt != DType::F32 && dt != DType::F64) || !inner()->supports(op, dt)) return nullptr;
  ir::PendingOp rec;
  rec.op = op;
  rec.n_in = op == OpId::layer_norm ? 3 : 2;
  rec.in[0].value = 0;
  // Weight and bias go in whole: ready tensors of x's dtype and the trailing shape, or absent.
  const Prim* params[2] = {&weight, &bias};
  for (size_t k = 0; k + 1 < rec.n_in; ++k) {
    const Prim& p = *params[k];
    if (!p) continue;
    FusionPrim& pf = fusion_prim(p, name);
    if (!pf.ready() || p->dtype() != dt || p->shape() != *trailing) return nullptr;
    rec.in[k + 1].external = pf.resolve();
  }
  rec.n_params = 1;
  rec.params[0] = eps;
  rec.dim = static_cast<uint32_t>(normalized_dims);
  rec.shape = shape;
  rec.dtype = dt;
  return push_of_pending(std::move(rec), f);
}

Prim FusionBackend::record_view(const Prim& x, const Shape& shape) {
  if (!x) return nullptr;
  FusionPrim& f = fusion_prim(x, "reshape");
  if (f.ready()) return nullptr;  // the inner backend's own view
  // -1 is the eager kernel's to infer; a shape the rule refuses (a bad dim, a wrong element count)
  // runs eagerly for its error.
  for (int64_t d : shape.dims())
    if (d < 0) return nullptr;
  std::optional<Shape> target = shape_rules::try_reshape(x->shape(), shape);
  if (!target) return nullptr;
  if (*target == x->shape()) return x;
  ir::PendingOp rec;
  rec.op = OpId::reshape;
  rec.n_in = 1;
  rec.shape = std::move(*target);
  rec.dtype = x->dtype();
  return push_of_pending(std::move(rec), f);
}

Prim FusionBackend::push_of_pending(ir::PendingOp rec, FusionPrim& f) {
  for (;;) {
    std::shared_ptr<Segment> seg = current_segment();
    // Pending in another thread's segment (or flushed meanwhile): the eager path resolves it.
    if (f.segment() != seg) return nullptr;
    std::unique_lock lock(seg->mutex);
    if (seg->flushed.load(std::memory_order_relaxed)) continue;
    if (seg->ops.size() >= kMaxSegmentOps) {
      lock.unlock();
      seg->flush();
      continue;
    }
    rec.in[0].value = static_cast<int32_t>(f.index());
    Shape shape = rec.shape;
    const DType dtype = rec.dtype;
    auto out = std::make_shared<FusionPrim>(std::move(shape), dtype, seg, static_cast<uint32_t>(seg->ops.size()));
    rec.out = out;
    seg->ops.push_back(std::move(rec));
    state_->counters.recorded.fetch_add(1, std::memory_order_relaxed);
    return out;
  }
}

// ---- the ops ----

namespace {

template <typename T>
void collect(FusionBackend::Call& c, const T& a) {
  if constexpr (std::is_same_v<T, Prim>)
    c.prims[c.n_prims++] = &a;
  else if constexpr (std::is_same_v<T, Scalar>)
    c.scalars[c.n_scalars++] = a;
  else if constexpr (std::is_same_v<T, double>)
    c.params[c.n_params++] = a;
  else if constexpr (std::is_same_v<T, DType>)
    c.param_dtype = a;
}

// An argument for the inner backend: a tensor's inner primitive (running what computes it), moved out
// when the caller handed over its only handle so the inner kernel may reuse the buffer.
template <typename A>
decltype(auto) unwrap(A&& a, const char* op) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Prim>) {
    if (!a) return Prim();
    FusionPrim& f = fusion_prim(a, op);
    Prim inner = f.resolve();
    if constexpr (std::is_rvalue_reference_v<A&&>) {
      if (a.use_count() == 1) a.reset();  // the inner backend may now own its buffer alone
    }
    return inner;
  } else if constexpr (std::is_same_v<D, Prims>) {
    Prims out;
    out.reserve(a.size());
    for (const Prim& p : a) out.push_back(p ? fusion_prim(p, op).resolve() : nullptr);
    return out;
  } else {
    return std::forward<A>(a);
  }
}

Prim wrap(Prim p) { return p ? std::make_shared<FusionPrim>(std::move(p)) : nullptr; }
PrimPair wrap(PrimPair p) { return {wrap(std::move(p.first)), wrap(std::move(p.second))}; }
Prims wrap(Prims ps) {
  for (Prim& p : ps) p = wrap(std::move(p));
  return ps;
}
TensorData wrap(TensorData d) { return d; }

template <typename R, typename... P, typename... A>
R eager(Backend& inner, OpId op, R (Backend::*fn)(P...), A&&... args) {
  const char* name = op_info(op).name;
  return wrap((inner.*fn)(unwrap(std::forward<A>(args), name)...));
}

template <bool Fusable, bool Reducible, bool Anchor, bool View, typename R, typename... P, typename... A>
R dispatch(FusionBackend& self, OpId op, R (Backend::*fn)(P...), A&&... args) {
  if constexpr (Fusable) {
    FusionBackend::Call c;
    c.op = op;
    (collect(c, args), ...);
    if (Prim r = self.record(c)) return r;
  } else if constexpr (Reducible) {
    if (Prim r = self.record_reduce(op, args...)) return r;
  } else if constexpr (Anchor) {
    if (Prim r = self.record_anchor(op, args...)) return r;
  } else if constexpr (View) {
    if (Prim r = self.record_view(args...)) return r;
  }
  return eager(*self.inner(), op, fn, std::forward<A>(args)...);
}

}  // namespace

#define BURN_FUSION_OP(group, name, tier, grad, bound, ret, ...)                                                       \
  ret FusionBackend::name BURN_OP_PARAMS(__VA_ARGS__) {                                                                \
    return dispatch<ir::fusable(OpId::name), ir::reducible(OpId::name), ir::anchor(OpId::name), ir::view(OpId::name)>( \
        *this, OpId::name, &Backend::name, BURN_OP_ARG_LIST(__VA_ARGS__));                                             \
  }
BURN_OP_TABLE(BURN_FUSION_OP)
#undef BURN_FUSION_OP

// ---- inspector ----

Inspector::~Inspector() = default;

Stats FusionBackend::stats() const {
  const auto& c = state_->counters;
  return {c.recorded.load(),    c.flushes.load(), c.fused_runs.load(), c.fused_ops.load(),  c.eager_ops.load(),
          c.skipped_ops.load(), c.stored.load(),  c.plan_hits.load(),  c.plan_misses.load()};
}

void FusionBackend::reset_stats() {
  auto& c = state_->counters;
  for (auto* a : {&c.recorded, &c.flushes, &c.fused_runs, &c.fused_ops, &c.eager_ops, &c.skipped_ops, &c.stored,
                  &c.plan_hits, &c.plan_misses})
    a->store(0);
}

std::vector<std::string> FusionBackend::last_plan() const {
  std::lock_guard lock(state_->last_plan_mutex);
  std::vector<std::string> out;
  const Plan* plan = state_->last_plan.get();
  if (!plan) return out;
  for (const Run& run : plan->runs) {
    std::string s = run.fused ? "fused[" : "eager[";
    bool first = true;
    for (uint32_t i = run.begin; i < run.end; ++i) {
      if (!plan->needed[i]) continue;
      if (!first) s += ' ';
      s += op_info(state_->last_kinds[i]).name;
      first = false;
    }
    s += "]";
    if (run.fused) s += " -> " + std::to_string(run.output_op.size());
    out.push_back(std::move(s));
  }
  return out;
}

Inspector* inspector(const Device& device) {
  if (!device.backend()) return nullptr;
  return static_cast<Inspector*>(device->query_interface("fusion"));
}

// ---- registration ----

void register_decorators() {
  static const bool once = [] {
    register_decorator(
        "fusion", [](BackendPtr inner) -> BackendPtr { return std::make_shared<FusionBackend>(std::move(inner)); },
        "records elementwise ops and runs them fused on the inner backend's executor, or op by op (burn-fusion)");
    return true;
  }();
  (void)once;
}

const char* version() { return BURN_FUSION_VERSION; }

namespace {
// Linking burn::fusion is enough for "fusion<...>" specs to work.
const int g_registered = (register_decorators(), 0);
}  // namespace

}  // namespace burn::fusion
