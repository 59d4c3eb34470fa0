// The float math of kernels/math*.glsl as the device runs it: a few thousand points per function and
// dtype through the real elementwise kernels (glslang's build of the same text that math_test.cpp
// compiles as C++), judged against libm like the host test. The bounds leave room for what Vulkan
// allows a device beyond IEEE arithmetic (division and sqrt within 2.5 ulp, fused multiply-adds), and
// still catch a kernel that differs from the host build: a literal kept in float precision, a branch
// the driver folds, an error-free transformation the optimiser simplified.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "device_support.hpp"
#include "math_reference.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

using namespace mathref;

using Unary = Prim (VulkanBackend::*)(Prim);
using Binary = Prim (VulkanBackend::*)(Prim, Prim);

struct UnaryCase {
  const char* name;
  Unary op;
  LD (*ref)(LD);
  double lo, hi;  // the dense part of the domain
  double bound;   // ulps on the device (host bound, doubled, plus 2)
};

LD l_exp(LD x) { return std::exp(x); }
LD l_log(LD x) { return std::log(x); }
LD l_log1p(LD x) { return std::log1p(x); }
LD l_sin(LD x) { return std::sin(x); }
LD l_cos(LD x) { return std::cos(x); }
LD l_tan(LD x) { return std::tan(x); }
LD l_sinh(LD x) { return std::sinh(x); }
LD l_cosh(LD x) { return std::cosh(x); }
LD l_tanh(LD x) { return std::tanh(x); }
LD l_asin(LD x) { return std::asin(x); }
LD l_acos(LD x) { return std::acos(x); }
LD l_atan(LD x) { return std::atan(x); }
LD l_erf(LD x) { return std::erf(x); }

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"exp", &VulkanBackend::exp, l_exp, -750, 712, 4},    {"log", &VulkanBackend::log, l_log, 0, 100, 4},
      {"log1p", &VulkanBackend::log1p, l_log1p, -1, 10, 4}, {"sin", &VulkanBackend::sin, l_sin, -20, 20, 4},
      {"cos", &VulkanBackend::cos, l_cos, -20, 20, 4},      {"tan", &VulkanBackend::tan, l_tan, -20, 20, 7},
      {"sinh", &VulkanBackend::sinh, l_sinh, -30, 30, 6},   {"cosh", &VulkanBackend::cosh, l_cosh, -30, 30, 6},
      {"tanh", &VulkanBackend::tanh, l_tanh, -10, 10, 7},   {"asin", &VulkanBackend::asin, l_asin, -1, 1, 4},
      {"acos", &VulkanBackend::acos, l_acos, -1, 1, 4},     {"atan", &VulkanBackend::atan, l_atan, -10, 10, 4},
      {"erf", &VulkanBackend::erf, l_erf, -7, 7, 4},
  };
  return cases;
}

// The inputs of one function: the specials, near-multiples of pi/2, the dense range and random bits.
template <typename T>
std::vector<T> inputs_for(const UnaryCase& c, uint64_t seed) {
  Inputs in(seed);
  std::vector<T> x = special_values<T>();
  const std::vector<T> near = near_pio2_multiples<T>(in, 300, sizeof(T) == 8 ? int64_t{1} << 40 : int64_t{1} << 20);
  x.insert(x.end(), near.begin(), near.end());
  for (int i = 0; i < 2500; ++i) x.push_back(static_cast<T>(in.uniform(c.lo, c.hi)));
  for (int i = 0; i < 1000; ++i) x.push_back(static_cast<T>(in.log_uniform(sizeof(T) == 8 ? -1074 : -149, 8)));
  for (int i = 0; i < 1000; ++i) {
    if constexpr (sizeof(T) == 8)
      x.push_back(in.bits64());
    else
      x.push_back(in.bits32());
  }
  return x;
}

template <typename T>
std::vector<T> run_unary(VulkanBackend& be, Unary op, const std::vector<T>& x) {
  const Prim p = be.from_data(TensorData::from_vector<T>(x, Shape{static_cast<int64_t>(x.size())}));
  return be.into_data((be.*op)(p)).template to_vec<T>();
}

TEST(VulkanMath, UnaryF32OnTheDevice) {
  REQUIRE_VULKAN_BACKEND();
  for (const UnaryCase& c : unary_cases()) {
    const std::vector<float> x = inputs_for<float>(c, 101);
    const std::vector<float> y = run_unary(be, c.op, x);
    Worst w;
    for (size_t i = 0; i < x.size(); ++i) w.note(ulp_error<float>(y[i], c.ref(x[i])), x[i]);
    report((std::string(c.name) + " f32 dev").c_str(), w, c.bound);
  }
}

TEST(VulkanMath, UnaryF64OnTheDevice) {
  REQUIRE_VULKAN_BACKEND();
  if (!ctx->profile().features.float64) GTEST_SKIP() << "the device has no shaderFloat64";
  for (const UnaryCase& c : unary_cases()) {
    const std::vector<double> x = inputs_for<double>(c, 202);
    const std::vector<double> y = run_unary(be, c.op, x);
    Worst w;
    for (size_t i = 0; i < x.size(); ++i) w.note(ulp_error<double>(y[i], c.ref(x[i])), x[i]);
    report((std::string(c.name) + " f64 dev").c_str(), w, c.bound);
  }
}

