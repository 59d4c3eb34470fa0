// PositionalEncoding (sinusoids) and RotaryEncoding (RoPE): angle tables made exactly on the host.
#include "burn/nn/positional.hpp"

#include <cmath>

#include "config_json.hpp"

namespace burn::nn {

BURN_CONFIG_JSON(PositionalEncodingConfig, d_model, max_sequence_size, max_timescale)
BURN_CONFIG_JSON(RotaryEncodingConfig, max_sequence_length, d_model, theta)

namespace detail {

namespace {
// The angle tables are computed in double on the host and moved to the input's device: exact to
// the last bit of f32 whatever the backend's sin/cos.
TensorHandle table(const Device& d, int64_t rows, int64_t cols, DType dtype, const std::vector<double>& v) {
  return api::cast(api::from_data(d, TensorData::from_vector(v, Shape{rows, cols}), Kind::Float), dtype);
}
}  // namespace

TensorHandle positional_encoding(const TensorHandle& x, int64_t max_sequence_size, double max_timescale) {
  const Shape& s = x.prim->shape();
  const int64_t len = s[1], d_model = s[2];
  if (len > max_sequence_size)
    throw ValueError("PositionalEncoding", "sequence length " + std::to_string(len) + " exceeds max_sequence_size " +
                                               std::to_string(max_sequence_size));
  if (d_model % 2 != 0) throw ShapeError("PositionalEncoding", "d_model " + std::to_string(d_model) + " must be even");
  std::vector<double> pe(static_cast<size_t>(len * d_model));
  for (int64_t p = 0; p < len; ++p)
    for (int64_t i = 0; i < d_model; i += 2) {
      const double angle = p * std::exp(-std::log(max_timescale) * static_cast<double>(i) / d_model);
      pe[p * d_model + i] = std::sin(angle);
      pe[p * d_model + i + 1] = std::cos(angle);
    }
  return api::add(x, api::unsqueeze_dims(table(x.device, len, d_model, x.prim->dtype(), pe), {0}));
}

TensorHandle rotary_encoding(const TensorHandle& x, int64_t start, int64_t max_sequence_length, double theta) {
  const Shape& s = x.prim->shape();
  if (s.rank() < 2) throw ShapeError("RotaryEncoding", "input " + s.to_string() + " needs [..., seq, d_model]");
  const int64_t len = s[s.rank() - 2], d_model = s[s.rank() - 1];
  if (d_model % 2 != 0) throw ShapeError("RotaryEncoding", "d_model " + std::to_string(d_model) + " must be even");
  if (start < 0 || start + len > max_sequence_length)
    throw ValueError("RotaryEncoding", "positions [" + std::to_string(start) + ", " + std::to_string(start + len) +
                                           ") exceed max_sequence_length " + std::to_string(max_sequence_length));
  const int64_t half = d_model / 2;
  std::vector<double> cos(static_cast<size_t>(len * half)), sin(cos.size());
  for (int64_t p = 0; p < len; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const double angle = (start + p) * std::pow(theta, -2.0 * i / d_model);
      cos[p * half + i] = std::cos(angle);
      sin[p * half + i] = std::sin(angle);
    }
  const DType dt = x.prim->dtype();
  // [N, len, half, 2] pairs; the tables [len, half, 1] broadcast over N.
  TensorHandle pairs = api::reshape(x, {-1, len, half, 2});
  TensorHandle c = api::unsqueeze_dims(api::unsqueeze_dims(table(x.device, len, half, dt, cos), {2}), {0});
  TensorHandle sn = api::unsqueeze_dims(api::unsqueeze_dims(table(x.device, len, half, dt, sin), {2}), {0});
  TensorHandle x0 = api::narrow(pairs, 3, 0, 1), x1 = api::narrow(pairs, 3, 1, 1);
  TensorHandle r0 = api::sub(api::mul(x0, c), api::mul(x1, sn));
  TensorHandle r1 = api::add(api::mul(x0, sn), api::mul(x1, c));
  return api::reshape(api::cat({r0, r1}, 3), s.dims());
}

}  // namespace detail

std::string PositionalEncoding::extra_repr() const { return "max_sequence_size=" + std::to_string(max_sequence_size); }
std::string RotaryEncoding::extra_repr() const { return "max_sequence_length=" + std::to_string(max_sequence_length); }

PositionalEncoding PositionalEncodingConfig::init() const {
  if (d_model <= 0 || d_model % 2 != 0 || max_sequence_size <= 0)
    throw ValueError("PositionalEncodingConfig::init",
                     "d_model must be positive and even and max_sequence_size "
                     "positive, got " +
                         std::to_string(d_model) + " and " + std::to_string(max_sequence_size));
  PositionalEncoding p;
  p.max_sequence_size = max_sequence_size;
  p.max_timescale = max_timescale;
  return p;
}

RotaryEncoding RotaryEncodingConfig::init() const {
  if (d_model <= 0 || d_model % 2 != 0 || max_sequence_length <= 0)
    throw ValueError("RotaryEncodingConfig::init",
                     "d_model must be positive and even and max_sequence_length "
                     "positive, got " +
                         std::to_string(d_model) + " and " + std::to_string(max_sequence_length));
  RotaryEncoding r;
  r.max_sequence_length = max_sequence_length;
  r.theta = theta;
  return r;
}

}  // namespace burn::nn
