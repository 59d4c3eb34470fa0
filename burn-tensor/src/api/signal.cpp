// burn::signal: the real FFT pair and the Hann, Hamming and Blackman windows. The transforms are
// composites of matmuls with host-made DFT tables and elementwise ops (no backend op), so autodiff
// differentiates them by decomposition. A transform runs along the last dim of a [batch, n] view.
#include <cmath>
#include <numbers>
#include <string>

#include "burn/tensor/signal.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

using T2 = Tensor<2>;
using T3 = Tensor<3>;

// A complex tensor as two real ones; a null `im` is zero (a real signal).
struct Cx {
  T3 re, im;
  bool real() const { return !im.handle().prim; }
};

// exp(sign * 2 pi i r / n) with r reduced mod n first (r = k * t stays exact in int64), and exact
// values at the quarter turns so that the DC and Nyquist rows of a table are exactly real.
std::pair<double, double> unit_root(int64_t r, int64_t n, int sign) {
  r %= n;
  if (r == 0) return {1.0, 0.0};
  if (2 * r == n) return {-1.0, 0.0};
  if (4 * r == n) return {0.0, static_cast<double>(sign)};
  if (4 * r == 3 * n) return {0.0, -static_cast<double>(sign)};
  const double a = 2 * std::numbers::pi * static_cast<double>(r) / static_cast<double>(n);
  return {std::cos(a), sign * std::sin(a)};
}

// A host-made [1, rows, cols] table of dtype dt: f(r, c) for every entry.
template <typename V, typename F>
TensorData table_data(int64_t rows, int64_t cols, F f, const char* op) {
  std::vector<V> v = host_vector<V>(checked_mul(rows, cols, op), op);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) v[static_cast<size_t>(r * cols + c)] = static_cast<V>(f(r, c));
  return TensorData::from_vector(v, Shape{1, rows, cols});
}

template <typename F>
T3 table(const Device& d, DType dt, int64_t rows, int64_t cols, F f, const char* op) {
  TensorData data =
      dt == DType::F32 ? table_data<float>(rows, cols, f, op) : table_data<double>(rows, cols, f, op).convert(dt);
  return T3(from_data(d, data, Kind::Float));
}

// The DFT matrix W[r, c] = exp(sign * 2 pi i (r + r0) (c + c0) / n) * scale, as (re, im) tables.
std::pair<T3, T3> dft_tables(const Device& d, DType dt, int64_t rows, int64_t cols, int64_t n, int sign, double scale,
                             const char* op) {
  auto roots = host_vector<std::pair<double, double>>(n, op);  // n sin/cos, not rows * cols
  for (int64_t r = 0; r < n; ++r) roots[static_cast<size_t>(r)] = unit_root(r, n, sign);
  auto part = [&](bool imag) {
    return table(
        d, dt, rows, cols,
        [&](int64_t r, int64_t c) {
          const auto& [re, im] = roots[static_cast<size_t>((r * c) % n)];
          return (imag ? im : re) * scale;
        },
        op);
  };
  return {part(false), part(true)};
}

// x @ W for a complex x [b, r, k] and a complex table W [1, k, c].
Cx matmul_right(const Cx& x, const std::pair<T3, T3>& w) {
  if (x.real()) return {x.re.matmul(w.first), x.re.matmul(w.second)};
  return {x.re.matmul(w.first) - x.im.matmul(w.second), x.re.matmul(w.second) + x.im.matmul(w.first)};
}

// W @ x for a complex table W [1, r, k] and a complex x [b, k, c].
Cx matmul_left(const std::pair<T3, T3>& w, const Cx& x) {
  if (x.real()) return {w.first.matmul(x.re), w.second.matmul(x.re)};
  return {w.first.matmul(x.re) - w.second.matmul(x.im), w.second.matmul(x.re) + w.first.matmul(x.im)};
}

// The largest divisor of n that is at most sqrt(n): the split of the two-step DFT (1 for a prime).
int64_t split_of(int64_t n) {
  int64_t best = 1;
  for (int64_t f = 2; f * f <= n; ++f)
    if (n % f == 0) best = f;
  return best;
}

// Below this size one DFT matmul is cheaper than the two of the split transform (measured on cpu).
constexpr int64_t kSplitMin = 64;

