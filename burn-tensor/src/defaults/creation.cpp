// The DEFAULT ops of the creation (random, arange) group: composite bodies built from other
// ops of the table, so a backend that implements only the core ops gets them all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace burn {
using namespace detail;

namespace {

// ---- host-side sampling for `random` -------------------------------------------------------

// [0, 1) with 53 random bits: fixed arithmetic, so identical on every platform.
double unit(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

// Uniform integer in [0, range) without modulo bias (rejects the short top bucket).
uint64_t below(std::mt19937_64& g, uint64_t range) {
  uint64_t threshold = (0 - range) % range;  // 2^64 mod range
  for (;;) {
    uint64_t r = g();
    if (r >= threshold) return r % range;
  }
}

// The value of v after rounding to a float dtype.
double round_to(DType d, double v) {
  switch (d) {
    case DType::F64: return v;
    case DType::F32: return static_cast<float>(v);
    case DType::F16: return f16_to_f32(f32_to_f16(static_cast<float>(v)));
    case DType::BF16: return bf16_to_f32(f32_to_bf16(static_cast<float>(v)));
    default: return v;
  }
}

// The largest value of float dtype d that is below b (b finite).
double below_in(DType d, double b) {
  auto step16 = [](uint16_t h) -> uint16_t {
    if ((h & 0x7fff) == 0) return 0x8001;  // +-0 -> smallest negative subnormal
    return (h & 0x8000) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h - 1);
  };
  switch (d) {
    case DType::F64: return std::nextafter(b, -INFINITY);
    case DType::F32: {
      float f = static_cast<float>(b);
      return f < b ? f : std::nextafter(f, -INFINITY);
    }
    case DType::F16: {
      uint16_t h = f32_to_f16(static_cast<float>(b));
      return f16_to_f32(h) < b ? f16_to_f32(h) : f16_to_f32(step16(h));
    }
    case DType::BF16: {
      uint16_t h = f32_to_bf16(static_cast<float>(b));
      return bf16_to_f32(h) < b ? bf16_to_f32(h) : bf16_to_f32(step16(h));
    }
    default: return b;
  }
}

std::string dist_text(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::Default: return "default(" + num(d.a) + ", " + num(d.b) + ")";
    case Distribution::Kind::Uniform: return "uniform(" + num(d.a) + ", " + num(d.b) + ")";
    case Distribution::Kind::Normal: return "normal(mean " + num(d.a) + ", std " + num(d.b) + ")";
    case Distribution::Kind::Bernoulli: return "bernoulli(p " + num(d.a) + ")";
  }
  return "?";
}

void store_i64(TensorData& d, int64_t i, int64_t v);

void store_f64(TensorData& d, int64_t i, double v) {
  auto* p = static_cast<uint8_t*>(d.raw());
  if (is_int(d.dtype())) {
    // Truncate, then saturate: an out-of-range float-to-int conversion is undefined in C++.
    auto [lo, hi] = int_range(d.dtype());
    double t = std::isnan(v) ? 0.0 : std::trunc(v);
    int64_t iv = t <= static_cast<double>(lo)                     ? lo
                 : !fits_int64(t) || t >= static_cast<double>(hi) ? hi
                                                                  : static_cast<int64_t>(t);
    store_i64(d, i, iv);
    return;
  }
  switch (d.dtype()) {
    case DType::F64: reinterpret_cast<double*>(p)[i] = v; break;
    case DType::F32: reinterpret_cast<float*>(p)[i] = static_cast<float>(v); break;
    case DType::F16: reinterpret_cast<uint16_t*>(p)[i] = f32_to_f16(static_cast<float>(v)); break;
    case DType::BF16: reinterpret_cast<uint16_t*>(p)[i] = f32_to_bf16(static_cast<float>(v)); break;
    case DType::Bool: p[i] = v != 0.0 ? 1 : 0; break;
    default: break;
  }
}

void store_i64(TensorData& d, int64_t i, int64_t v) {
  auto* p = static_cast<uint8_t*>(d.raw());
  switch (d.dtype()) {
    case DType::I64: reinterpret_cast<int64_t*>(p)[i] = v; break;
    case DType::I32: reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v); break;
    case DType::I8: reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
    case DType::U8: reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case DType::Bool: p[i] = v != 0 ? 1 : 0; break;
    default: store_f64(d, i, static_cast<double>(v)); break;
  }
}

}  // namespace

// ---- creation --------------------------------------------------------------------------------

