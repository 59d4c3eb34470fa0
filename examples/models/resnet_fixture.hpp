// The reduced ResNet-50 fixture's parameters and images (gen_fixture_resnet.py states and writes the
// same), shared by the tests that compare burn's ResNet-50 with torchvision's: resnet_test.cpp (burn's
// parameters filled directly) and burn-import's load_test.cpp (a torchvision state dict file loaded).
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

namespace burn::models::fixture {

enum class ParamKind { Weight, NormScale, RunningVar, Other };

// Parameter k of the state dict (num_batches_tracked skipped), its n elements in PyTorch's layout;
// fan_in (the elements of one output's weights) for a conv or linear weight.
inline std::vector<double> resnet50_param(ParamKind kind, int64_t k, int64_t n, int64_t fan_in = 1) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    const double s = std::sin(2.1 * static_cast<double>(j) + 0.7 * static_cast<double>(k) + 0.3);
    switch (kind) {
      case ParamKind::Weight: v[j] = s * 1.5 / std::sqrt(static_cast<double>(fan_in)); break;
      case ParamKind::NormScale: v[j] = 1 + 0.5 * s; break;
      case ParamKind::RunningVar: v[j] = 1 + 0.5 * s * s; break;
      case ParamKind::Other: v[j] = 0.05 * s; break;
    }
  }
  return v;
}

// The kind of a torchvision state dict entry from its name and rank.
inline ParamKind torch_param_kind(std::string_view name, size_t rank) {
  if (rank >= 2) return ParamKind::Weight;
  if (name.ends_with("running_var")) return ParamKind::RunningVar;
  if (name.ends_with(".weight")) return ParamKind::NormScale;  // fc's weight has two dims
  return ParamKind::Other;
}

// The two 3x64x64 images, [2, 3, 64, 64] row-major: the second is twice the first mirrored left to
// right, minus 0.5 (the global pool would average out a change that keeps the statistics).
inline std::vector<double> resnet50_images() {
  constexpr int64_t plane = 3 * 64 * 64;
  std::vector<double> x(2 * plane);
  for (int64_t j = 0; j < plane; ++j) {
    const double d = static_cast<double>(j);
    x[j] = std::sin(0.01 * d) + 0.5 * std::cos(0.37 * d);
  }
  for (int64_t j = 0; j < plane; ++j) x[plane + j] = 2 * x[j - j % 64 + (63 - j % 64)] - 0.5;
  return x;
}

}  // namespace burn::models::fixture
