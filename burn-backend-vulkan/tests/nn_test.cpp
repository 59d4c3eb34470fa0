// The module ops on the Vulkan device against the cpu plugin: softmax and log_softmax, conv (1-3-D, groups,
// strides, padding, dilation, bias, backward, transposed; both GEMM kernels), pools, norms, interpolation
// and attention, in f32 and f64 (where the device has it) and f16 (against f32 on the same values), with
// views as inputs, several workgroups, empty tensors and faults. The backends' ops are called directly
// with the normalised options the tensor API would pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "device_support.hpp"
#include "runtime/instance.hpp"
#include "runtime/kernel_sources.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

// A second Vulkan backend on a context whose profile asks for the other GEMM shape than the best device's
// (so both conv paths run on any device), made once.
VulkanBackend* other_gemm_backend() {
  static std::unique_ptr<VulkanBackend> b = [] {
    auto inst = instance_or_null();
    DeviceProfile p = inst->choose("");
    p.features.shared_memory_gemm = !device_and_cpu()->ctx->profile().features.shared_memory_gemm;
    return std::make_unique<VulkanBackend>(Context::create(inst, p), "vulkan");
  }();
  return b.get();
}
std::vector<DType> float_dtypes() {
  std::vector<DType> out;
  for (DType d : {DType::F32, DType::F64, DType::F16})
    if (device_has(d)) out.push_back(d);
  return out;
}

// Float dtypes for kernels that call exp or log: f64 only once the dialect has its double versions
// (kernels/math_f64.glsl, written by the float-math work); until then f64 softmax and attention would not
// compile, so they are left out (with a note) rather than failed.
std::vector<DType> exp_dtypes() {
  static const bool f64_math = kernel_source("math_f64").find("double b_exp(double") != std::string_view::npos;
  std::vector<DType> out;
  for (DType d : float_dtypes())
    if (d != DType::F64 || f64_math) out.push_back(d);
  if (!f64_math && device_has(DType::F64))
    std::fprintf(stderr, "note: f64 left out: kernels/math_f64.glsl has no b_exp yet\n");
  return out;
}

// Seeded values in [lo, hi]; f16 data holds multiples of 1/64 (exact in f16, so the cpu's f32 result on
// the same values is the reference).
TensorData random_data(const Shape& shape, DType d, uint32_t seed, double lo = -2.0, double hi = 2.0) {
  std::mt19937_64 rng(seed);
  const size_t n = static_cast<size_t>(shape.num_elements());
  std::vector<double> v(n);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (auto& x : v) x = d == DType::F16 ? std::round(dist(rng) * 64.0) / 64.0 : dist(rng);
  return TensorData::from_vector(v, shape).convert(d);
}

// The dtype the cpu computes a dtype's reference in (f16: f32 on the same values).
DType ref_dtype(DType d) { return d == DType::F16 ? DType::F32 : d; }

Prim up(Backend& b, const TensorData& t) { return b.from_data(t.dtype() == DType::F16 ? t.convert(DType::F32) : t); }
Prim on(Backend& b, const TensorData& t) { return b.from_data(t); }

// Tolerances per dtype: f16 rounds the result once (and its sums run in f32 over f16 values).
struct Tol {
  double f32 = 1e-5, f64 = 1e-12, f16 = 4e-3;
  double of(DType d) const { return d == DType::F64 ? f64 : d == DType::F16 ? f16 : f32; }
};

// got (device) against want (cpu), both readable: same shape, values within rtol = atol = tol(dtype).
void expect_close(const Prim& got, Backend& gb, const Prim& want, Backend& wb, DType d, const std::string& what,
                  Tol tol = {}) {
  ASSERT_TRUE(got) << what << ": no result";
  ASSERT_TRUE(want) << what << ": no reference";
  const TensorData g = gb.into_data(got);
  const TensorData w = wb.into_data(want);
  ASSERT_EQ(g.dtype(), d) << what;
  ASSERT_EQ(g.shape(), w.shape()) << what;
  const double t = tol.of(d);
  const ApproxReport r = g.convert(DType::F64).compare_approx(w.convert(DType::F64), t, t);
  EXPECT_TRUE(r.ok) << what << " (" << dtype_name(d) << "): " << r.message;
}

std::string dims(const std::vector<int64_t>& v) { return Shape(v).to_string(); }

// ---------------------------------------------------------------------------------------------- softmax

TEST(VulkanNn, SoftmaxAndLogSoftmaxOverEveryDimMatchTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  // Short and long rows (lanes and workgroup rows), a dim in the middle, one of size 1, and many rows.
  const std::vector<Shape> shapes = {Shape{3, 5},    Shape{2, 300},    Shape{4, 7, 3}, Shape{2, 1, 6},
                                     Shape{1000, 9}, Shape{3, 129, 2}, Shape{5}};
  for (DType d : exp_dtypes())
    for (const Shape& s : shapes)
      for (size_t dim = 0; dim < s.rank(); ++dim)
        for (bool log : {false, true}) {
          const TensorData x = random_data(s, d, 7 + static_cast<uint32_t>(dim), -6, 6);
          Prim got = log ? vk.log_softmax(on(vk, x), dim) : vk.softmax(on(vk, x), dim);
          Prim want = log ? cpu.log_softmax(up(cpu, x), dim) : cpu.softmax(up(cpu, x), dim);
          expect_close(
              got, vk, want, cpu, d,
              std::string(log ? "log_softmax" : "softmax") + " " + s.to_string() + " dim " + std::to_string(dim));
        }
}