// The first `bins` outputs of the DFT (sign -1) or inverse DFT (sign +1) of x [b, 1, n] along its last
// dim, times scale. For n = n1 * n2 (Cooley-Tukey in one step): with t = t1 + n1 t2 and
// k = k2 + n2 k1, X[k] = sum_t1 W_n1^(t1 k1) W_n^(t1 k2) sum_t2 x[t1 + n1 t2] W_n2^(t2 k2): a DFT
// matmul over t2, a twiddle product and a DFT matmul over t1. Otherwise one [n, bins] DFT matmul.
// real_out skips the imaginary part of the last step (irfft needs only the real part).
Cx dft(Cx x, int64_t n, int64_t bins, int sign, double scale, bool real_out, const char* op) {
  const Device& d = x.re.device();
  const DType dt = x.re.dtype();
  const int64_t b = x.re.dim(0), n1 = n >= kSplitMin ? split_of(n) : 1;
  if (n1 == 1) {
    auto w = dft_tables(d, dt, n, bins, n, sign, scale, op);
    if (real_out) return {x.real() ? x.re.matmul(w.first) : x.re.matmul(w.first) - x.im.matmul(w.second), T3()};
    return matmul_right(x, w);
  }
  const int64_t n2 = n / n1, k1s = std::min(n1, (bins + n2 - 1) / n2);
  auto view = [&](const T3& t) { return t.reshape<3>({b, n2, n1}); };  // [b, t2, t1]
  Cx y = matmul_left(dft_tables(d, dt, n2, n2, n2, sign, 1.0, op), {view(x.re), x.real() ? T3() : view(x.im)});
  // Twiddles W_n^(t1 k2) on [k2, t1], with the scale folded in.
  auto [tr, ti] = dft_tables(d, dt, n2, n1, n, sign, scale, op);
  y = {y.re * tr - y.im * ti, y.re * ti + y.im * tr};
  auto f1 = dft_tables(d, dt, n1, k1s, n1, sign, 1.0, op);
  auto flat = [&](const T3& t) {  // [b, k2, k1] -> [b, 1, k], k = k2 + n2 k1
    return t.swap_dims(1, 2).reshape<3>({b, 1, k1s * n2}).slice({Slice::all(), Slice::all(), Slice::range(0, bins)});
  };
  if (real_out) return {flat(y.re.matmul(f1.first) - y.im.matmul(f1.second)), T3()};
  Cx z = matmul_right(y, f1);
  return {flat(z.re), flat(z.im)};
}

double norm_scale(FftNorm norm, int64_t n, bool inverse) {
  switch (norm) {
    case FftNorm::Backward: return inverse ? 1.0 / static_cast<double>(n) : 1.0;
    case FftNorm::Forward: return inverse ? 1.0 : 1.0 / static_cast<double>(n);
    case FftNorm::Ortho: return 1.0 / std::sqrt(static_cast<double>(n));
  }
  return 1.0;
}

// A transform of n samples needs at least its n roots of unity on the host (and tables of n or more
// entries): refused up front when they cannot be had, before split_of walks sqrt(n) candidates.
void check_length(int64_t n, const char* op) { checked_bytes(Shape{n}, sizeof(std::pair<double, double>), op); }

void check_norm(FftNorm norm, const char* op) {
  if (norm != FftNorm::Backward && norm != FftNorm::Ortho && norm != FftNorm::Forward)
    throw ValueError(op, "unknown FftNorm " + std::to_string(static_cast<int>(norm)));
}

// x with `dim` moved last and the rest flattened: [batch, 1, len], and how to undo it.
struct Lanes {
  T3 x;
  std::vector<int64_t> moved;  // the shape with dim last
  int64_t dim;
  size_t rank;
};

Lanes to_lanes(H x, int64_t dim) {
  const size_t r = rank(x);
  H m = swap_dims(std::move(x), dim, static_cast<int64_t>(r) - 1);
  std::vector<int64_t> moved = shape(m).dims();
  int64_t lanes = 1;
  for (size_t i = 0; i + 1 < r; ++i) lanes *= moved[i];
  return {T3(reshape(std::move(m), {lanes, 1, moved.back()})), moved, dim, r};
}

// [batch, 1, len2] back to the input's layout with `dim` of size len2.
H from_lanes(const T3& y, const Lanes& l) {
  std::vector<int64_t> s = l.moved;
  s.back() = y.dim(2);
  return swap_dims(reshape(y.handle(), s), l.dim, static_cast<int64_t>(l.rank) - 1);
}

// The lanes of x cut or zero-padded to n samples.
T3 fit(const T3& x, int64_t n) {
  const int64_t len = x.dim(2);
  if (len == n) return x;
  if (len > n) return x.slice({Slice::all(), Slice::all(), Slice::range(0, n)});
  return x.pad({0, n - len});
}

H window(const Device& d, int64_t size, bool periodic, DType dt, const char* op, double a0, double a1, double a2) {
  if (size < 0) throw ValueError(op, "size must be non-negative, got " + std::to_string(size));
  if (!is_float(dt)) throw DTypeError(op, "expected a float dtype, got " + detail::dt(dt));
  std::vector<double> w = host_vector<double>(size, op, 1.0);
  const int64_t n = periodic ? size : size - 1;
  if (size > 1)
    for (int64_t k = 0; k < size; ++k) {
      const double a = 2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
      w[static_cast<size_t>(k)] = a0 - a1 * std::cos(a) + a2 * std::cos(2 * a);
    }
  return from_data(d, TensorData::from_vector(w, Shape{size}).convert(dt), Kind::Float);
}

}  // namespace

