// A third-party backend plugin built against an installed burn: "ext" forwards every op to the
// cpu backend. It shows the whole recipe: one source file, find_package(burn), burn_add_plugin.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <burn/tensor/backend.hpp>
#include <burn/tensor/plugin.hpp>

namespace {

class ExtBackend final : public burn::ForwardingBackend {
 public:
  ExtBackend() : burn::ForwardingBackend(burn::plugins::create_backend("cpu")) {}

  // A leaf backend for its users: the spec that names it is "ext", not "ext<cpu>".
  std::string name() const override { return "ext"; }

 protected:
  std::string decorator_name() const override { return "ext"; }
};

std::unique_ptr<burn::Backend> make_ext() { return std::make_unique<ExtBackend>(); }

// Runs wherever cpu runs; a score only ranks plugins that share a name.
int32_t ext_score() { return 1; }

}  // namespace

BURN_BACKEND_PLUGIN("ext", "0.1.0", make_ext, ext_score)
