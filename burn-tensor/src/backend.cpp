// The op table's runtime side: op infos, the Backend base, ForwardingBackend and the trace and
// defaults decorators.
#include <array>
#include <atomic>
#include <mutex>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/fused.hpp"
#include "log.hpp"

namespace burn {

namespace {
constexpr OpTier CORE = OpTier::Core, DEFAULT = OpTier::Default;
constexpr OpGrad GRAD = OpGrad::Grad, NOGRAD = OpGrad::NoGrad, BACKWARD = OpGrad::Backward;
constexpr OpBound MEMORY = OpBound::Memory, COMPUTE = OpBound::Compute;
#define BURN_X_INFO(group, name, tier, grad, bound, ret, ...) \
  OpInfo{OpId::name, #name, OpGroup::group, tier, grad, bound, #ret BURN_PP_STRINGIFY(BURN_OP_PARAMS(__VA_ARGS__))},
const OpInfo kOps[kOpCount] = {BURN_OP_TABLE(BURN_X_INFO)};
#undef BURN_X_INFO

#define BURN_G_NAME(g) #g,
const char* const kGroupNames[kOpGroupCount] = {BURN_OP_GROUPS(BURN_G_NAME)};
#undef BURN_G_NAME
}  // namespace

const OpInfo (&all_ops())[kOpCount] { return kOps; }

const OpInfo& op_info(OpId id) { return kOps[static_cast<size_t>(id)]; }

const char* group_name(OpGroup group) { return kGroupNames[static_cast<size_t>(group)]; }

const OpInfo* find_op(std::string_view name) {
  for (const auto& op : kOps)
    if (name == op.name) return &op;
  return nullptr;
}

Primitive::~Primitive() = default;
Backend::~Backend() = default;
bool Backend::supports(OpId /*op*/, DType /*dtype*/) const { return true; }
void* Backend::query_interface(std::string_view /*name*/) { return nullptr; }
void Backend::sync() {}

void Backend::seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(rng_mutex_);
  rng_.seed(seed);
}

ForwardingBackend::ForwardingBackend(BackendPtr inner) : inner_(std::move(inner)) {
  if (!inner_) throw DeviceError("ForwardingBackend", "a decorator needs an inner backend, got null");
}

std::string ForwardingBackend::name() const { return decorator_name() + "<" + inner_->name() + ">"; }
bool ForwardingBackend::supports(OpId op, DType dtype) const { return inner_->supports(op, dtype); }
void* ForwardingBackend::query_interface(std::string_view name) { return inner_->query_interface(name); }
void ForwardingBackend::sync() { inner_->sync(); }
void ForwardingBackend::seed(uint64_t seed) { inner_->seed(seed); }

#define BURN_X_FWD(group, name, tier, grad, bound, ret, ...) \
  ret ForwardingBackend::name BURN_OP_PARAMS(__VA_ARGS__) { return inner_->name BURN_OP_ARGS(__VA_ARGS__); }
BURN_OP_TABLE(BURN_X_FWD)
#undef BURN_X_FWD

TraceCounters::~TraceCounters() = default;
MemoryStats::~MemoryStats() = default;
DeviceSelector::~DeviceSelector() = default;
FusedExecutor::~FusedExecutor() = default;

namespace {

// Counts each op and logs it at debug level before forwarding; shows that decorators compose.
class TraceBackend final : public ForwardingBackend, public TraceCounters {
 public:
  using ForwardingBackend::ForwardingBackend;

  void* query_interface(std::string_view name) override {
    if (name == "trace") return static_cast<TraceCounters*>(this);
    return ForwardingBackend::query_interface(name);
  }
  uint64_t count(OpId op) const override { return counts_[static_cast<size_t>(op)].load(); }
  uint64_t total() const override {
    uint64_t t = 0;
    for (const auto& c : counts_) t += c.load();
    return t;
  }
  void reset() override {
    for (auto& c : counts_) c.store(0);
  }

#define BURN_X_TRACE(group, name, tier, grad, bound, ret, ...) \
  ret name BURN_OP_PARAMS(__VA_ARGS__) override {              \
    hit(OpId::name);                                           \
    return ForwardingBackend::name BURN_OP_ARGS(__VA_ARGS__);  \
  }
  BURN_OP_TABLE(BURN_X_TRACE)
#undef BURN_X_TRACE

 protected:
  std::string decorator_name() const override { return "trace"; }

 private:
  void hit(OpId op) {
    counts_[static_cast<size_t>(op)].fetch_add(1, std::memory_order_relaxed);
    detail::logger().debug("[trace] {}", op_info(op).name);
  }
  std::array<std::atomic<uint64_t>, kOpCount> counts_{};
};

}  // namespace

BackendPtr make_trace_backend(BackendPtr inner) { return std::make_shared<TraceBackend>(std::move(inner)); }

namespace {

// DEFAULT ops of the chosen groups run Backend's composite body (which calls back into this object,
// so its core ops reach the inner backend); everything else is forwarded.
class DefaultsBackend final : public ForwardingBackend {
 public:
  DefaultsBackend(BackendPtr inner, const std::vector<OpGroup>& groups) : ForwardingBackend(std::move(inner)) {
    for (size_t g = 0; g < kOpGroupCount; ++g) use_[g] = groups.empty();
    for (OpGroup g : groups) use_[static_cast<size_t>(g)] = true;
  }
  // Backend::random draws from this object's generator, so seeding must reach it.
  void seed(uint64_t s) override { Backend::seed(s); }

#define BURN_X_DEFAULTS_CORE(group, name, ret, ...)
#define BURN_X_DEFAULTS_DEFAULT(group, name, ret, ...)                                             \
  ret name BURN_OP_PARAMS(__VA_ARGS__) override {                                                  \
    if (use_[static_cast<size_t>(OpGroup::group)]) return Backend::name BURN_OP_ARGS(__VA_ARGS__); \
    return ForwardingBackend::name BURN_OP_ARGS(__VA_ARGS__);                                      \
  }
#define BURN_X_DEFAULTS(group, name, tier, grad, bound, ret, ...) BURN_X_DEFAULTS_##tier(group, name, ret, __VA_ARGS__)
  BURN_OP_TABLE(BURN_X_DEFAULTS)
#undef BURN_X_DEFAULTS
#undef BURN_X_DEFAULTS_DEFAULT
#undef BURN_X_DEFAULTS_CORE

 protected:
  std::string decorator_name() const override { return "defaults"; }

 private:
  std::array<bool, kOpGroupCount> use_{};
};

}  // namespace

BackendPtr make_defaults_backend(BackendPtr inner, std::vector<OpGroup> groups) {
  return std::make_shared<DefaultsBackend>(std::move(inner), groups);
}

}  // namespace burn