std::pair<H, H> rfft(H x, int64_t dim, std::optional<int64_t> n, FftNorm norm) {
  const char* op = "rfft";
  be(x, op);
  require_float(x, op);
  check_norm(norm, op);
  const size_t d = normalize_dim(dim, rank(x), op);
  const int64_t len = n.value_or(shape(x)[d]);
  if (len < 1)
    throw ValueError(op, "the transform needs n >= 1 samples, got " + std::to_string(len) +
                             (n ? "" : " (the size of dim " + std::to_string(d) + ")"));
  check_length(len, op);
  Lanes l = to_lanes(std::move(x), static_cast<int64_t>(d));
  Cx y = dft({fit(l.x, len), T3()}, len, len / 2 + 1, -1, norm_scale(norm, len, false), false, op);
  return {from_lanes(y.re, l), from_lanes(y.im, l)};
}

H irfft(H re, const H& im, int64_t dim, std::optional<int64_t> n, FftNorm norm) {
  const char* op = "irfft";
  be(re, op);
  same_device(re, im, op);
  require_float(re, op);
  same_dtype(re, im, op);
  check_norm(norm, op);
  if (shape(re) != shape(im))
    throw ShapeError(
        op, "real part " + shape(re).to_string() + " and imaginary part " + shape(im).to_string() + " differ in shape");
  const size_t d = normalize_dim(dim, rank(re), op);
  const int64_t len = n.value_or(checked_mul(2, shape(re)[d] - 1, op));
  if (len < 1)
    throw ValueError(op, "the transform needs n >= 1 output samples, got " + std::to_string(len) +
                             (n ? "" : " (2 * (bins - 1) for " + std::to_string(shape(re)[d]) + " bins)"));
  check_length(len, op);
  Lanes lr = to_lanes(std::move(re), static_cast<int64_t>(d)), li = to_lanes(im, static_cast<int64_t>(d));
  const int64_t half = len / 2 + 1, used = std::min(half, lr.x.dim(2));
  const Device& dev = lr.x.device();
  const DType dt = lr.x.dtype();
  const double scale = norm_scale(norm, len, true);
  // C2R ignores the imaginary parts of the DC bin and (n even) of the Nyquist bin.
  auto real_bin = [&](int64_t k) { return k == 0 || 2 * k == len; };
  T3 y;
  if (len >= kSplitMin && split_of(len) > 1) {
    // The full Hermitian spectrum X[k] = conj(X[n - k]) for k > n / 2, then one inverse DFT.
    T3 xr = fit(lr.x, half),
       xi = fit(li.x, half) * table(
                                  dev, dt, 1, half, [&](int64_t, int64_t k) { return real_bin(k) ? 0.0 : 1.0; }, op);
    const int64_t mirror = len - half;
    if (mirror > 0) {
      auto tail = [&](const T3& t) {
        return t.slice({Slice::all(), Slice::all(), Slice::range(1, 1 + mirror)}).flip({2});
      };
      xr = T3::cat({xr, tail(xr)}, 2);
      xi = T3::cat({xi, -tail(xi)}, 2);
    }
    y = dft({xr, xi}, len, len, 1, scale, true, op).re;
  } else {
    // x[t] = sum_k w_k (re_k cos(2 pi k t / n) - im_k sin(2 pi k t / n)), w_k = 1 for the real bins, else 2.
    auto roots = host_vector<std::pair<double, double>>(len, op);
    for (int64_t r = 0; r < len; ++r) roots[static_cast<size_t>(r)] = unit_root(r, len, 1);
    auto part = [&](bool imag) {
      return table(
          dev, dt, used, len,
          [&](int64_t k, int64_t t) {
            if (imag && real_bin(k)) return 0.0;
            const auto& [c, s] = roots[static_cast<size_t>((k * t) % len)];
            return (real_bin(k) ? 1.0 : 2.0) * (imag ? -s : c) * scale;
          },
          op);
    };
    y = fit(lr.x, used).matmul(part(false)) + fit(li.x, used).matmul(part(true));
  }
  return from_lanes(y, lr);
}

H hann_window(const Device& d, int64_t size, bool periodic, DType dt) {
  return window(d, size, periodic, dt, "hann_window", 0.5, 0.5, 0.0);
}

H hamming_window(const Device& d, int64_t size, bool periodic, double alpha, double beta, DType dt) {
  return window(d, size, periodic, dt, "hamming_window", alpha, beta, 0.0);
}

H blackman_window(const Device& d, int64_t size, bool periodic, DType dt) {
  return window(d, size, periodic, dt, "blackman_window", 0.42, 0.5, 0.08);
}

}  // namespace burn::api
