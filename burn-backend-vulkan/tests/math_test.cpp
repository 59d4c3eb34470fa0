// The kernel dialect's float math (kernels/math.glsl, kernels/math_f64.glsl) compiled as C++ through
// glsl_shim.hpp and measured against glibc's libm without a device: every b_* function on about a
// million points (special values, dense ranges of its domain, near-multiples of pi/2, random bit
// patterns; seeded), its largest error in ulps asserted below a bound per function. f64 results are
// judged against the long double functions, f32 results against the double ones, so the reference is
// correctly rounded but for rare ties. README.md lists the measured maxima (this test prints them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "glsl_shim.hpp"
#include "math_reference.hpp"

// f32 code that computed in double (an unsuffixed literal, a double builtin) would be a float
// computation in GLSL and a double one here: the conversions are errors in the kernel text.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wdouble-promotion"
#pragma GCC diagnostic error "-Wfloat-conversion"
namespace burn::vulkan::glsl {
#define HAS_F64 1
#include "math.glsl"
#include "math_f64.glsl"
#undef HAS_F64
}  // namespace burn::vulkan::glsl
#pragma GCC diagnostic pop

namespace {

namespace g = burn::vulkan::glsl;
using namespace burn::vulkan::mathref;

// ---- f64 ----
using F64 = double (*)(double);
using Ref64 = LD (*)(LD);

struct Domain {
  std::function<double(Inputs&)> gen;
  size_t n;
};

void check_unary64(const char* name, F64 f, Ref64 ref, double bound, std::vector<Domain> domains,
                   std::vector<double> extra = {}) {
  Inputs in(std::hash<std::string>{}(name) ^ 0x5eed);
  Worst w;
  auto one = [&](double x) { w.note(ulp_error<double>(f(x), ref(x)), x); };
  for (double x : special_values<double>()) one(x);
  for (double x : extra) one(x);
  for (size_t i = 0; i < 100000; ++i) one(in.bits64());
  for (const Domain& d : domains)
    for (size_t i = 0; i < d.n; ++i) one(d.gen(in));
  report(name, w, bound);
}

LD ref_exp(LD x) { return std::exp(x); }
LD ref_expm1(LD x) { return std::expm1(x); }
LD ref_log(LD x) { return std::log(x); }
LD ref_log1p(LD x) { return std::log1p(x); }
LD ref_sin(LD x) { return std::sin(x); }
LD ref_cos(LD x) { return std::cos(x); }
LD ref_tan(LD x) { return std::tan(x); }
LD ref_sinh(LD x) { return std::sinh(x); }
LD ref_cosh(LD x) { return std::cosh(x); }
LD ref_tanh(LD x) { return std::tanh(x); }
LD ref_asin(LD x) { return std::asin(x); }
LD ref_acos(LD x) { return std::acos(x); }
LD ref_atan(LD x) { return std::atan(x); }
LD ref_erf(LD x) { return std::erf(x); }

Domain uni(double a, double b, size_t n = 150000) {
  return {[a, b](Inputs& in) { return in.uniform(a, b); }, n};
}
Domain logu(int lo, int hi, size_t n = 150000, bool sign = true) {
  return {[lo, hi, sign](Inputs& in) { return in.log_uniform(lo, hi, sign); }, n};
}

TEST(MathF64, Exp) {
  check_unary64("exp", g::b_exp, ref_exp, 1.0, {uni(-746, 710), uni(-1, 1), logu(-1074, 10)});
  check_unary64("expm1", g::b_expm1, ref_expm1, 1.5, {uni(-40, 710), uni(-2, 2), logu(-1074, 6)});
}

TEST(MathF64, Log) {
  check_unary64("log", g::b_log, ref_log, 1.0, {logu(-1074, 1024, 200000, false), uni(0.5, 2), uni(0.9, 1.1)});
  check_unary64("log1p", g::b_log1p, ref_log1p, 1.0,
                {uni(-1, 1), logu(-1074, 1024, 200000, false), logu(-60, 0), uni(-0.4, 0.5)});
}

TEST(MathF64, Trig) {
  Inputs in(7);
  const std::vector<double> near = near_pio2_multiples<double>(in, 50000, int64_t{1} << 20);
  const std::vector<double> near_big = near_pio2_multiples<double>(in, 20000, int64_t{1} << 60);
  std::vector<double> extra = near;
  extra.insert(extra.end(), near_big.begin(), near_big.end());
  check_unary64("sin", g::b_sin, ref_sin, 1.0, {uni(-10, 10), uni(-2e6, 2e6, 100000), logu(-1074, 1024, 100000)},
                extra);
  check_unary64("cos", g::b_cos, ref_cos, 1.0, {uni(-10, 10), uni(-2e6, 2e6, 100000), logu(-1074, 1024, 100000)},
                extra);
  check_unary64("tan", g::b_tan, ref_tan, 2.5, {uni(-10, 10), uni(-2e6, 2e6, 100000), logu(-1074, 1024, 100000)},
                extra);
}

TEST(MathF64, Hyperbolic) {
  check_unary64("sinh", g::b_sinh, ref_sinh, 1.5, {uni(-25, 25), uni(-712, 712), logu(-1074, 4)});
  check_unary64("cosh", g::b_cosh, ref_cosh, 1.5, {uni(-25, 25), uni(-712, 712), logu(-1074, 4)});
  check_unary64("tanh", g::b_tanh, ref_tanh, 1.75, {uni(-25, 25), uni(-2, 2), logu(-1074, 5)});
}

TEST(MathF64, InverseTrig) {
  check_unary64("asin", g::b_asin, ref_asin, 1.0, {uni(-1, 1, 300000), logu(-1074, 0)});
  check_unary64("acos", g::b_acos, ref_acos, 1.0, {uni(-1, 1, 300000), logu(-1074, 0)});
  check_unary64("atan", g::b_atan, ref_atan, 1.0, {uni(-4, 4, 300000), logu(-1074, 1024)});
}

TEST(MathF64, Erf) { check_unary64("erf", g::b_erf, ref_erf, 1.0, {uni(-7, 7, 400000), logu(-1074, 3)}); }

// Pairs: random bit patterns, the specials against each other, and the domains given.
using Pair = std::pair<double, double>;
void check_binary64(const char* name, double (*f)(double, double), std::function<LD(double, double)> ref, double bound,
                    std::vector<std::function<Pair(Inputs&)>> domains, size_t n) {
  Inputs in(std::hash<std::string>{}(name) ^ 0xb1a5);
  Worst w;
  auto one = [&](double x, double y) { w.note(ulp_error<double>(f(x, y), ref(x, y)), x, y); };
  const std::vector<double> sp = special_values<double>();
  for (double x : sp)
    for (double y : sp) one(x, y);
  for (size_t i = 0; i < 100000; ++i) one(in.bits64(), in.bits64());
  for (const auto& d : domains)
    for (size_t i = 0; i < n; ++i) {
      const Pair p = d(in);
      one(p.first, p.second);
    }
  report(name, w, bound);
}

TEST(MathF64, Atan2) {
  check_binary64(
      "atan2", g::b_atan2, [](double y, double x) { return std::atan2(LD(y), LD(x)); }, 1.25,
      {[](Inputs& in) {
         return Pair{in.uniform(-4, 4), in.uniform(-4, 4)};
       },
       [](Inputs& in) {
         return Pair{in.log_uniform(-1074, 1024), in.log_uniform(-1074, 1024)};
       },
       [](Inputs& in) {
         return Pair{in.log_uniform(-10, 10), in.log_uniform(-10, 10)};
       }},
      150000);
}

TEST(MathF64, Pow) {
  check_binary64(
      "pow", g::b_pow, [](double x, double y) { return std::pow(LD(x), LD(y)); }, 1.25,
      {[](Inputs& in) {
         return Pair{in.log_uniform(-1074, 1024, false), in.uniform(-2, 2)};
       },
       [](Inputs& in) {
         return Pair{in.uniform(0, 3), in.uniform(-300, 300)};
       },
       // near 1 with huge exponents: y log x stays finite
       [](Inputs& in) {
         return Pair{1.0 + std::ldexp(double(in.integer(-1000, 1000)), -52), in.log_uniform(40, 62)};
       },
       // negative bases with integer exponents
       [](Inputs& in) {
         return Pair{-in.log_uniform(-20, 20, false), double(in.integer(-60, 60))};
       },
       // results across the whole range, up to overflow and into subnormals
       [](Inputs& in) {
         const double x = in.log_uniform(-30, 30, false);
         return Pair{x, in.uniform(-750, 712) / std::log(x)};
       }},
      150000);
}

// fmod and remainder are exact: the same double as C's fmod (and PyTorch's remainder built on it).
TEST(MathF64, FmodRemainderExact) {
  Inputs in(11);
  size_t n = 0, wrong = 0;
  auto one = [&](double a, double b) {
    ++n;
    const double want = std::fmod(a, b);
    double want_rem = want;
    if (want != 0 && ((want < 0) != (b < 0))) want_rem = want + b;
    const double got = g::b_fmod(a, b), got_rem = g::b_remainder(a, b);
    const bool ok =
        (std::isnan(want) ? std::isnan(got) : std::bit_cast<uint64_t>(got) == std::bit_cast<uint64_t>(want)) &&
        (std::isnan(want_rem) ? std::isnan(got_rem)
                              : std::bit_cast<uint64_t>(got_rem) == std::bit_cast<uint64_t>(want_rem));
    if (!ok && wrong++ < 5)
      ADD_FAILURE() << "fmod/remainder(" << a << ", " << b << ") = " << got << ", " << got_rem << " want " << want
                    << ", " << want_rem;
  };
  const std::vector<double> sp = special_values<double>();
  for (double a : sp)
    for (double b : sp) one(a, b);
  for (int i = 0; i < 100000; ++i) one(in.bits64(), in.bits64());
  for (int i = 0; i < 100000; ++i) one(in.log_uniform(-1074, 1024), in.log_uniform(-1074, 1024));
  for (int i = 0; i < 100000; ++i) one(in.uniform(-100, 100), in.uniform(-10, 10));
  for (int i = 0; i < 50000; ++i) one(double(in.integer(-1000, 1000)), double(in.integer(-20, 20)));
  std::printf("[ ulp      ] fmod/remainder %zu points, %zu not exact\n", n, wrong);
  EXPECT_EQ(wrong, 0u);
}

// torch.round: halves to even, bit for bit as nearbyint in the default rounding mode.
TEST(MathF64, RoundHalvesToEven) {
  Inputs in(19);
  size_t wrong = 0;
  auto one = [&](double x) {
    const double want = std::nearbyint(x), got = g::b_round(x);
    const bool ok = std::isnan(want) ? std::isnan(got) : std::bit_cast<uint64_t>(got) == std::bit_cast<uint64_t>(want);
    if (!ok && wrong++ < 5) ADD_FAILURE() << "round(" << x << ") = " << got << ", want " << want;
    const float xf = static_cast<float>(x);
    const float wantf = std::nearbyint(xf), gotf = g::b_round(xf);
    const bool okf =
        std::isnan(wantf) ? std::isnan(gotf) : std::bit_cast<uint32_t>(gotf) == std::bit_cast<uint32_t>(wantf);
    if (!okf && wrong++ < 5) ADD_FAILURE() << "round(" << xf << "f) = " << gotf << ", want " << wantf;
  };
  for (double x : special_values<double>()) one(x);
  for (int i = 0; i < 100000; ++i) one(double(in.integer(-1000000, 1000000)) + 0.5);
  for (int i = 0; i < 100000; ++i) one(in.log_uniform(-30, 60));
  for (int i = 0; i < 100000; ++i) one(in.bits64());
  EXPECT_EQ(wrong, 0u);
}

// ---- f32 ----
using F32 = float (*)(float);
using Ref32 = double (*)(double);

void check_unary32(const char* name, F32 f, Ref32 ref, double bound, std::vector<std::function<float(Inputs&)>> domains,
                   size_t n, std::vector<float> extra = {}) {
  Inputs in(std::hash<std::string>{}(name) ^ 0xf32);
  Worst w;
  auto one = [&](float x) { w.note(ulp_error<float>(f(x), ref(x)), x); };
  for (float x : special_values<float>()) one(x);
  for (float x : extra) one(x);
  for (size_t i = 0; i < 100000; ++i) one(in.bits32());
  for (const auto& d : domains)
    for (size_t i = 0; i < n; ++i) one(d(in));
  report(name, w, bound);
}

std::function<float(Inputs&)> funi(double a, double b) {
  return [a, b](Inputs& in) { return static_cast<float>(in.uniform(a, b)); };
}
std::function<float(Inputs&)> flogu(int lo, int hi, bool sign = true) {
  return [lo, hi, sign](Inputs& in) { return static_cast<float>(in.log_uniform(lo, hi, sign)); };
}

double d_exp(double x) { return std::exp(x); }
double d_expm1(double x) { return std::expm1(x); }
double d_log(double x) { return std::log(x); }
double d_log1p(double x) { return std::log1p(x); }
double d_sin(double x) { return std::sin(x); }
double d_cos(double x) { return std::cos(x); }
double d_tan(double x) { return std::tan(x); }
double d_sinh(double x) { return std::sinh(x); }
double d_cosh(double x) { return std::cosh(x); }
double d_tanh(double x) { return std::tanh(x); }
double d_asin(double x) { return std::asin(x); }
double d_acos(double x) { return std::acos(x); }
double d_atan(double x) { return std::atan(x); }
double d_erf(double x) { return std::erf(x); }

TEST(MathF32, ExpLog) {
  check_unary32("exp f32", g::b_exp, d_exp, 1.0, {funi(-104, 89), funi(-1, 1), flogu(-149, 7)}, 150000);
  check_unary32("expm1 f32", g::b_expm1, d_expm1, 1.0, {funi(-18, 89), funi(-2, 2), flogu(-149, 5)}, 150000);
  check_unary32("log f32", g::b_log, d_log, 1.0, {flogu(-149, 128, false), funi(0.5, 2), funi(0.9, 1.1)}, 150000);
  check_unary32("log1p f32", g::b_log1p, d_log1p, 1.0, {funi(-1, 1), flogu(-149, 128, false), flogu(-30, 0)}, 150000);
}

TEST(MathF32, Trig) {
  Inputs in(13);
  std::vector<float> extra = near_pio2_multiples<float>(in, 50000, 1 << 16);
  const std::vector<float> big = near_pio2_multiples<float>(in, 20000, int64_t{1} << 40);
  extra.insert(extra.end(), big.begin(), big.end());
  const std::vector<std::function<float(Inputs&)>> domains = {funi(-10, 10), funi(-300, 300), flogu(-149, 128)};
  check_unary32("sin f32", g::b_sin, d_sin, 1.0, domains, 150000, extra);
  check_unary32("cos f32", g::b_cos, d_cos, 1.0, domains, 150000, extra);
  check_unary32("tan f32", g::b_tan, d_tan, 2.5, domains, 150000, extra);
}

TEST(MathF32, HyperbolicInverseErf) {
  check_unary32("sinh f32", g::b_sinh, d_sinh, 1.5, {funi(-10, 10), funi(-90, 90), flogu(-149, 3)}, 150000);
  check_unary32("cosh f32", g::b_cosh, d_cosh, 1.5, {funi(-10, 10), funi(-90, 90), flogu(-149, 3)}, 150000);
  check_unary32("tanh f32", g::b_tanh, d_tanh, 1.75, {funi(-10, 10), funi(-2, 2), flogu(-149, 4)}, 150000);
  check_unary32("asin f32", g::b_asin, d_asin, 1.0, {funi(-1, 1), flogu(-149, 0)}, 200000);
  check_unary32("acos f32", g::b_acos, d_acos, 1.0, {funi(-1, 1), flogu(-149, 0)}, 200000);
  check_unary32("atan f32", g::b_atan, d_atan, 1.0, {funi(-4, 4), flogu(-149, 128)}, 200000);
  check_unary32("erf f32", g::b_erf, d_erf, 1.25, {funi(-5, 5), flogu(-149, 2)}, 200000);
}

using PairF = std::pair<float, float>;
void check_binary32(const char* name, float (*f)(float, float), double (*ref)(double, double), double bound,
                    std::vector<std::function<PairF(Inputs&)>> domains, size_t n) {
  Inputs in(std::hash<std::string>{}(name) ^ 0xf32b);
  Worst w;
  auto one = [&](float x, float y) { w.note(ulp_error<float>(f(x, y), ref(x, y)), x, y); };
  const std::vector<float> sp = special_values<float>();
  for (float x : sp)
    for (float y : sp) one(x, y);
  for (size_t i = 0; i < 100000; ++i) one(in.bits32(), in.bits32());
  for (const auto& d : domains)
    for (size_t i = 0; i < n; ++i) {
      const PairF p = d(in);
      one(p.first, p.second);
    }
  report(name, w, bound);
}

double d_atan2(double y, double x) { return std::atan2(y, x); }
double d_pow(double x, double y) { return std::pow(x, y); }

TEST(MathF32, Atan2Pow) {
  check_binary32("atan2 f32", g::b_atan2, d_atan2, 1.5,
                 {[](Inputs& in) {
                    return PairF{float(in.uniform(-4, 4)), float(in.uniform(-4, 4))};
                  },
                  [](Inputs& in) {
                    return PairF{float(in.log_uniform(-149, 128)), float(in.log_uniform(-149, 128))};
                  }},
                 200000);
  check_binary32("pow f32", g::b_pow, d_pow, 1.0,
                 {[](Inputs& in) {
                    return PairF{float(in.log_uniform(-149, 128, false)), float(in.uniform(-2, 2))};
                  },
                  [](Inputs& in) {
                    return PairF{float(in.uniform(0, 3)), float(in.uniform(-40, 40))};
                  },
                  [](Inputs& in) {
                    return PairF{1.0f + std::ldexp(float(in.integer(-100, 100)), -23), float(in.log_uniform(15, 31))};
                  },
                  [](Inputs& in) {
                    return PairF{-float(in.log_uniform(-10, 10, false)), float(in.integer(-30, 30))};
                  },
                  [](Inputs& in) {
                    const float x = float(in.log_uniform(-20, 20, false));
                    return PairF{x, float(in.uniform(-104, 89) / std::log(double(x)))};
                  }},
                 150000);
}

TEST(MathF32, FmodRemainderExact) {
  Inputs in(17);
  size_t n = 0, wrong = 0;
  auto one = [&](float a, float b) {
    ++n;
    const float want = std::fmod(a, b);
    float want_rem = want;
    if (want != 0 && ((want < 0) != (b < 0))) want_rem = want + b;
    const float got = g::b_fmod(a, b), got_rem = g::b_remainder(a, b);
    const bool ok =
        (std::isnan(want) ? std::isnan(got) : std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(want)) &&
        (std::isnan(want_rem) ? std::isnan(got_rem)
                              : std::bit_cast<uint32_t>(got_rem) == std::bit_cast<uint32_t>(want_rem));
    if (!ok && wrong++ < 5)
      ADD_FAILURE() << "fmod/remainder(" << a << ", " << b << ") = " << got << ", " << got_rem << " want " << want
                    << ", " << want_rem;
  };
  const std::vector<float> sp = special_values<float>();
  for (float a : sp)
    for (float b : sp) one(a, b);
  for (int i = 0; i < 100000; ++i) one(in.bits32(), in.bits32());
  for (int i = 0; i < 100000; ++i) one(float(in.log_uniform(-149, 128)), float(in.log_uniform(-149, 128)));
  for (int i = 0; i < 100000; ++i) one(float(in.uniform(-100, 100)), float(in.uniform(-10, 10)));
  std::printf("[ ulp      ] fmod/remainder f32 %zu points, %zu not exact\n", n, wrong);
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
