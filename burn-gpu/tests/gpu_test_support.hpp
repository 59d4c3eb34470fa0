// What the GPU backends' tests share: a backend's results against the cpu plugin's on the same inputs, the
// Philox reference the random kernels must reproduce, and fusion<backend> against op-by-op backend.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burn/fusion/fusion.hpp"
#include "burn/tensor/api.hpp"

namespace burn::test {

// Values uniform in [-2, 2) as f32, the same for the same seed.
TensorData uniform_f32(const Shape& s, uint32_t seed);

// The same values (from doubles, converted to `d`) on `gpu` and on `cpu`.
std::pair<Prim, Prim> on_both(Backend& gpu, Backend& cpu, const std::vector<double>& v, const Shape& s, DType d);

// `gpu`'s result against `cpu`'s: the same shape and dtype, values within rel * (1 + |cpu|), NaN where cpu's is.
void expect_close(Backend& gpu, const Prim& got, Backend& cpu, const Prim& want, double rel, const std::string& what);

// `gpu`'s result against `cpu`'s bit for bit: the same shape, dtype and bytes.
void expect_same(Backend& gpu, const Prim& got, Backend& cpu, const Prim& want, const std::string& what);

// Philox4x32-10 from its published description (burn_vulkan_test checks it against the published known
// answers): the shared random kernel's draws must reproduce it bit for bit.
std::array<uint32_t, 4> philox(std::array<uint32_t, 4> c, uint32_t k0, uint32_t k1);

// Why `spec` (e.g. "fusion<opencl>") makes no device here, or nothing when it does.
std::optional<std::string> unavailable(const std::string& spec);

// One chain run op by op on a backend and fused on fusion<backend>.
struct FusionRun {
  uint64_t op_by_op = 0, fused = 0;  // kernels launched (the backend's own counter) for each
  fusion::Stats stats;               // the fusion inspector's, for the fused run only
  std::vector<std::string> plan;     // the inspector's last plan
};

// Kernels launched so far on `d`'s device; one counter serves the backend and fusion<backend> on one device.
using LaunchCounter = std::function<uint64_t(const Device& d)>;

// Runs f on the same inputs (uniform_f32 of `shapes`, seeds 40, 41, ...) on `backend` and on
// `fusion<backend>`, reads both results, expects the same dtype and values within 2e-6 * (1 + |x|) (the
// tolerance fusion<vulkan> documents), prints both launch counts and returns them.
FusionRun run_fused_and_op_by_op(const std::string& backend, const LaunchCounter& launches, const std::string& what,
                                 const std::vector<Shape>& shapes,
                                 const std::function<api::H(const std::vector<api::H>&)>& f);

}  // namespace burn::test
