// The opencl plugin's entry point: its score is the best device's (0 without one), its factory opens the
// device that BURN_OPENCL_DEVICE names, else the best one.
#include <memory>
#include <string>

#include "burn/tensor/plugin.hpp"
#include "opencl_backend.hpp"

namespace {

std::unique_ptr<burn::Backend> make_opencl_backend() {
  const auto platforms = burn::opencl::Platforms::get();
  return std::make_unique<burn::opencl::OpenClBackend>(burn::opencl::context_for(platforms->choose("")), "opencl");
}

int32_t opencl_score() { return burn::opencl::Platforms::get()->best_score(); }

// For `burn plugins` when the score is 0: what the loader said, or every device and why it is unusable.
std::string opencl_unavailable() {
  try {
    const auto platforms = burn::opencl::Platforms::get();
    if (platforms->profiles().empty()) return "no OpenCL device: " + platforms->error();
    std::string s = "no usable OpenCL device:";
    for (const auto& p : platforms->profiles()) s += " " + p.describe() + ";";
    return s;
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

BURN_BACKEND_PLUGIN("opencl", "0.1.0", make_opencl_backend, opencl_score)
BURN_PLUGIN_UNAVAILABLE_REASON(opencl_unavailable)
