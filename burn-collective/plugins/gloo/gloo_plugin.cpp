// The `gloo` collective plugin: Gloo (Debian libgloo-dev) over TCP, meeting through a file store.
#include "burn/collective/engine.hpp"
#include "gloo_transport.hpp"

namespace {

class GlooEngine final : public burn::collective::Engine {
 public:
  std::string name() const override { return "gloo"; }
  std::unique_ptr<burn::collective::Transport> connect(const burn::collective::ConnectOptions& o) const override {
    return burn::collective::gloo_engine::make_transport(o);
  }
};

}  // namespace

BURN_COLLECTIVE_PLUGIN(
    "gloo", "0.1.0", [] { return std::make_unique<GlooEngine>(); }, [] { return 10; })
