// burn-conformance: the calls of burn::signal (real FFT pair, windows).
#include <optional>
#include <stdexcept>

#include "burn/tensor/signal.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

namespace {

std::optional<int64_t> opt_n(const json& a) {
  if (!a.contains("n") || a.at("n").is_null()) return std::nullopt;
  return a.at("n").get<int64_t>();
}

FftNorm fft_norm(const json& a) {
  const std::string m = a.value("norm", std::string("backward"));
  if (m == "backward") return FftNorm::Backward;
  if (m == "ortho") return FftNorm::Ortho;
  if (m == "forward") return FftNorm::Forward;
  throw std::runtime_error("unknown fft norm '" + m + "'");
}

}  // namespace

void add_signal_calls(CallTable& t) {
  t["rfft"] = [](const Device&, Hs& in, const json& a) {
    return two(api::rfft(std::move(in.at(0)), i64(a, "dim"), opt_n(a), fft_norm(a)));
  };
  t["irfft"] = [](const Device&, Hs& in, const json& a) {
    return one(api::irfft(std::move(in.at(0)), in.at(1), i64(a, "dim"), opt_n(a), fft_norm(a)));
  };
  t["hann_window"] = [](const Device& d, Hs&, const json& a) {
    return one(api::hann_window(d, i64(a, "size"), flag(a, "periodic"), dtype(a)));
  };
  t["hamming_window"] = [](const Device& d, Hs&, const json& a) {
    return one(api::hamming_window(d, i64(a, "size"), flag(a, "periodic"), f64(a, "alpha"), f64(a, "beta"), dtype(a)));
  };
  t["blackman_window"] = [](const Device& d, Hs&, const json& a) {
    return one(api::blackman_window(d, i64(a, "size"), flag(a, "periodic"), dtype(a)));
  };
}

}  // namespace burn::conformance
