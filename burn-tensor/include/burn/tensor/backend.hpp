// The Backend interface: one virtual per op of the op table. CORE ops are pure virtual; DEFAULT
// ops have composite bodies in burn-tensor (src/defaults/<group>.cpp) built from other ops.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "burn/tensor/data.hpp"
#include "burn/tensor/module_options.hpp"
#include "burn/tensor/op_table.hpp"
#include "burn/tensor/primitive.hpp"

namespace burn {

// The plugin ABI: bump once per release that changes the op table, the Backend class layout or a type
// that crosses the boundary (4: TensorData's bytes come from host_alloc, freed by host_free; 5: the quant group's
// quantized_linear; 6: its matmul_integer; 7: conv_backward and conv_transpose_backward take a ConvGradMask).
// The table's fingerprint (kOpTableHashAtAbi, in op_table.hpp) is checked here at compile time and by the
// plugin host at load time.
#define BURN_PLUGIN_ABI_VERSION 7

namespace detail {
// Fails with both values in the instantiation note, so the new fingerprint is in the error message.
template <uint64_t Table, uint64_t AtAbi>
constexpr bool op_table_unchanged() {
  static_assert(Table == AtAbi,
                "the op table changed: bump BURN_PLUGIN_ABI_VERSION and set kOpTableHashAtAbi to the "
                "Table value of this instantiation");
  return true;
}
}  // namespace detail
static_assert(detail::op_table_unchanged<kOpTableHash, kOpTableHashAtAbi>());

// What the op table says about one op (see op_table.hpp for the columns).
struct OpInfo {
  OpId id;
  const char* name;
  OpGroup group;
  OpTier tier;
  OpGrad grad;
  OpBound bound;
  const char* signature;  // "Prim(Prim x, size_t dim)"
};

// Every op of the table, in table order (for errors, logs and the conformance coverage check).
BURN_TENSOR_API const OpInfo (&all_ops())[kOpCount];
BURN_TENSOR_API const OpInfo& op_info(OpId id);
BURN_TENSOR_API const OpInfo* find_op(std::string_view name);
BURN_TENSOR_API const char* group_name(OpGroup group);

class BURN_TENSOR_API Backend {
 public:
  virtual ~Backend();

  // The chain's spec, e.g. "cpu" or "trace<cpu>".
  virtual std::string name() const = 0;
  // Whether `op` runs on `dtype` here; callers ask before they fail.
  virtual bool supports(OpId op, DType dtype) const;
  // Backend-specific extras (memory stats, a fused-kernel executor); nullptr when absent.
  virtual void* query_interface(std::string_view name);
  // Waits for queued work (asynchronous backends); a no-op by default.
  virtual void sync();
  // Seeds the generator used by `random`.
  virtual void seed(uint64_t seed);

#define BURN_X_PURE_CORE = 0
#define BURN_X_PURE_DEFAULT
#define BURN_X_DECL(group, name, tier, grad, bound, ret, ...) \
  virtual ret name BURN_OP_PARAMS(__VA_ARGS__) BURN_X_PURE_##tier;
  BURN_OP_TABLE(BURN_X_DECL)
#undef BURN_X_DECL
#undef BURN_X_PURE_CORE
#undef BURN_X_PURE_DEFAULT

 protected:
  // The generator behind the default `random`; guarded because devices are shared across threads.
  std::mt19937_64& rng() { return rng_; }
  std::mutex& rng_mutex() { return rng_mutex_; }

 private:
  std::mt19937_64 rng_{0x5eedULL};
  std::mutex rng_mutex_;
};

using BackendPtr = std::shared_ptr<Backend>;

// Each op's function type, from the table: op_signature::add is Prim(Prim lhs, Prim rhs).
namespace op_signature {
#define BURN_X_SIGNATURE(group, name, tier, grad, bound, ret, ...) using name = ret BURN_OP_PARAMS(__VA_ARGS__);
BURN_OP_TABLE(BURN_X_SIGNATURE)
#undef BURN_X_SIGNATURE
}  // namespace op_signature

// A backend names the ops it implements in a list macro, LIST(OP) = OP(add) OP(sub) ..., and declares
// them in its class with BURN_DECLARE_OPS(LIST): each declaration takes the table's signature, so it
// overrides the Backend virtual and no signature is typed twice. (A declaration through a function
// type cannot carry `override`; it needs none, as it cannot differ from the table.) The definitions,
// `Prim MyBackend::add(Prim lhs, Prim rhs) { ... }`, are checked against these declarations.
#define BURN_DECLARE_OP_(name) ::burn::op_signature::name name;
#define BURN_DECLARE_OPS(LIST) LIST(BURN_DECLARE_OP_)
// The OpIds of such a list, for a constexpr array: { LIST(BURN_OP_ID_OF) }.
#define BURN_OP_ID_OF(name) ::burn::OpId::name,

// Forwards every op to an inner backend. Decorators derive from it and override what they change.
class BURN_TENSOR_API ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(BackendPtr inner);
  const BackendPtr& inner() const { return inner_; }

  std::string name() const override;  // "<decorator_name()><inner name>"
  bool supports(OpId op, DType dtype) const override;
  void* query_interface(std::string_view name) override;
  void sync() override;
  void seed(uint64_t seed) override;

#define BURN_X_FWD(group, name, tier, grad, bound, ret, ...) ret name BURN_OP_PARAMS(__VA_ARGS__) override;
  BURN_OP_TABLE(BURN_X_FWD)
#undef BURN_X_FWD

 protected:
  virtual std::string decorator_name() const = 0;

 private:
  BackendPtr inner_;
};

// Per-op call counts of a trace<...> decorator, reached through query_interface("trace").
class BURN_TENSOR_API TraceCounters {
 public:
  virtual ~TraceCounters();
  virtual uint64_t count(OpId op) const = 0;
  virtual uint64_t total() const = 0;
  virtual void reset() = 0;
};

// Bytes of tensor storage a backend holds, reached through query_interface("memory"); what the
// autodiff checkpointing measurements read.
class BURN_TENSOR_API MemoryStats {
 public:
  virtual ~MemoryStats();
  virtual uint64_t bytes_in_use() const = 0;
  virtual uint64_t peak_bytes_in_use() const = 0;
  // Sets the peak to the bytes in use now.
  virtual void reset_peak() = 0;
};

// A backend plugin that drives several devices (vulkan, opencl) offers one through
// query_interface(kDeviceSelectorInterface) on its default backend: the spec "vulkan:1" (or
// "vulkan:llvmpipe") is the default backend's select("1"). list() describes every device, one line each,
// for `burn devices`.
inline constexpr std::string_view kDeviceSelectorInterface = "device-selector";
class BURN_TENSOR_API DeviceSelector {
 public:
  virtual ~DeviceSelector();
  // The backend of the device `arg` names (an index or part of a name); DeviceError listing the devices
  // when none matches. Its name() is "<plugin>:<arg>".
  virtual BackendPtr select(std::string_view arg) = 0;
  virtual std::vector<std::string> list() = 0;
};

// Makes the built-in trace decorator: counts every op it forwards and logs it at debug level.
BURN_TENSOR_API BackendPtr make_trace_backend(BackendPtr inner);

// Makes the built-in defaults decorator (spec "defaults<...>"): every DEFAULT op of the given groups
// (all groups when empty) runs burn-tensor's composite body over the inner backend's ops instead of
// the inner backend's own kernel, so that conformance checks the composites on any backend.
BURN_TENSOR_API BackendPtr make_defaults_backend(BackendPtr inner, std::vector<OpGroup> groups = {});

}  // namespace burn