TEST(VulkanNn, SoftmaxOfAMaskedRowIsNaNAndOfAViewReadsThroughIt) {
  REQUIRE_DEVICE_AND_CPU();
  const double inf = std::numeric_limits<double>::infinity();
  for (size_t n : {4u, 200u}) {
    std::vector<double> v(2 * n, -inf);
    for (size_t j = 0; j < n; ++j) v[n + j] = static_cast<double>(j % 5);
    const TensorData x = TensorData::from_vector(v, Shape{2, static_cast<int64_t>(n)}).convert(DType::F32);
    for (bool log : {false, true}) {
      const TensorData g = vk.into_data(log ? vk.log_softmax(on(vk, x), 1) : vk.softmax(on(vk, x), 1));
      const TensorData w = cpu.into_data(log ? cpu.log_softmax(on(cpu, x), 1) : cpu.softmax(on(cpu, x), 1));
      const std::vector<float> gv = g.to_vec<float>(), wv = w.to_vec<float>();
      for (size_t j = 0; j < n; ++j) {
        EXPECT_TRUE(std::isnan(gv[j])) << "masked row, n " << n;
        EXPECT_TRUE(std::isnan(wv[j]));
        EXPECT_NEAR(gv[n + j], wv[n + j], 1e-5) << "n " << n << " j " << j;
      }
    }
  }
  // A NaN anywhere in a row makes it NaN; a permuted view is read through its strides.
  const TensorData x = random_data(Shape{6, 150}, DType::F32, 3);
  Prim got = vk.softmax(vk.permute(on(vk, x), {1, 0}), 0);
  Prim want = cpu.softmax(cpu.permute(on(cpu, x), {1, 0}), 0);
  expect_close(got, vk, want, cpu, DType::F32, "softmax of a transposed view");
  std::vector<float> nan_row(150, 1.0f);
  nan_row[77] = std::numeric_limits<float>::quiet_NaN();
  const TensorData y = vk.into_data(vk.softmax(vk.from_data(TensorData::from_vector(nan_row, Shape{1, 150})), 1));
  for (float v : y.to_vec<float>()) EXPECT_TRUE(std::isnan(v));
  // Empty tensors give empty results.
  EXPECT_EQ(vk.into_data(vk.softmax(vk.empty(Shape{0, 4}, DType::F32), 1)).shape(), (Shape{0, 4}));
  EXPECT_EQ(vk.into_data(vk.log_softmax(vk.empty(Shape{3, 0}, DType::F32), 1)).shape(), (Shape{3, 0}));
}

// ------------------------------------------------------------------------------------------------ norms

// Each entry of got against want (both null, or both close).
void expect_prims(const Prims& got, Backend& gb, const Prims& want, Backend& wb, DType d, const std::string& what,
                  Tol tol = {}) {
  ASSERT_EQ(got.size() >= want.size() ? want.size() : got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string w = what + " [" + std::to_string(i) + "]";
    if (!want[i]) {
      EXPECT_TRUE(i >= got.size() || !got[i]) << w << ": expected null";
      continue;
    }
    ASSERT_LT(i, got.size()) << w;
    expect_close(got[i], gb, want[i], wb, d, w, tol);
  }
}

// An optional parameter of `shape` on both backends (null when !present).
struct Param {
  TensorData data;
  bool present;
  Prim on_vk(Backend& b) const { return present ? on(b, data) : nullptr; }
  Prim on_cpu(Backend& b) const { return present ? up(b, data) : nullptr; }
};
Param param(const Shape& s, DType d, uint32_t seed, bool present, double lo = -1.5, double hi = 1.5) {
  return {random_data(s, d, seed, lo, hi), present};
}

const Tol kBackwardTol{1e-4, 1e-10, 2e-2};

TEST(VulkanNn, LayerAndRmsNormForwardAndBackwardMatchTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  struct Case {
    Shape shape;
    size_t nd;
  };
  // Short rows (an invocation each), long ones (a workgroup each), several trailing dims.
  const std::vector<Case> cases = {
      {Shape{4, 6}, 1}, {Shape{2, 3, 200}, 1}, {Shape{2, 3, 4}, 2}, {Shape{3, 130}, 2}, {Shape{50, 9}, 1}};
  for (DType d : float_dtypes())
    for (const Case& c : cases)
      for (int affine = 0; affine < 3; ++affine) {
        const Shape ws(std::vector<int64_t>(c.shape.end() - static_cast<std::ptrdiff_t>(c.nd), c.shape.end()));
        const TensorData x = random_data(c.shape, d, 11, -3, 3);
        const TensorData g = random_data(c.shape, d, 12);
        const Param w = param(ws, d, 13, affine > 0), b = param(ws, d, 14, affine > 1);
        const std::string what =
            c.shape.to_string() + " nd " + std::to_string(c.nd) + " affine " + std::to_string(affine);
        expect_close(vk.layer_norm(on(vk, x), w.on_vk(vk), b.on_vk(vk), c.nd, 1e-5), vk,
                     cpu.layer_norm(up(cpu, x), w.on_cpu(cpu), b.on_cpu(cpu), c.nd, 1e-5), cpu, d,
                     "layer_norm " + what);
        expect_close(vk.rms_norm(on(vk, x), w.on_vk(vk), c.nd, 1e-6), vk,
                     cpu.rms_norm(up(cpu, x), w.on_cpu(cpu), c.nd, 1e-6), cpu, d, "rms_norm " + what);
        expect_prims(vk.layer_norm_backward(on(vk, x), w.on_vk(vk), on(vk, g), c.nd, 1e-5), vk,
                     cpu.layer_norm_backward(up(cpu, x), w.on_cpu(cpu), up(cpu, g), c.nd, 1e-5), cpu, d,
                     "layer_norm_backward " + what, kBackwardTol);
        expect_prims(vk.rms_norm_backward(on(vk, x), w.on_vk(vk), on(vk, g), c.nd, 1e-6), vk,
                     cpu.rms_norm_backward(up(cpu, x), w.on_cpu(cpu), up(cpu, g), c.nd, 1e-6), cpu, d,
                     "rms_norm_backward " + what, kBackwardTol);
      }
}