// f16 computes in f32 and rounds once more when it stores: within an ulp of half precision.
TEST(VulkanMath, UnaryF16OnTheDevice) {
  REQUIRE_VULKAN_BACKEND();
  if (!ctx->profile().features.float16) GTEST_SKIP() << "the device has no shaderFloat16";
  for (const UnaryCase& c : unary_cases()) {
    std::vector<float> x;
    Inputs in(303);
    for (int i = 0; i < 2000; ++i)
      x.push_back(static_cast<float>(in.uniform(std::max(c.lo, -11.0), std::min(c.hi, 11.0))));
    const Prim p = be.cast(be.from_data(TensorData::from_vector<float>(x, Shape{2000})), DType::F16);
    const Prim h = (be.*c.op)(p);
    const std::vector<float> y = be.into_data(be.cast(h, DType::F32)).to_vec<float>();
    const std::vector<float> xh = be.into_data(be.cast(p, DType::F32)).to_vec<float>();
    Worst w;
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = static_cast<double>(c.ref(xh[i]));
      if (!std::isfinite(want) || std::fabs(want) > 65504 || std::fabs(want) < 6.1e-5) continue;  // half's normal range
      const double ulp = std::ldexp(1.0, std::ilogb(want) - 10);
      w.note(std::fabs(y[i] - want) / ulp, xh[i]);
    }
    report((std::string(c.name) + " f16 dev").c_str(), w, 1.0);
  }
}

template <typename T>
void check_binary(VulkanBackend& be, const char* name, Binary op, double (*ref)(T, T), double bound, bool exact) {
  Inputs in(404);
  std::vector<T> a, b;
  const std::vector<T> sp = special_values<T>();
  for (size_t i = 0; i < sp.size(); i += 3)
    for (size_t j = 0; j < sp.size(); j += 5) {
      a.push_back(sp[i]);
      b.push_back(sp[j]);
    }
  for (int i = 0; i < 3000; ++i) {
    const T x = static_cast<T>(in.log_uniform(-20, 20)), y = static_cast<T>(in.uniform(-40, 40));
    a.push_back(x);
    b.push_back(exact ? static_cast<T>(in.log_uniform(-20, 20)) : y);
  }
  const Shape s{static_cast<int64_t>(a.size())};
  const std::vector<T> got = be.into_data((be.*op)(be.from_data(TensorData::from_vector<T>(a, s)),
                                                   be.from_data(TensorData::from_vector<T>(b, s))))
                                 .template to_vec<T>();
  Worst w;
  size_t wrong = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double want = ref(a[i], b[i]);
    if (exact) {
      const bool same =
          std::isnan(want) ? std::isnan(got[i]) : (got[i] == T(want) && std::signbit(got[i]) == std::signbit(want));
      if (!same && wrong++ < 5)
        ADD_FAILURE() << name << "(" << a[i] << ", " << b[i] << ") = " << got[i] << ", want " << want;
      continue;
    }
    w.note(ulp_error<T>(got[i], want), a[i], b[i]);
  }
  if (!exact) report(name, w, bound);
}

template <typename T>
double ref_pow(T x, T y) {
  return static_cast<double>(std::pow(LD(x), LD(y)));
}
template <typename T>
double ref_atan2(T y, T x) {
  return static_cast<double>(std::atan2(LD(y), LD(x)));
}
template <typename T>
double ref_fmod(T a, T b) {
  return std::fmod(double(a), double(b));
}
template <typename T>
double ref_remainder(T a, T b) {
  const T r = static_cast<T>(std::fmod(a, b));
  return (r != 0 && ((r < 0) != (b < 0))) ? double(r + b) : double(r);
}

template <typename T>
void binaries(VulkanBackend& be, const char* suffix) {
  const std::string s = suffix;
  check_binary<T>(be, ("pow" + s).c_str(), &VulkanBackend::powf, ref_pow<T>, 4, false);
  check_binary<T>(be, ("atan2" + s).c_str(), &VulkanBackend::atan2, ref_atan2<T>, 6, false);
  check_binary<T>(be, ("fmod" + s).c_str(), &VulkanBackend::fmod, ref_fmod<T>, 0, true);
  check_binary<T>(be, ("remainder" + s).c_str(), &VulkanBackend::remainder, ref_remainder<T>, 0, true);
}

TEST(VulkanMath, BinaryOnTheDevice) {
  REQUIRE_VULKAN_BACKEND();
  binaries<float>(be, " f32 dev");
  if (ctx->profile().features.float64) binaries<double>(be, " f64 dev");
}

// torch.round: halves to even, including doubles (GLSL's roundEven rounds them toward zero on lavapipe).
TEST(VulkanMath, RoundHalvesToEven) {
  REQUIRE_VULKAN_BACKEND();
  const std::vector<double> x = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, 4503599627370495.5, -0.0, 3.7};
  const std::vector<double> want = {0, 2, 2, -0.0, -2, -2, 0, 4503599627370496.0, -0.0, 4};
  std::vector<float> xf(x.begin(), x.end() - 3);
  std::vector<float> wf(want.begin(), want.end() - 3);
  const auto yf = be.into_data(be.round(be.from_data(TensorData::from_vector<float>(xf, Shape{7})))).to_vec<float>();
  for (size_t i = 0; i < xf.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(yf[i]), std::bit_cast<uint32_t>(wf[i])) << xf[i];
  if (!ctx->profile().features.float64) return;
  const auto y = be.into_data(be.round(be.from_data(TensorData::from_vector<double>(x, Shape{10})))).to_vec<double>();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint64_t>(y[i]), std::bit_cast<uint64_t>(want[i])) << x[i];
}

}  // namespace
}  // namespace burn::vulkan
