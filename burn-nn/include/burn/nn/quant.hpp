// Quantizing a module's layers (PyTorch's torch.ao.quantization):
// - quantize_dynamic: every Linear whose path the filter accepts gets its weight quantized
//   (Linear::quantized_weight); its forward then quantizes each input row to u8 on the fly and runs the int8 op
//   quantized_linear (burn/tensor/quant.hpp). Conv1d/2d/3d get their weight quantized per output channel and
//   convolve with it dequantized (no int8 conv op yet).
// - quantize_weights: weight-only quantization of Linear and Conv layers, dequantized at forward.
// - Calibration: a scope whose observers (min-max, percentile) record the range of chosen Linear inputs over
//   forward calls.
// Inference only. Records save the quantized weights (burn/record/quant.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burn/nn/conv.hpp"
#include "burn/nn/linear.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

// Which layers to quantize, by module path ("fc1", "blocks.0.ffn.linear_inner"); empty: every layer.
using QuantPathFilter = std::function<bool(std::string_view path)>;

// The schemes of quantize_weights: per output channel by default (Linear's weight is [d_input, d_output], a
// conv's [C_out, C_in / groups, k...]).
struct WeightQuantization {
  QuantScheme linear = QuantScheme::per_channel(1);
  QuantScheme conv = QuantScheme::per_channel(0);
};

namespace detail {
// Quantizes the accepted Linear and Conv layers of `m` in place; returns their paths. `weight_only`: the Linear
// layers dequantize at forward instead of running the int8 op.
BURN_NN_API std::vector<std::string> quantize_layers(ModuleRef m, const WeightQuantization& schemes,
                                                     const QuantPathFilter& filter, bool weight_only);
}  // namespace detail

// A copy of `m` whose accepted Linear layers run on int8 weights and whose Conv layers run on their dequantized
// int8 weights (per output channel). The default Linear scheme is q8 symmetric per output channel, the weight's
// axis 1 ([d_input, d_output]). The weights are quantized on the device their parameters are on, with autodiff
// layers removed (valid_device). A scheme the integer op does not take (q4, per block) is kept and run by
// dequantizing the weight.
template <detail::Module M>
M quantize_dynamic(M m, const QuantScheme& scheme = QuantScheme::per_channel(1), const QuantPathFilter& filter = {}) {
  detail::quantize_layers(m, WeightQuantization{scheme, QuantScheme::per_channel(0)}, filter, false);
  return m;
}

// Weight-only quantization: a copy of `m` whose accepted Linear and Conv1d/2d/3d layers keep their weight as a
// QTensor and compute with it dequantized (f32), the float activations untouched. Each weight element moves by at
// most half a step of its group (scale / 2), so an output moves by at most sum_k |x_k| * scale / 2 over the
// inputs it reads, plus f32 rounding.
template <detail::Module M>
M quantize_weights(M m, const WeightQuantization& schemes = {}, const QuantPathFilter& filter = {}) {
  detail::quantize_layers(m, schemes, filter, true);
  return m;
}
// One scheme for Linear and Conv layers alike (per tensor, per block, or a per-channel axis both can take).
template <detail::Module M>
M quantize_weights(M m, const QuantScheme& scheme, const QuantPathFilter& filter = {}) {
  detail::quantize_layers(m, WeightQuantization{scheme, scheme}, filter, true);
  return m;
}

// How an observer turns the inputs it saw into a range.
struct Observer {
  enum class Kind : uint8_t { MinMax, Percentile };
  Kind kind = Kind::MinMax;
  double percentile = 99.99;  // Percentile: the range is [percentile(100 - p), percentile(p)]
  static Observer min_max() { return {}; }
  static Observer percentile_of(double p) { return {Kind::Percentile, p}; }
};

// The range an observer recorded for one layer's inputs.
struct ActivationRange {
  double min = 0;
  double max = 0;
  int64_t count = 0;       // finite elements seen
  int64_t non_finite = 0;  // NaN and infinities seen (left out of the range)
  int64_t calls = 0;       // forward calls observed
  // The scale and zero point `scheme` (per tensor) gives this range, by quantize()'s rule: symmetric
  // max(|min|, |max|) / qmax; affine (max(max, 0) - min(min, 0)) / (qmax - qmin), zero point
  // qmin - round(min(min, 0) / scale); the scale at least 2^-126.
  BURN_NN_API std::pair<double, int64_t> scale_zero_point(const QuantScheme& scheme) const;
};

// A calibration scope (PyTorch's observers with prepare/convert): while it lives, on the thread that made it, the
// input of every Linear of `m` that the filter accepts is observed at each forward call. It observes the module
// object it was given, not copies made afterwards. MinMax keeps two numbers per layer; Percentile keeps every
// finite input element on the host until the scope ends (calibrate on a few batches) and computes the
// percentile exactly (linear interpolation between the closest ranks, NumPy's default).
class BURN_NN_API Calibration {
 public:
  template <detail::Module M>
  explicit Calibration(const M& m, Observer observer = {}, const QuantPathFilter& filter = {})
      : Calibration(ModuleRef(const_cast<M&>(m)), observer, filter) {}  // the walk only reads
  Calibration(ModuleRef m, Observer observer, const QuantPathFilter& filter);
  ~Calibration();
  Calibration(const Calibration&) = delete;
  Calibration& operator=(const Calibration&) = delete;

  // The observed layers' paths, in module order.
  std::vector<std::string> paths() const;
  // The range of each observed layer's inputs so far; a layer never called has count 0. ValueError for an
  // unknown path.
  ActivationRange range(std::string_view path) const;
  std::map<std::string, ActivationRange> ranges() const;

  // The hook Linear::forward calls (detail::observe_input).
  void observe(const void* layer, const TensorHandle& x);

 private:
  Observer observer_;
  std::vector<std::pair<const void*, std::string>> layers_;
  std::map<std::string, std::vector<float>> samples_;  // Percentile
  std::map<std::string, ActivationRange> seen_;
  Calibration* previous_ = nullptr;  // the scope this one hides, restored at its end
};

}  // namespace burn::nn