TEST(VulkanNn, GroupNormForwardAndBackwardMatchTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  struct Case {
    Shape shape;
    int64_t groups;
  };
  const std::vector<Case> cases = {
      {Shape{2, 6, 5}, 3}, {Shape{2, 4, 8, 9}, 2}, {Shape{3, 4}, 4}, {Shape{1, 6, 3, 2, 2}, 1}, {Shape{2, 8, 40}, 8}};
  for (DType d : float_dtypes())
    for (const Case& c : cases)
      for (bool affine : {false, true}) {
        const Shape cs{c.shape[1]};
        const TensorData x = random_data(c.shape, d, 21, -3, 3);
        const TensorData g = random_data(c.shape, d, 22);
        const Param w = param(cs, d, 23, affine), b = param(cs, d, 24, affine);
        const std::string what = c.shape.to_string() + " groups " + std::to_string(c.groups);
        expect_close(vk.group_norm(on(vk, x), w.on_vk(vk), b.on_vk(vk), c.groups, 1e-5), vk,
                     cpu.group_norm(up(cpu, x), w.on_cpu(cpu), b.on_cpu(cpu), c.groups, 1e-5), cpu, d,
                     "group_norm " + what);
        expect_prims(vk.group_norm_backward(on(vk, x), w.on_vk(vk), on(vk, g), c.groups, 1e-5), vk,
                     cpu.group_norm_backward(up(cpu, x), w.on_cpu(cpu), up(cpu, g), c.groups, 1e-5), cpu, d,
                     "group_norm_backward " + what, kBackwardTol);
      }
}

TEST(VulkanNn, BatchNormTrainingAndInferenceMatchTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  // [N, C, spatial]: few values per channel (an invocation each), many (a workgroup each), rank 2.
  const std::vector<Shape> shapes = {Shape{4, 3, 5}, Shape{8, 2, 20}, Shape{5, 3}, Shape{2, 3, 4, 5}};
  for (DType d : float_dtypes())
    for (const Shape& s : shapes)
      for (int mode = 0; mode < 3; ++mode)  // training with running stats, training without, inference
        for (bool affine : {false, true}) {
          const bool training = mode < 2, running = mode != 1;
          const Shape cs{s[1]};
          const TensorData x = random_data(s, d, 31, -3, 3);
          const TensorData g = random_data(s, d, 32);
          const Param w = param(cs, d, 33, affine), b = param(cs, d, 34, affine);
          const Param rm = param(cs, d, 35, running), rv = param(cs, d, 36, running, 0.5, 2.0);
          const std::string what = s.to_string() + (training ? " training" : " inference") +
                                   (running ? " running" : "") + (affine ? " affine" : "");
          expect_prims(
              vk.batch_norm(on(vk, x), w.on_vk(vk), b.on_vk(vk), rm.on_vk(vk), rv.on_vk(vk), training, 0.1, 1e-5), vk,
              cpu.batch_norm(up(cpu, x), w.on_cpu(cpu), b.on_cpu(cpu), rm.on_cpu(cpu), rv.on_cpu(cpu), training, 0.1,
                             1e-5),
              cpu, d, "batch_norm " + what);
          expect_prims(
              vk.batch_norm_backward(on(vk, x), w.on_vk(vk), rm.on_vk(vk), rv.on_vk(vk), on(vk, g), training, 1e-5), vk,
              cpu.batch_norm_backward(up(cpu, x), w.on_cpu(cpu), rm.on_cpu(cpu), rv.on_cpu(cpu), up(cpu, g), training,
                                      1e-5),
              cpu, d, "batch_norm_backward " + what, kBackwardTol);
        }
}

TEST(VulkanNn, NormsOfEmptyTensorsAndViews) {
  REQUIRE_DEVICE_AND_CPU();
  // No rows: an empty result and zero parameter gradients.
  Prims r = vk.layer_norm_backward(vk.empty(Shape{0, 5}, DType::F32), vk.full(Shape{5}, Scalar(1.0), DType::F32),
                                   vk.empty(Shape{0, 5}, DType::F32), 1, 1e-5);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(vk.into_data(r[0]).shape(), (Shape{0, 5}));
  EXPECT_EQ(vk.into_data(r[1]).to_vec<float>(), std::vector<float>(5, 0.0f));
  EXPECT_EQ(vk.into_data(r[2]).to_vec<float>(), std::vector<float>(5, 0.0f));
  EXPECT_EQ(vk.into_data(vk.layer_norm(vk.empty(Shape{3, 0}, DType::F32), nullptr, nullptr, 1, 1e-5)).shape(),
            (Shape{3, 0}));
  // A permuted input is read through its view.
  const TensorData x = random_data(Shape{7, 3, 4}, DType::F32, 41);
  expect_close(vk.group_norm(vk.permute(on(vk, x), {1, 0, 2}), nullptr, nullptr, 7, 1e-5), vk,
               cpu.group_norm(cpu.permute(on(cpu, x), {1, 0, 2}), nullptr, nullptr, 7, 1e-5), cpu, DType::F32,
               "group_norm of a permuted view");
}

