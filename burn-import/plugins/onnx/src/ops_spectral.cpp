// Spectral ops: DFT and STFT as matmuls with host-made cosine and sine matrices (exact to rounding,
// differentiable, any signal length), complex values as a trailing dim of 2 as ONNX stores them.
#include <cmath>
#include <numbers>

#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

// The DFT over the last dim of (re, im) (im may be absent: a real signal) of length n, with
// `bins` output bins; inverse uses e^{+i} and divides by n. Returns (re, im).
std::pair<H, H> dft_last(const Device& d, const H& re, const std::optional<H>& im, int64_t n, int64_t bins,
                         bool inverse) {
  DType dt = re.prim->dtype();
  std::vector<double> cs(static_cast<size_t>(n * bins)), sn(static_cast<size_t>(n * bins));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < bins; ++k) {
      double a = 2 * std::numbers::pi * static_cast<double>((j * k) % n) / static_cast<double>(n);
      cs[static_cast<size_t>(j * bins + k)] = std::cos(a);
      sn[static_cast<size_t>(j * bins + k)] = std::sin(a);
    }
  H C = api::cast(api::from_data(d, TensorData::from_vector(cs, Shape{n, bins}), Kind::Float), dt);
  H S = api::cast(api::from_data(d, TensorData::from_vector(sn, Shape{n, bins}), Kind::Float), dt);
  double sign = inverse ? -1.0 : 1.0;  // e^{-i theta} forward: re = xr C + xi S, im = xi C - xr S
  H yr = matmul_nd(re, C);
  H yi = api::mul_scalar(matmul_nd(re, S), Scalar(-sign));
  if (im) {
    yr = api::add(yr, api::mul_scalar(matmul_nd(*im, S), Scalar(sign)));
    yi = api::add(yi, matmul_nd(*im, C));
  }
  if (inverse) {
    yr = api::div_scalar(yr, Scalar(static_cast<double>(n)));
    yi = api::div_scalar(yi, Scalar(static_cast<double>(n)));
  }
  return {yr, yi};
}

// Splits [..., 1|2] into the real part and the optional imaginary part.
std::pair<H, std::optional<H>> parts(OpContext& c, const H& x) {
  const Shape& s = x.prim->shape();
  int64_t last = static_cast<int64_t>(s.rank()) - 1;
  if (s.rank() < 2 || (s[static_cast<size_t>(last)] != 1 && s[static_cast<size_t>(last)] != 2))
    c.invalid("the last dim must be 1 (real) or 2 (complex), shape " + s.to_string());
  H re = api::squeeze_dims(api::narrow(x, last, 0, 1), {last});
  if (s[static_cast<size_t>(last)] == 1) return {re, std::nullopt};
  return {re, api::squeeze_dims(api::narrow(x, last, 1, 1), {last})};
}

Hs dft(OpContext& c) {
  auto [re, im] = parts(c, c.in(0));
  size_t r = shape_of(re).rank();
  // Opset 20 moved axis from an attribute (default 1) to input 2 (default -2); negative counts from the
  // back of the input, its trailing complex dim included.
  const int64_t given = c.opset() >= 20 ? (c.has(2) ? c.ints(2).at(0) : -2) : c.attr_i("axis", 1);
  int64_t axis = given;
  if (axis < 0) axis += static_cast<int64_t>(r) + 1;
  if (axis < 0 || axis >= static_cast<int64_t>(r)) c.invalid("axis " + std::to_string(given) + " is not a signal dim");
  bool inverse = c.attr_i("inverse", 0) != 0, onesided = c.attr_i("onesided", 0) != 0;
  int64_t last = static_cast<int64_t>(r) - 1;
  re = api::movedim(re, {axis}, {last});
  if (im) im = api::movedim(*im, {axis}, {last});
  int64_t n = shape_of(re)[static_cast<size_t>(last)];
  int64_t L = c.has(1) ? c.ints(1).at(0) : n;
  auto fit = [&](H h) {  // zero-pad or truncate to the DFT length
    if (L < n) return api::narrow(h, last, 0, L);
    if (L > n) return api::pad(h, {0, L - n}, PadMode::Constant, Scalar(0.0));
    return h;
  };
  re = fit(re);
  if (im) im = fit(*im);
  auto [yr, yi] = dft_last(c.device(), re, im, L, onesided ? L / 2 + 1 : L, inverse);
  yr = api::movedim(yr, {last}, {axis});
  yi = api::movedim(yi, {last}, {axis});
  return {api::stack({yr, yi}, static_cast<int64_t>(r))};
}

