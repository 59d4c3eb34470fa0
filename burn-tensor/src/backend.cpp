// The op table's runtime side: op infos, ForwardingBackend and the trace decorator.
#include <array>
#include <atomic>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "log.hpp"

namespace burn {

namespace {
#define BURN_X_INFO(group, name, ret, params, args, tier) \
  OpInfo{OpId::name, #name, #group, tier == 0 ? OpTier::Core : OpTier::Default},
constexpr int CORE = 0, DEFAULT = 1;
const OpInfo kOps[kOpCount] = {BURN_OP_TABLE(BURN_X_INFO)};
#undef BURN_X_INFO
}  // namespace

const OpInfo (&all_ops())[kOpCount] { return kOps; }

const OpInfo& op_info(OpId id) { return kOps[static_cast<size_t>(id)]; }

const OpInfo* find_op(std::string_view name) {
  for (const auto& op : kOps)
    if (name == op.name) return &op;
  return nullptr;
}

ForwardingBackend::ForwardingBackend(BackendPtr inner) : inner_(std::move(inner)) {
  if (!inner_) throw DeviceError("ForwardingBackend", "a decorator needs an inner backend, got null");
}

std::string ForwardingBackend::name() const { return decorator_name() + "<" + inner_->name() + ">"; }
bool ForwardingBackend::supports(OpId op, DType dtype) const { return inner_->supports(op, dtype); }
void* ForwardingBackend::query_interface(std::string_view name) { return inner_->query_interface(name); }
void ForwardingBackend::sync() { inner_->sync(); }
void ForwardingBackend::seed(uint64_t seed) { inner_->seed(seed); }

#define BURN_X_FWD(group, name, ret, params, args, tier) \
  ret ForwardingBackend::name params { return inner_->name args; }
BURN_OP_TABLE(BURN_X_FWD)
#undef BURN_X_FWD

TraceCounters::~TraceCounters() = default;
MemoryStats::~MemoryStats() = default;

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

#define BURN_X_TRACE(group, name, ret, params, args, tier) \
  ret name params override {                               \
    hit(OpId::name);                                       \
    return ForwardingBackend::name args;                   \
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

}  // namespace burn