// Sampled on the host with our own transforms of mt19937_64 (which the standard fixes bit for
// bit), never std::*_distribution (implementation-defined), so a seed gives the same values on
// every platform. Float dtypes: Default = Uniform(0, 1). Int dtypes: Uniform draws integers in
// [ceil(a), ceil(b)), Default is refused (no natural range); Normal is truncated toward zero. Bool: Default is a fair
// coin, other kinds store value != 0. Bernoulli stores 0/1 in any dtype.
Prim Backend::random(const Shape& shape, const Distribution& dist, DType dtype) {
  using K = Distribution::Kind;
  const double a = dist.a, b = dist.b;
  const bool int_like = !is_float(dtype);
  K kind = dist.kind;
  // An all-zero "random" int tensor (Uniform [0, 1)) would be a silent surprise: ask for bounds.
  if (kind == K::Default && is_int(dtype))
    throw ValueError("random", "Distribution::Default has no range for " + std::string(dtype_name(dtype)) +
                                   "; use Distribution::uniform(low, high)");
  if (kind == K::Default) kind = dtype == DType::Bool ? K::Bernoulli : K::Uniform;
  const double p = dist.kind == K::Default ? 0.5 : a;

  switch (kind) {
    case K::Uniform:
      if (!std::isfinite(a) || !std::isfinite(b) || !(b > a)) {
        throw ValueError("random", dist_text(dist) + ": needs finite bounds with high > low");
      }
      break;
    case K::Normal:
      if (!std::isfinite(a) || !std::isfinite(b) || b < 0) {
        throw ValueError("random", dist_text(dist) + ": needs a finite mean and a finite std >= 0");
      }
      break;
    case K::Bernoulli:
      if (!(p >= 0.0 && p <= 1.0)) {
        throw ValueError("random", dist_text(dist) + ": probability must be in [0, 1]");
      }
      break;
    case K::Default: break;
  }

  int64_t lo = 0, hi = 0;
  if (kind == K::Uniform && int_like) {
    double cl = std::ceil(a), ch = std::ceil(b);
    auto [dmin, dmax] = int_range(dtype == DType::Bool ? DType::I64 : dtype);
    if (!fits_int64(cl) || !fits_int64(ch) || ch <= cl) {
      throw ValueError("random", dist_text(dist) + ": no integer in [low, high) for " + std::string(dtype_name(dtype)));
    }
    lo = static_cast<int64_t>(cl);
    hi = static_cast<int64_t>(ch);
    if (lo < dmin || hi - 1 > dmax) {
      throw ValueError("random", dist_text(dist) + ": integers in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                     ") do not fit " + std::string(dtype_name(dtype)));
    }
  }

  TensorData data(shape, dtype);
  const int64_t n = data.num_elements();
  {
    std::lock_guard<std::mutex> lock(rng_mutex());
    std::mt19937_64& g = rng();
    switch (kind) {
      case K::Uniform:
        if (int_like) {
          const auto range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
          for (int64_t i = 0; i < n; ++i) {
            store_i64(data, i, static_cast<int64_t>(static_cast<uint64_t>(lo) + below(g, range)));
          }
        } else {
          // a + (b - a) * u can round up to b in the target dtype; keep the interval half-open.
          const double top = below_in(dtype, b);
          for (int64_t i = 0; i < n; ++i) {
            double v = round_to(dtype, a + (b - a) * unit(g));
            store_f64(data, i, v >= b ? top : v);
          }
        }
        break;
      case K::Normal:
        // Box-Muller, both outputs of each pair used; u1 in (0, 1] so log(u1) is finite.
        for (int64_t i = 0; i < n; i += 2) {
          double u1 = 1.0 - unit(g), u2 = unit(g);
          double r = std::sqrt(-2.0 * std::log(u1));
          double t = 2.0 * std::numbers::pi * u2;
          store_f64(data, i, a + b * r * std::cos(t));
          if (i + 1 < n) store_f64(data, i + 1, a + b * r * std::sin(t));
        }
        break;
      case K::Bernoulli:
        for (int64_t i = 0; i < n; ++i) store_i64(data, i, unit(g) < p ? 1 : 0);
        break;
      case K::Default: break;
    }
  }
  return from_data(data);
}

Prim Backend::arange(int64_t start, int64_t end, int64_t step, DType dtype) {
  const int64_t n = arange_length(start, end, step, dtype, "arange");
  TensorData data(Shape{n}, dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = static_cast<int64_t>(start + static_cast<__int128>(i) * step);
    if (is_float(dtype))
      store_f64(data, i, static_cast<double>(v));
    else
      store_i64(data, i, v);
  }
  return from_data(data);
}

}  // namespace burn