Hs stft(OpContext& c) {
  auto [re, im] = parts(c, c.in(0));  // [batch, length]
  int64_t step = c.ints(1).at(0);
  std::optional<H> window = c.has(2) ? std::optional<H>(c.in(2)) : std::nullopt;
  if (window && shape_of(*window).rank() != 1) c.invalid("window must be 1-D");
  if (shape_of(re).rank() != 2) c.invalid("signal must be [batch, length, 1|2]");
  int64_t len = c.has(3) ? c.ints(3).at(0) : window ? shape_of(*window)[0] : 0;
  if (len <= 0 || step <= 0) c.invalid("frame_length and frame_step must be positive");
  bool onesided = c.attr_i("onesided", 1) != 0;
  auto frames = [&](const H& h) {
    H f = api::unfold(h, 1, len, step);  // [batch, frames, len]
    return window ? api::mul(f, *window) : f;
  };
  H fr = frames(re);
  std::optional<H> fi;
  if (im) fi = frames(*im);
  auto [yr, yi] = dft_last(c.device(), fr, fi, len, onesided ? len / 2 + 1 : len, false);
  return {api::stack({yr, yi}, 3)};
}

// MelWeightMatrix (17): triangular filters of peak 1 whose edges are num_mel_bins + 2 points spaced
// evenly on the mel scale mel(f) = 2595 log10(1 + f / 700) and mapped to onesided DFT bins as the
// reference maps them (the mel step divides the range by num_mel_bins + 2; bins floor((n + 1) f / rate)).
// The mel range and step are computed in the edges' float type, the points in double, as NumPy does in
// the reference.
Hs mel_weight_matrix(OpContext& c) {
  int64_t mels = c.ints(0).at(0), n = c.ints(1).at(0), rate = c.ints(2).at(0);
  if (mels <= 0 || n <= 0 || rate <= 0) c.invalid("num_mel_bins, dft_length and sample_rate must be positive");
  double lo, step;
  if (c.dtype(3) == DType::F32) {
    auto mel = [](double hz) { return 2595.0f * std::log10(1.0f + static_cast<float>(hz) / 700.0f); };
    float l = mel(c.scalar(3)), h = mel(c.scalar(4));
    lo = l;
    step = (h - l) / static_cast<float>(mels + 2);
  } else {
    auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
    lo = mel(c.scalar(3));
    step = (mel(c.scalar(4)) - lo) / static_cast<double>(mels + 2);
  }
  std::vector<int64_t> edge(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lo) / 2595.0) - 1.0);
    edge[static_cast<size_t>(i)] =
        static_cast<int64_t>(std::floor(static_cast<double>(n + 1) * hz / static_cast<double>(rate)));
  }
  const int64_t bins = n / 2 + 1;
  std::vector<double> w(static_cast<size_t>(bins * mels), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& {
    if (j < 0 || j >= bins)
      c.invalid("the band edges reach DFT bin " + std::to_string(j) + ", outside the " + std::to_string(bins) +
                " onesided bins (upper_edge_hertz above sample_rate / 2?)");
    return w[static_cast<size_t>(j * mels + i)];
  };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = edge[static_cast<size_t>(i)], center = edge[static_cast<size_t>(i + 1)],
            right = edge[static_cast<size_t>(i + 2)];
    if (center == left)
      at(center, i) = 1.0;
    else
      for (int64_t j = left; j <= center; ++j)
        at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
    for (int64_t j = center; j < right; ++j)
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  DType dt = dtype_from_onnx(static_cast<int32_t>(c.attr_i("output_datatype", 1)), c.where());
  TensorData d = TensorData::from_vector(w, Shape{bins, mels}).convert(dt);
  return {api::from_data(c.device(), d, api::kind_of(dt))};
}

}  // namespace

void add_spectral_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"DFT", 17, k, dft},
                        {"STFT", 17, k, stft},
                        {"MelWeightMatrix", 17, k, mel_weight_matrix},
                    });
}

}  // namespace burn::onnx
