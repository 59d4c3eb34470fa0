// A collective engine plugin built as if against burn-collective 0.1, whose Transport had no exchange_calls or
// all_reduce_checked: the host must refuse it, naming both versions, before it calls through a shorter vtable.
#include <memory>
#include <string>

#include "burn/collective/engine.hpp"

namespace {

class StaleEngine : public burn::collective::Engine {
 public:
  std::string name() const override { return "stale"; }
  std::unique_ptr<burn::collective::Transport> connect(const burn::collective::ConnectOptions&) const override {
    throw burn::collective::CollectiveError("connect", "a stale test engine connects to nothing");
  }
};

}  // namespace

BURN_WRAPPED_OBJECT_PLUGIN_(
    BURN_PLUGIN_COLLECTIVE, "stale", "0.1.0", [] { return std::make_unique<StaleEngine>(); }, [] { return 1; },
    BurnCollectiveObject, burn::collective::Engine, engine, "0.1.0")
