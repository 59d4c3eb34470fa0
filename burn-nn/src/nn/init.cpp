// Initializers with PyTorch's fan rules (kaiming, xavier, orthogonal, ...) and their names in configs.
#include "burn/nn/init.hpp"

#include <cmath>

#include "burn/tensor/linalg.hpp"

namespace burn::nn {

std::string_view initializer_name(Initializer::Kind k) {
  using K = Initializer::Kind;
  switch (k) {
    case K::Constant: return "constant";
    case K::Zeros: return "zeros";
    case K::Ones: return "ones";
    case K::Uniform: return "uniform";
    case K::Normal: return "normal";
    case K::KaimingUniform: return "kaiming_uniform";
    case K::KaimingNormal: return "kaiming_normal";
    case K::XavierUniform: return "xavier_uniform";
    case K::XavierNormal: return "xavier_normal";
    case K::Orthogonal: return "orthogonal";
  }
  return "?";
}

namespace {

// PyTorch's _calculate_fan_in_and_fan_out: [out, in, k...].
std::pair<int64_t, int64_t> fans_of(const Shape& s) {
  if (s.rank() < 2) return {0, 0};
  int64_t receptive = 1;
  for (size_t i = 2; i < s.rank(); ++i) receptive *= s[i];
  return {s[1] * receptive, s[0] * receptive};
}

TensorHandle orthogonal_matrix(const Shape& shape, const Device& device, double gain, DType dtype) {
  if (shape.rank() < 2)
    throw ValueError("Initializer::orthogonal",
                     "needs a shape of rank 2 or more, not rank " + std::to_string(shape.rank()));
  const int64_t rows = shape[0], cols = shape.num_elements() / std::max<int64_t>(rows, 1);
  if (rows == 0 || cols == 0) return api::full(device, shape, 0, dtype);
  // QR of the taller orientation, signs fixed by diag(R) so the result is uniform over orthogonal
  // matrices (PyTorch's orthogonal_).
  const bool transpose = rows < cols;
  TensorHandle flat = api::random(device, Shape{transpose ? cols : rows, transpose ? rows : cols},
                                  Distribution::normal(0, 1), DType::F32);
  auto [q, r] = api::qr(flat, QrMode::Reduced);
  TensorHandle d = api::unary(OpId::sign, api::diag(r, 0));
  q = api::mul(q, api::unsqueeze_dims(d, {0}));
  if (transpose) q = api::swap_dims(q, 0, 1);
  q = api::mul_scalar(api::reshape(q, shape.dims()), gain);
  return api::cast(q, dtype);
}

}  // namespace

TensorHandle Initializer::init(const Shape& shape, const Device& device, std::optional<int64_t> fan_in,
                               std::optional<int64_t> fan_out, DType dtype) const {
  const auto [shape_in, shape_out] = fans_of(shape);
  const int64_t in = fan_in.value_or(shape_in), out = fan_out.value_or(shape_out);
  const std::string op = "Initializer::" + std::string(initializer_name(kind));
  auto need = [&](int64_t fan, const char* which) {
    if (fan <= 0)
      throw ValueError(op, std::string("needs a positive ") + which + ", got " + std::to_string(fan) +
                               " (give it for a shape of rank < 2)");
    return static_cast<double>(fan);
  };
  switch (kind) {
    case Kind::Constant: return api::full(device, shape, a, dtype);
    case Kind::Zeros: return api::full(device, shape, 0, dtype);
    case Kind::Ones: return api::full(device, shape, 1, dtype);
    case Kind::Uniform: return api::random(device, shape, Distribution::uniform(a, b), dtype);
    case Kind::Normal: return api::random(device, shape, Distribution::normal(a, b), dtype);
    case Kind::KaimingUniform: {
      const double bound = a * std::sqrt(3.0 / need(fan_out_only ? out : in, fan_out_only ? "fan_out" : "fan_in"));
      return api::random(device, shape, Distribution::uniform(-bound, bound), dtype);
    }
    case Kind::KaimingNormal: {
      const double std = a / std::sqrt(need(fan_out_only ? out : in, fan_out_only ? "fan_out" : "fan_in"));
      return api::random(device, shape, Distribution::normal(0, std), dtype);
    }
    case Kind::XavierUniform: {
      const double bound = a * std::sqrt(6.0 / (need(in, "fan_in") + need(out, "fan_out")));
      return api::random(device, shape, Distribution::uniform(-bound, bound), dtype);
    }
    case Kind::XavierNormal: {
      const double std = a * std::sqrt(2.0 / (need(in, "fan_in") + need(out, "fan_out")));
      return api::random(device, shape, Distribution::normal(0, std), dtype);
    }
    case Kind::Orthogonal: return orthogonal_matrix(shape, device, a, dtype);
  }
  throw ValueError(op, "unknown initializer kind");
}

}  // namespace burn::nn