// ------------------------------------------------------------------------------------------------ pools

// PoolOptions as the api normalises them: one value per spatial dim, stride defaulting to the kernel.
PoolOptions pool_options(size_t n, std::vector<int64_t> k, std::vector<int64_t> s = {}, std::vector<int64_t> p = {},
                         std::vector<int64_t> d = {}, bool ceil = false, std::vector<int64_t> pe = {}) {
  auto per = [n](std::vector<int64_t> v, int64_t fill) {
    if (v.empty()) return std::vector<int64_t>(n, fill);
    if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
    return v;
  };
  PoolOptions o;
  o.kernel = per(k, 1);
  o.stride = s.empty() ? o.kernel : per(s, 1);
  o.padding = per(p, 0);
  o.padding_end = pe.empty() ? o.padding : per(pe, 0);
  o.dilation = per(d, 1);
  o.ceil_mode = ceil;
  return o;
}

struct PoolCase {
  Shape shape;
  PoolOptions options;
};
std::vector<PoolCase> pool_cases() {
  return {
      {Shape{2, 2, 9}, pool_options(1, {3})},
      {Shape{2, 2, 9}, pool_options(1, {2}, {2}, {1}, {}, true)},
      {Shape{2, 2, 9}, pool_options(1, {3}, {2}, {1}, {2}, false, {0})},
      {Shape{1, 2, 7, 8}, pool_options(2, {2})},
      {Shape{1, 2, 7, 8}, pool_options(2, {3}, {2}, {1})},
      {Shape{1, 2, 7, 8}, pool_options(2, {3, 2}, {2, 1}, {1, 0}, {}, true)},
      {Shape{1, 2, 7, 8}, pool_options(2, {3}, {1}, {1}, {2})},
      {Shape{1, 2, 7, 8}, pool_options(2, {3}, {2}, {1, 0}, {}, false, {0, 1})},
      {Shape{1, 2, 7, 8}, pool_options(2, {2}, {3}, {1}, {}, true)},
      {Shape{1, 1, 4, 5, 5}, pool_options(3, {2})},
      {Shape{1, 1, 4, 5, 5}, pool_options(3, {3}, {2}, {1}, {}, true)},
      {Shape{1, 1, 4, 5, 5}, pool_options(3, {2, 3, 2}, {1}, {}, {1, 1, 2})},
      {Shape{3, 5, 33, 35}, pool_options(2, {3}, {2}, {1})},  // several workgroups
  };
}

bool dilated(const PoolOptions& o) {
  for (int64_t d : o.dilation)
    if (d != 1) return true;
  return false;
}

TEST(VulkanNn, MaxPoolsWithIndicesAndBackwardMatchTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  for (DType d : float_dtypes())
    for (const PoolCase& c : pool_cases()) {
      const std::string what = c.shape.to_string() + " kernel " + dims(c.options.kernel) + " stride " +
                               dims(c.options.stride) + " padding " + dims(c.options.padding) + " dilation " +
                               dims(c.options.dilation) + (c.options.ceil_mode ? " ceil" : "");
      const TensorData x = random_data(c.shape, d, 51);
      expect_close(vk.max_pool(on(vk, x), c.options), vk, cpu.max_pool(up(cpu, x), c.options), cpu, d,
                   "max_pool " + what);
      auto [v, i] = vk.max_pool_with_indices(on(vk, x), c.options);
      auto [cv, ci] = cpu.max_pool_with_indices(up(cpu, x), c.options);
      expect_close(v, vk, cv, cpu, d, "max_pool_with_indices " + what);
      EXPECT_TRUE(vk.into_data(i) == cpu.into_data(ci)) << "indices of " << what;
      const TensorData g = random_data(cv->shape(), d, 52);
      expect_close(vk.max_pool_backward(on(vk, x), on(vk, g), i, c.options), vk,
                   cpu.max_pool_backward(up(cpu, x), up(cpu, g), ci, c.options), cpu, d, "max_pool_backward " + what);
      // i32 indices read as well.
      Prim i32 = vk.cast(i, DType::I32);
      expect_close(vk.max_pool_backward(on(vk, x), on(vk, g), i32, c.options), vk,
                   cpu.max_pool_backward(up(cpu, x), up(cpu, g), ci, c.options), cpu, d,
                   "max_pool_backward (i32 indices) " + what);
    }
}

TEST(VulkanNn, AvgPoolsAndBackwardMatchTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  for (DType d : float_dtypes())
    for (PoolCase c : pool_cases()) {
      if (dilated(c.options)) continue;  // average pools take no dilation
      for (bool cip : {true, false}) {
        c.options.count_include_pad = cip;
        const std::string what = c.shape.to_string() + " kernel " + dims(c.options.kernel) + " stride " +
                                 dims(c.options.stride) + " padding " + dims(c.options.padding) +
                                 (c.options.ceil_mode ? " ceil" : "") + (cip ? " count_include_pad" : "");
        const TensorData x = random_data(c.shape, d, 53);
        Prim want = cpu.avg_pool(up(cpu, x), c.options);
        expect_close(vk.avg_pool(on(vk, x), c.options), vk, want, cpu, d, "avg_pool " + what);
        const TensorData g = random_data(want->shape(), d, 54);
        expect_close(vk.avg_pool_backward(on(vk, x), on(vk, g), c.options), vk,
                     cpu.avg_pool_backward(up(cpu, x), up(cpu, g), c.options), cpu, d, "avg_pool_backward " + what);
      }
    }
}

