// Reference checks of the kernel dialect's float math, shared by the host test (math_test.cpp, the math
// compiled as C++) and the device test (math_device_test.cpp, the same math through the Vulkan kernels):
// ulp errors against a more precise libm result, and seeded input generators.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace burn::vulkan::mathref {

using LD = long double;

inline constexpr double kFail = std::numeric_limits<double>::infinity();

// The error of `got` against the more precise `ref` in ulps of T (the ulp of the exact result's
// binade, subnormals counted in the smallest normal's). Special results must match exactly: NaN for
// NaN, an infinity of the same sign, a zero of the same sign where the exact result is a zero.
template <typename T>
double ulp_error(T got, LD ref) {
  using L = std::numeric_limits<T>;
  if (std::isnan(ref)) return std::isnan(got) ? 0 : kFail;
  if (std::isnan(got)) return kFail;
  if (ref == 0) return (got == 0 && std::signbit(got) == std::signbit(ref)) ? 0 : kFail;
  const T ref_t = static_cast<T>(ref);
  if (std::isinf(ref_t) && std::isinf(got)) return got == ref_t ? 0 : kFail;
  // Past the largest finite value, an infinity counts as the next power of two.
  const LD big = std::ldexp(LD(1), L::max_exponent);
  const LD got_l = std::isinf(got) ? std::copysign(big, LD(got)) : LD(got);
  const int e = std::max(std::ilogb(ref), L::min_exponent - 1);
  const LD ulp = std::ldexp(LD(1), e - (L::digits - 1));
  return static_cast<double>(std::fabs(got_l - std::min(std::max(ref, -big), big)) / ulp);
}

struct Worst {
  double ulp = 0;
  double x = 0, y = 0;
  size_t points = 0;
  void note(double err, double a, double b = 0) {
    ++points;
    if (err > ulp || std::isnan(err)) {
      ulp = err;
      x = a;
      y = b;
    }
  }
};

inline void report(const char* name, const Worst& w, double bound) {
  std::printf("[ ulp      ] %-12s %9zu points  max %.3f ulp  at (%.17g, %.17g)\n", name, w.points, w.ulp, w.x, w.y);
  EXPECT_LE(w.ulp, bound) << name << " at (" << w.x << ", " << w.y << ") over " << w.points << " points";
}

// ---- input generators (seeded: every run checks the same points) ----
class Inputs {
 public:
  explicit Inputs(uint64_t seed) : rng_(seed) {}
  double bits64() { return std::bit_cast<double>(rng_()); }
  float bits32() { return std::bit_cast<float>(static_cast<uint32_t>(rng_())); }
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }
  // |x| log-uniform over [2^lo, 2^hi) with a random mantissa and sign (positive when !sign).
  double log_uniform(int lo, int hi, bool sign = true) {
    const int e = std::uniform_int_distribution<int>(lo, hi - 1)(rng_);
    const double m = 1.0 + uniform(0.0, 1.0);
    const double v = std::ldexp(m, e);
    return sign && (rng_() & 1) ? -v : v;
  }
  int64_t integer(int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng_); }
  bool coin() { return (rng_() & 1) != 0; }

 private:
  std::mt19937_64 rng_;
};

template <typename T>
std::vector<T> special_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0),
                      T(1),
                      T(2),
                      T(0.5),
                      T(3),
                      T(10),
                      L::min(),
                      L::denorm_min(),
                      L::max(),
                      L::epsilon(),
                      L::infinity(),
                      L::quiet_NaN(),
                      T(0.84375),
                      T(1.25),
                      T(2.5),
                      T(4),
                      T(6),
                      T(0.4375),
                      T(0.6875),
                      T(1.1875),
                      T(2.4375),
                      T(22),
                      T(9),
                      T(88.72),
                      T(709.78),
                      T(710),
                      T(745.13),
                      T(746),
                      T(89.5),
                      T(104),
                      T(0.34657359027997264),
                      T(0.7853981633974483),
                      T(1.5707963267948966),
                      T(3.141592653589793),
                      T(1e-30),
                      T(1e22),
                      T(1e30),
                      T(0.29289321881345248),
                      T(0.41421356237309503),
                      T(1.4142135623730951),
                      T(200),
                      T(1647099.3291652855),
                      T(65536),
                      T(1e-8),
                      T(3e-8),
                      T(7.450580596923828e-09)};
  if constexpr (sizeof(T) == 8) {
    v.push_back(1e-300);
    v.push_back(1e300);
  }
  std::vector<T> out;
  for (T x : v) {
    for (T y : {x, std::nextafter(x, T(0)), std::nextafter(x, L::infinity())}) {
      out.push_back(y);
      out.push_back(-y);
    }
  }
  return out;
}

// Doubles and floats close to multiples of pi/2, the hard cases of argument reduction, and the
// closest ones known (6381956970095103 * 2^797 for double, 16367173 * 2^72 for float).
template <typename T>
std::vector<T> near_pio2_multiples(Inputs& in, size_t n, int64_t kmax) {
  std::vector<T> out;
  if constexpr (sizeof(T) == 8)
    out.push_back(std::ldexp(6381956970095103.0, 797));
  else
    out.push_back(std::ldexp(16367173.0f, 72));
  const LD pio2 = 1.570796326794896619231321691639751442L;
  for (size_t i = 0; i < n; ++i) {
    const T x = static_cast<T>(LD(in.integer(1, kmax)) * pio2);
    out.push_back(in.coin() ? x : std::nextafter(x, T(0)));
  }
  return out;
}

}  // namespace burn::vulkan::mathref
