// burn::signal: Burn's signal functions with PyTorch's semantics: the real FFT pair (torch.fft.rfft /
// irfft) and the Hann, Hamming and Blackman windows (torch.*_window). There is no complex dtype: a
// spectrum is a (real, imaginary) pair of Float tensors, as in Burn. The transforms are composites of
// matmuls and elementwise ops (no backend op), so they run on any backend and autodiff differentiates
// them by decomposition.
#pragma once

#include <optional>
#include <utility>

#include "burn/tensor/tensor.hpp"

namespace burn {

// torch.fft's norm: which direction is scaled. Backward: the inverse by 1/n; Ortho: both by
// 1/sqrt(n); Forward: the forward transform by 1/n.
enum class FftNorm : uint8_t { Backward, Ortho, Forward };

namespace api {

// The one-sided spectrum of real x along dim: {re, im} with n / 2 + 1 bins along dim, x truncated or
// zero-padded to n samples (default: the dim's size).
BURN_TENSOR_API std::pair<H, H> rfft(H x, int64_t dim, std::optional<int64_t> n, FftNorm norm);
// The real signal of n samples (default 2 * (bins - 1)) whose one-sided spectrum is (re, im) along dim,
// truncated or zero-padded to n / 2 + 1 bins; the imaginary parts of the DC and Nyquist bins are
// ignored, as torch.fft.irfft does.
BURN_TENSOR_API H irfft(H re, const H& im, int64_t dim, std::optional<int64_t> n, FftNorm norm);
BURN_TENSOR_API H hann_window(const Device& d, int64_t size, bool periodic, DType dt);
BURN_TENSOR_API H hamming_window(const Device& d, int64_t size, bool periodic, double alpha, double beta, DType dt);
BURN_TENSOR_API H blackman_window(const Device& d, int64_t size, bool periodic, DType dt);

}  // namespace api

namespace signal {

// rfft along dim: {real, imaginary} parts of the n / 2 + 1 non-negative frequencies. Cost per signal:
// for n = n1 * n2 >= 64, O(n (n1 + n2)) (one Cooley-Tukey split: two DFT matmuls and a twiddle
// product; n1 is the largest factor <= sqrt(n)); for smaller or prime n a direct DFT by matmul,
// O(n^2), whose n x (n / 2 + 1) tables are made on the host at each call (slow for large primes).
template <size_t D>
std::pair<Tensor<D>, Tensor<D>> rfft(const Tensor<D>& x, int64_t dim = -1, std::optional<int64_t> n = std::nullopt,
                                     FftNorm norm = FftNorm::Backward) {
  auto [re, im] = api::rfft(x.handle(), dim, n, norm);
  return {Tensor<D>(std::move(re)), Tensor<D>(std::move(im))};
}

// The inverse of rfft: a real signal of n samples (default 2 * (bins - 1)) along dim.
template <size_t D>
Tensor<D> irfft(const Tensor<D>& re, const Tensor<D>& im, int64_t dim = -1, std::optional<int64_t> n = std::nullopt,
                FftNorm norm = FftNorm::Backward) {
  return Tensor<D>(api::irfft(re.handle(), im.handle(), dim, n, norm));
}

// w[k] = 0.5 - 0.5 cos(2 pi k / N), N = size (periodic) or size - 1; size 1 gives [1].
inline Tensor<1> hann_window(int64_t size, bool periodic, const Device& d, DType dt = DType::F32) {
  return Tensor<1>(api::hann_window(d, size, periodic, dt));
}
// w[k] = alpha - beta cos(2 pi k / N).
inline Tensor<1> hamming_window(int64_t size, bool periodic, const Device& d, DType dt = DType::F32,
                                double alpha = 0.54, double beta = 0.46) {
  return Tensor<1>(api::hamming_window(d, size, periodic, alpha, beta, dt));
}
// w[k] = 0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N).
inline Tensor<1> blackman_window(int64_t size, bool periodic, const Device& d, DType dt = DType::F32) {
  return Tensor<1>(api::blackman_window(d, size, periodic, dt));
}

}  // namespace signal
}  // namespace burn