TEST(VulkanNn, AdaptivePoolsAndBackwardMatchTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  const std::vector<std::pair<Shape, Shape>> cases = {{Shape{2, 3, 9}, Shape{4}},
                                                      {Shape{2, 3, 9}, Shape{13}},
                                                      {Shape{1, 2, 7, 8}, Shape{3, 5}},
                                                      {Shape{1, 2, 7, 8}, Shape{1, 1}},
                                                      {Shape{1, 2, 4, 5, 5}, Shape{2, 3, 2}},
                                                      {Shape{2, 4, 30, 31}, Shape{7, 6}},
                                                      {Shape{1, 1, 5, 6}, Shape{10, 12}}};
  for (DType d : float_dtypes())
    for (const auto& [s, out] : cases) {
      const std::string what = s.to_string() + " -> " + out.to_string();
      const TensorData x = random_data(s, d, 55);
      Prim want = cpu.adaptive_avg_pool(up(cpu, x), out);
      expect_close(vk.adaptive_avg_pool(on(vk, x), out), vk, want, cpu, d, "adaptive_avg_pool " + what);
      const TensorData g = random_data(want->shape(), d, 56);
      expect_close(vk.adaptive_avg_pool_backward(on(vk, x), on(vk, g)), vk,
                   cpu.adaptive_avg_pool_backward(up(cpu, x), up(cpu, g)), cpu, d,
                   "adaptive_avg_pool_backward " + what);
      auto [v, i] = vk.adaptive_max_pool(on(vk, x), out);
      auto [cv, ci] = cpu.adaptive_max_pool(up(cpu, x), out);
      expect_close(v, vk, cv, cpu, d, "adaptive_max_pool " + what);
      EXPECT_TRUE(vk.into_data(i) == cpu.into_data(ci)) << "indices of adaptive_max_pool " << what;
      expect_close(vk.adaptive_max_pool_backward(on(vk, x), on(vk, g), i), vk,
                   cpu.adaptive_max_pool_backward(up(cpu, x), up(cpu, g), ci), cpu, d,
                   "adaptive_max_pool_backward " + what);
    }
}

TEST(VulkanNn, MaxPoolTiesNaNsAndForeignIndices) {
  REQUIRE_DEVICE_AND_CPU();
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  // Ties (the first tap wins), NaNs (a NaN wins, the last one), -inf everywhere in a window.
  const std::vector<double> v = {1, 1, 0, 1, nan, 2, nan, 3, -inf, -inf, -inf, -inf, 5, 5, 5, 4};
  const TensorData x = TensorData::from_vector(v, Shape{1, 1, 4, 4}).convert(DType::F32);
  for (const PoolOptions& o : {pool_options(2, {2}), pool_options(2, {3}, {1}, {1}), pool_options(2, {2}, {1})}) {
    auto [a, ai] = vk.max_pool_with_indices(on(vk, x), o);
    auto [b, bi] = cpu.max_pool_with_indices(on(cpu, x), o);
    EXPECT_TRUE(vk.into_data(ai) == cpu.into_data(bi)) << "kernel " << dims(o.kernel);
    const std::vector<float> av = vk.into_data(a).to_vec<float>(), bv = cpu.into_data(b).to_vec<float>();
    ASSERT_EQ(av.size(), bv.size());
    for (size_t k = 0; k < av.size(); ++k)
      EXPECT_TRUE(av[k] == bv[k] || (std::isnan(av[k]) && std::isnan(bv[k]))) << k << ": " << av[k] << " " << bv[k];
  }
  // Indices that are not their window's (all 0, or reversed): the cpu scatters them anyway, so does the device.
  const PoolOptions o = pool_options(2, {2});
  const TensorData g = random_data(Shape{1, 1, 2, 2}, DType::F32, 57);
  for (const std::vector<int64_t>& idx : {std::vector<int64_t>{0, 0, 0, 0}, std::vector<int64_t>{15, 10, 5, 0}}) {
    const TensorData it = TensorData::from_vector(idx, Shape{1, 1, 2, 2});
    expect_close(vk.max_pool_backward(on(vk, x), on(vk, g), on(vk, it), o), vk,
                 cpu.max_pool_backward(on(cpu, x), on(cpu, g), on(cpu, it), o), cpu, DType::F32,
                 "max_pool_backward with foreign indices");
  }
  // An index outside the plane is an IndexError at the next read, and the device stays usable.
  const TensorData bad = TensorData::from_vector(std::vector<int64_t>{0, 16, 1, 2}, Shape{1, 1, 2, 2});
  EXPECT_THROW(vk.into_data(vk.max_pool_backward(on(vk, x), on(vk, g), on(vk, bad), o)), IndexError);
  EXPECT_THROW(cpu.max_pool_backward(on(cpu, x), on(cpu, g), on(cpu, bad), o), IndexError);
  EXPECT_EQ(vk.into_data(vk.max_pool(on(vk, x), o)).shape(), (Shape{1, 1, 2, 2}));
}

// ------------------------------------------------------------------------------------------- resample

