// burn::fusion: the Fusion decorator (Burn's Fusion<B>). Linking it registers the decorator "fusion", so
//   Device::get("fusion<cpu>")  or  Device::get("cpu").fused()
// give a device whose elementwise ops are recorded instead of run, and run later as fused programs on
// the inner backend's executor (op by op where it has none). See burn-fusion/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "burn/fusion/export.hpp"
#include "burn/fusion/version.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::fusion {

// Registers the decorator; idempotent. Runs when the library loads, and from every translation unit
// that includes this header, so an `--as-needed` link cannot drop the library.
BURN_FUSION_API void register_decorators();
// The burn-fusion version this program runs with.
BURN_FUSION_API const char* version();

// Counters of one fusion device since its creation or the last reset (every thread together).
struct Stats {
  uint64_t recorded = 0;     // ops recorded instead of run (elementwise, reductions, anchors, views)
  uint64_t flushes = 0;      // segments executed
  uint64_t fused_runs = 0;   // programs run by the inner backend's fused executor
  uint64_t fused_ops = 0;    // recorded ops inside those programs (views included)
  uint64_t eager_ops = 0;    // recorded ops run one at a time on the inner backend
  uint64_t skipped_ops = 0;  // recorded ops never run: nobody kept or used their result
  uint64_t stored = 0;       // results written to memory (kept-alive tensors and values a later run reads)
  uint64_t plan_hits = 0;    // segments whose plan came from the cache
  uint64_t plan_misses = 0;  // segments planned from scratch
};

// The debug and inspection side of a fusion device, reached through inspector(device).
class BURN_FUSION_API Inspector {
 public:
  virtual ~Inspector();
  virtual Stats stats() const = 0;
  virtual void reset_stats() = 0;
  // false: segments run op by op even when the inner backend has an executor (A/B checks).
  virtual void set_executor_enabled(bool enabled) = 0;
  // Whether the inner backend offers a fused executor (and it is enabled).
  virtual bool uses_executor() const = 0;
  // The plan of the last segment any thread executed, one entry per run in execution order:
  // "fused[mul_scalar add_scalar relu exp] -> 1" (ops of one fused program, stored outputs) or
  // "eager[matmul]"; skipped ops are not listed.
  virtual std::vector<std::string> last_plan() const = 0;
  // Plans held by the cache (one per distinct shape-free op sequence).
  virtual size_t cached_plans() const = 0;
};

// The inspector of the fusion decorator in `device`'s chain; nullptr when there is none.
BURN_FUSION_API Inspector* inspector(const Device& device);

namespace detail {
inline const bool kRegistered = (register_decorators(), true);
}  // namespace detail

}  // namespace burn::fusion
