// A test plugin written with BURN_BACKEND_PLUGIN. TEST_PLUGIN_MODE picks its behaviour:
// 1 forwards to the cpu device (decorator_name "fwdtest"), 2 has a throwing factory, 3 scores 0, 4 scores 0
// and says why, 5 forwards like 1 and counts its score() calls (burn_test_score_calls).
#include <memory>
#include <stdexcept>

#include "burn/tensor/device.hpp"
#include "burn/tensor/plugin.hpp"

#ifndef TEST_PLUGIN_NAME
#error "TEST_PLUGIN_NAME is required"
#endif
#ifndef TEST_PLUGIN_SCORE
#define TEST_PLUGIN_SCORE 1
#endif

namespace {

class FwdTestBackend final : public burn::ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;

 protected:
  std::string decorator_name() const override { return "fwdtest"; }
};

int score_calls = 0;

std::unique_ptr<burn::Backend> make_backend() {
#if TEST_PLUGIN_MODE == 1 || TEST_PLUGIN_MODE == 5
  return std::make_unique<FwdTestBackend>(burn::Device::get("cpu").backend());
#elif TEST_PLUGIN_MODE == 2
  throw std::runtime_error("throwing test plugin: no such device here");
#else
  throw std::logic_error("a plugin with score 0 must never be created");
#endif
}

int32_t plugin_score() {
  ++score_calls;
#if TEST_PLUGIN_MODE == 3 || TEST_PLUGIN_MODE == 4
  return 0;
#else
  return TEST_PLUGIN_SCORE;
#endif
}

}  // namespace

BURN_BACKEND_PLUGIN(TEST_PLUGIN_NAME, "0.0.1", make_backend, plugin_score)
#if TEST_PLUGIN_MODE == 4
BURN_PLUGIN_UNAVAILABLE_REASON([] { return std::string("no test device on this machine"); })
#endif
#if TEST_PLUGIN_MODE == 5
extern "C" __attribute__((visibility("default"))) int burn_test_score_calls() { return score_calls; }
#endif