TEST(VulkanNn, InterpolateAndBackwardMatchTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  const std::vector<std::pair<Shape, Shape>> cases = {
      {Shape{2, 3, 7}, Shape{14}},         {Shape{2, 3, 7}, Shape{5}},        {Shape{2, 3, 7}, Shape{1}},
      {Shape{1, 2, 5, 6}, Shape{9, 4}},    {Shape{1, 2, 5, 6}, Shape{3, 12}}, {Shape{1, 2, 3, 4, 5}, Shape{5, 3, 7}},
      {Shape{2, 3, 20, 24}, Shape{37, 50}}};
  for (DType d : float_dtypes())
    for (const auto& [s, out] : cases)
      for (InterpolateMode mode : {InterpolateMode::Nearest, InterpolateMode::Linear, InterpolateMode::Cubic})
        for (bool align : {false, true}) {
          if (mode == InterpolateMode::Cubic && s.rank() == 5) continue;  // bicubic is 2-D at most
          if (mode == InterpolateMode::Nearest && align) continue;        // ignored by nearest
          InterpolateOptions o;
          o.mode = mode;
          o.align_corners = align;
          const std::string what = s.to_string() + " -> " + out.to_string() + " mode " +
                                   std::to_string(static_cast<int>(mode)) + (align ? " align_corners" : "");
          const TensorData x = random_data(s, d, 61);
          Prim want = cpu.interpolate(up(cpu, x), out, o);
          expect_close(vk.interpolate(on(vk, x), out, o), vk, want, cpu, d, "interpolate " + what);
          const TensorData g = random_data(want->shape(), d, 62);
          expect_close(vk.interpolate_backward(on(vk, x), on(vk, g), out, o), vk,
                       cpu.interpolate_backward(up(cpu, x), up(cpu, g), out, o), cpu, d, "interpolate_backward " + what,
                       Tol{2e-5, 1e-12, 1e-2});
        }
}

// ------------------------------------------------------------------------------------------------- convs

std::vector<int64_t> per_dim(std::vector<int64_t> v, size_t n, int64_t fill) {
  if (v.empty()) return std::vector<int64_t>(n, fill);
  if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
  return v;
}

// ConvOptions as the api normalises them.
ConvOptions conv_options(size_t n, std::vector<int64_t> s = {}, std::vector<int64_t> p = {},
                         std::vector<int64_t> d = {}, int64_t groups = 1, std::vector<int64_t> pe = {}) {
  ConvOptions o;
  o.stride = per_dim(s, n, 1);
  o.padding = per_dim(p, n, 0);
  o.padding_end = pe.empty() ? o.padding : per_dim(pe, n, 0);
  o.dilation = per_dim(d, n, 1);
  o.groups = groups;
  return o;
}

ConvTransposeOptions transpose_options(size_t n, std::vector<int64_t> s = {}, std::vector<int64_t> p = {},
                                       std::vector<int64_t> d = {}, int64_t groups = 1, std::vector<int64_t> po = {}) {
  ConvTransposeOptions o;
  o.stride = per_dim(s, n, 1);
  o.padding = per_dim(p, n, 0);
  o.padding_out = per_dim(po, n, 0);
  o.dilation = per_dim(d, n, 1);
  o.groups = groups;
  return o;
}

const Tol kConvTol{1e-4, 1e-11, 1.5e-2};

// Both GEMM shapes of burn-gpu/kernels/conv.kernel: the profile's backend and the one forced to the other shape.
std::vector<std::pair<const char*, VulkanBackend*>> conv_backends(DeviceAndCpu& bk) {
  const bool tiled = bk.ctx->profile().features.shared_memory_gemm;
  return {{tiled ? "tiled" : "register-blocked", bk.vk.get()},
          {tiled ? "register-blocked" : "tiled", other_gemm_backend()}};
}

struct ConvCase {
  Shape x, w;
  ConvOptions options;
  bool bias;
};

TEST(VulkanNn, ConvForwardAndBackwardMatchTheCpuOnBothGemmShapes) {
  REQUIRE_DEVICE_AND_CPU();
  const std::vector<ConvCase> cases = {
      {Shape{2, 3, 11}, Shape{4, 3, 3}, conv_options(1), true},
      {Shape{2, 3, 11}, Shape{4, 3, 3}, conv_options(1, {2}, {1}, {2}, 1, {0}), false},
      {Shape{2, 4, 7, 8}, Shape{6, 2, 3, 3}, conv_options(2, {2, 1}, {1, 0}, {1, 2}, 2), true},
      {Shape{1, 6, 9, 9}, Shape{6, 1, 3, 3}, conv_options(2, {1}, {1}, {}, 6), true},  // depthwise
      {Shape{2, 5, 4, 4}, Shape{7, 5, 1, 1}, conv_options(2), false},                  // pointwise
      {Shape{1, 3, 6, 7}, Shape{2, 3, 3, 3}, conv_options(2, {1}, {1, 1}, {}, 1, {0, 2}), true},
      {Shape{1, 2, 5, 6, 5}, Shape{3, 2, 2, 3, 2}, conv_options(3, {1, 2, 1}, {1, 0, 1}), true},
      {Shape{2, 8, 17, 19}, Shape{16, 8, 3, 3}, conv_options(2, {1}, {1}), true},  // several tiles
      {Shape{3, 2, 4, 4}, Shape{5, 2, 4, 4}, conv_options(2, {2}, {2}), false},    // a kernel larger than stride
  };
  for (auto [kernel, be] : conv_backends(*bk))
    for (DType d : float_dtypes())
      for (const ConvCase& c : cases) {
        if (d == DType::F16 && be != &vk) continue;  // f16 on one GEMM shape: fewer kernels to compile
        const std::string what = std::string(kernel) + " x " + c.x.to_string() + " w " + c.w.to_string() + " stride " +
                                 dims(c.options.stride) + " padding " + dims(c.options.padding) + "/" +
                                 dims(c.options.padding_end) + " dilation " + dims(c.options.dilation) + " groups " +
                                 std::to_string(c.options.groups);
        const TensorData x = random_data(c.x, d, 71), w = random_data(c.w, d, 72);
        const Param b = param(Shape{c.w[0]}, d, 73, c.bias);
        Prim want = cpu.conv(up(cpu, x), up(cpu, w), b.on_cpu(cpu), c.options);
        expect_close(be->conv(on(*be, x), on(*be, w), b.on_vk(*be), c.options), *be, want, cpu, d, "conv " + what,
                     kConvTol);
        const TensorData g = random_data(want->shape(), d, 74);
        // All three gradients, and the weight's alone (the first conv of a network: no input gradient).
        for (const ConvGradMask& m : {ConvGradMask{}, ConvGradMask{false, true, false}})
          expect_prims(be->conv_backward(on(*be, x), on(*be, w), on(*be, g), c.options, m), *be,
                       cpu.conv_backward(up(cpu, x), up(cpu, w), up(cpu, g), c.options, m), cpu, d,
                       "conv_backward " + what, kConvTol);
      }
}

