// Initializers (Burn's): constant, zeros, ones, uniform, normal, Kaiming, Xavier and orthogonal,
// with fans from the shape as PyTorch computes them unless a layer gives its own.
#pragma once

#include <optional>

#include "burn/nn/export.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::nn {

struct Initializer {
  enum class Kind : uint8_t {
    Constant,
    Zeros,
    Ones,
    Uniform,
    Normal,
    KaimingUniform,
    KaimingNormal,
    XavierUniform,
    XavierNormal,
    Orthogonal
  };
  Kind kind = Kind::Zeros;
  double a = 0.0;             // constant value, uniform low, normal mean, Kaiming/Xavier/orthogonal gain
  double b = 1.0;             // uniform high, normal std
  bool fan_out_only = false;  // Kaiming: scale by fan_out instead of fan_in

  static Initializer constant(double v) { return {Kind::Constant, v, 0.0}; }
  static Initializer zeros() { return {Kind::Zeros}; }
  static Initializer ones() { return {Kind::Ones}; }
  static Initializer uniform(double low, double high) { return {Kind::Uniform, low, high}; }
  static Initializer normal(double mean, double std) { return {Kind::Normal, mean, std}; }
  // bound = gain * sqrt(3 / fan); gain sqrt(2) is PyTorch's kaiming_uniform_ for relu.
  static Initializer kaiming_uniform(double gain, bool fan_out_only = false) {
    return {Kind::KaimingUniform, gain, 0.0, fan_out_only};
  }
  // std = gain / sqrt(fan)
  static Initializer kaiming_normal(double gain, bool fan_out_only = false) {
    return {Kind::KaimingNormal, gain, 0.0, fan_out_only};
  }
  // bound = gain * sqrt(6 / (fan_in + fan_out))
  static Initializer xavier_uniform(double gain = 1.0) { return {Kind::XavierUniform, gain}; }
  // std = gain * sqrt(2 / (fan_in + fan_out))
  static Initializer xavier_normal(double gain = 1.0) { return {Kind::XavierNormal, gain}; }
  // A (semi-)orthogonal matrix over [dim 0, the rest], from the QR of a normal matrix.
  static Initializer orthogonal(double gain = 1.0) { return {Kind::Orthogonal, gain}; }
  // PyTorch's default for Linear and Conv weights and biases: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  static Initializer pytorch_default() { return kaiming_uniform(1.0 / 1.7320508075688772); }

  // A tensor of `shape` on `device`. fan_in/fan_out default to PyTorch's from the shape ([out, in,
  // k...]: fan_in = in * prod(k), fan_out = out * prod(k)); ValueError naming the initializer when a
  // fan-based one gets no fan (a 1-D shape without explicit fans) or a fan of 0.
  BURN_NN_API TensorHandle init(const Shape& shape, const Device& device, std::optional<int64_t> fan_in = std::nullopt,
                                std::optional<int64_t> fan_out = std::nullopt, DType dtype = DType::F32) const;
  template <size_t D>
  Tensor<D> init(const Shape& shape, const Device& device, std::optional<int64_t> fan_in = std::nullopt,
                 std::optional<int64_t> fan_out = std::nullopt) const {
    return Tensor<D>(init(shape, device, fan_in, fan_out));
  }
  bool operator==(const Initializer&) const = default;
};

BURN_NN_API std::string_view initializer_name(Initializer::Kind k);  // "kaiming_uniform", ...

}  // namespace burn::nn