struct TransposeCase {
  Shape x, w;
  ConvTransposeOptions options;
  bool bias;
};

TEST(VulkanNn, ConvTransposeForwardAndBackwardMatchTheCpuOnBothGemmShapes) {
  REQUIRE_DEVICE_AND_CPU();
  const std::vector<TransposeCase> cases = {
      {Shape{2, 4, 5}, Shape{4, 3, 3}, transpose_options(1, {2}, {1}, {}, 1, {1}), true},
      {Shape{2, 3, 6}, Shape{3, 2, 4}, transpose_options(1), false},
      {Shape{1, 4, 4, 5}, Shape{4, 2, 3, 3}, transpose_options(2, {2}, {1, 0}, {1, 2}, 2, {1, 0}), true},
      {Shape{1, 2, 3, 3, 3}, Shape{2, 2, 2, 2, 2}, transpose_options(3, {2}), true},
      {Shape{2, 6, 5, 5}, Shape{6, 1, 3, 3}, transpose_options(2, {1}, {1}, {}, 6), false},  // depthwise
  };
  for (auto [kernel, be] : conv_backends(*bk))
    for (DType d : float_dtypes())
      for (const TransposeCase& c : cases) {
        if (d == DType::F16 && be != &vk) continue;
        const std::string what = std::string(kernel) + " x " + c.x.to_string() + " w " + c.w.to_string() + " stride " +
                                 dims(c.options.stride) + " padding " + dims(c.options.padding) + " dilation " +
                                 dims(c.options.dilation) + " groups " + std::to_string(c.options.groups);
        const TensorData x = random_data(c.x, d, 81), w = random_data(c.w, d, 82);
        const Param b = param(Shape{c.w[1] * c.options.groups}, d, 83, c.bias);
        Prim want = cpu.conv_transpose(up(cpu, x), up(cpu, w), b.on_cpu(cpu), c.options);
        expect_close(be->conv_transpose(on(*be, x), on(*be, w), b.on_vk(*be), c.options), *be, want, cpu, d,
                     "conv_transpose " + what, kConvTol);
        const TensorData g = random_data(want->shape(), d, 84);
        for (const ConvGradMask& m :
             {ConvGradMask{}, ConvGradMask{true, false, false}, ConvGradMask{false, true, true}})
          expect_prims(be->conv_transpose_backward(on(*be, x), on(*be, w), on(*be, g), c.options, m), *be,
                       cpu.conv_transpose_backward(up(cpu, x), up(cpu, w), up(cpu, g), c.options, m), cpu, d,
                       "conv_transpose_backward " + what, kConvTol);
      }
}

TEST(VulkanNn, ConvOfViewsAndEmptyBatches) {
  REQUIRE_DEVICE_AND_CPU();
  // A permuted input and a flipped weight are read through their views.
  const TensorData x = random_data(Shape{5, 2, 3, 6}, DType::F32, 91),
                   w = random_data(Shape{4, 3, 2, 2}, DType::F32, 92);
  const ConvOptions o = conv_options(2, {1}, {1});
  expect_close(vk.conv(vk.permute(on(vk, x), {1, 2, 0, 3}), vk.flip(on(vk, w), {2}), nullptr, o), vk,
               cpu.conv(cpu.permute(on(cpu, x), {1, 2, 0, 3}), cpu.flip(on(cpu, w), {2}), nullptr, o), cpu, DType::F32,
               "conv of views", kConvTol);
  // No images: empty results, and zero weight and bias gradients.
  const TensorData e = TensorData::from_vector(std::vector<float>{}, Shape{0, 3, 5, 5});
  const TensorData ge = TensorData::from_vector(std::vector<float>{}, Shape{0, 4, 5, 5});
  const TensorData w3 = random_data(Shape{4, 3, 3, 3}, DType::F32, 93);
  expect_prims(vk.conv_backward(on(vk, e), on(vk, w3), on(vk, ge), o, ConvGradMask{}), vk,
               cpu.conv_backward(on(cpu, e), on(cpu, w3), on(cpu, ge), o, ConvGradMask{}), cpu, DType::F32,
               "conv_backward of an empty batch");
}

// --------------------------------------------------------------------------------------------- attention

struct AttnCase {
  int64_t b, h, lq, lk, e, ev;
  std::vector<int64_t> mask;  // empty: none; else its (broadcast) shape
  bool causal;
  std::optional<double> scale;
};

TEST(VulkanNn, AttentionMatchesTheCpu) {
  REQUIRE_DEVICE_AND_CPU();
  const std::vector<AttnCase> cases = {
      {2, 3, 5, 5, 4, 4, {}, false, std::nullopt},
      {1, 2, 7, 11, 8, 6, {}, false, std::nullopt},                   // Lq != Lk
      {2, 2, 6, 9, 4, 5, {2, 2, 6, 9}, false, std::nullopt},          // a full mask
      {2, 2, 6, 9, 4, 5, {1, 1, 6, 9}, true, std::nullopt},           // a broadcast mask and causal
      {2, 3, 4, 7, 4, 3, {2, 1, 1, 7}, false, 0.3},                   // a key-padding mask, a given scale
      {2, 2, 6, 9, 4, 5, {6, 9}, false, std::nullopt},                // a rank-2 mask, broadcast from the right
      {2, 2, 4, 7, 4, 3, {7}, true, std::nullopt},                    // a rank-1 key mask
      {1, 1, 9, 4, 4, 4, {}, true, std::nullopt},                     // causal with Lq > Lk
      {1, 2, 70, 100, 32, 40, {1, 2, 70, 100}, false, std::nullopt},  // several query and key blocks
      {1, 1, 5, 6, 150, 3, {}, false, std::nullopt},                  // a query wider than the registers
      {1, 1, 5, 40, 3, 200, {}, true, std::nullopt},                  // values in several passes
      {1, 1, 3, 3, 0, 2, {}, false, std::nullopt},                    // E = 0: uniform weights
  };
  for (DType d : exp_dtypes())
    for (const AttnCase& c : cases) {
      const std::string what = "b" + std::to_string(c.b) + " h" + std::to_string(c.h) + " q" + std::to_string(c.lq) +
                               " k" + std::to_string(c.lk) + " e" + std::to_string(c.e) + " v" + std::to_string(c.ev) +
                               " mask " + dims(c.mask) + (c.causal ? " causal" : "");
      const TensorData q = random_data(Shape{c.b, c.h, c.lq, c.e}, d, 101);
      const TensorData k = random_data(Shape{c.b, c.h, c.lk, c.e}, d, 102);
      const TensorData v = random_data(Shape{c.b, c.h, c.lk, c.ev}, d, 103);
      TensorData m;
      if (!c.mask.empty()) {
        std::mt19937 rng(104);
        std::vector<uint8_t> bits(static_cast<size_t>(Shape(c.mask).num_elements()));
        for (auto& bit : bits) bit = rng() % 4 == 0;
        m = TensorData::from_vector(bits, Shape(c.mask)).convert(DType::Bool);
      }
      AttentionOptions o;
      o.causal = c.causal;
      o.scale = c.scale;
      Prim got = vk.attention(on(vk, q), on(vk, k), on(vk, v), c.mask.empty() ? nullptr : on(vk, m), o);
      Prim want = cpu.attention(up(cpu, q), up(cpu, k), up(cpu, v), c.mask.empty() ? nullptr : on(cpu, m), o);
      expect_close(got, vk, want, cpu, d, "attention " + what, Tol{2e-5, 1e-12, 1e-2});
    }
}

TEST(VulkanNn, AttentionOfViewsAndFullyMaskedRows) {
  REQUIRE_DEVICE_AND_CPU();
  // q, k, v stored [B, L, H, E] and permuted to [B, H, L, E]: read in place.
  const TensorData q = random_data(Shape{2, 6, 3, 8}, DType::F32, 111);
  const TensorData k = random_data(Shape{2, 9, 3, 8}, DType::F32, 112);
  const TensorData v = random_data(Shape{2, 9, 3, 5}, DType::F32, 113);
  auto run = [&](Backend& b, Prim mask, bool causal) {
    AttentionOptions o;
    o.causal = causal;
    return b.attention(b.permute(on(b, q), {0, 2, 1, 3}), b.permute(on(b, k), {0, 2, 1, 3}),
                       b.permute(on(b, v), {0, 2, 1, 3}), std::move(mask), o);
  };
  expect_close(run(vk, nullptr, true), vk, run(cpu, nullptr, true), cpu, DType::F32, "attention of permuted views");
  // Rows 0 and 4 of every head fully masked: NaN there, as the cpu; the rest exact.
  std::vector<uint8_t> bits(6 * 9, 0);
  for (int j = 0; j < 9; ++j) bits[j] = bits[4 * 9 + j] = 1;
  bits[2 * 9 + 3] = 1;
  const TensorData m = TensorData::from_vector(bits, Shape{1, 1, 6, 9}).convert(DType::Bool);
  const TensorData g = vk.into_data(run(vk, on(vk, m), false));
  const TensorData w = cpu.into_data(run(cpu, on(cpu, m), false));
  const std::vector<float> gv = g.to_vec<float>(), wv = w.to_vec<float>();
  ASSERT_EQ(gv.size(), wv.size());
  for (size_t i = 0; i < gv.size(); ++i) {
    const size_t row = (i / 5) % 6;
    if (row == 0 || row == 4) {
      EXPECT_TRUE(std::isnan(gv[i]) && std::isnan(wv[i])) << i;
    } else {
      EXPECT_NEAR(gv[i], wv[i], 2e-5) << i;
    }
  }
}

}  // namespace
}  // namespace burn::vulkan
