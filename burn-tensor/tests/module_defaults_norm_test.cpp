// Tests the DEFAULT composite bodies of the norm and attention module ops against the cpu plugin's
// kernels: the defaults decorator runs Backend's own body for those groups over the cpu backend (which
// then calls back into the cpu ops); both sides get the same random inputs for many option combinations.
// Also checks that the cpu attention kernel on a long sequence matches the composite while its peak extra
// memory stays far below one [Lq, Lk] score matrix.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "burn/tensor/api.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/module.hpp"
#include "burn/tensor/plugin.hpp"

namespace {

using namespace burn;
using api::H;
using api::OptH;

class ModuleDefaultsNorm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cpu_ = plugins::create_backend("cpu");
    defaults_ = make_defaults_backend(cpu_, {OpGroup::norm, OpGroup::attention});
  }
  static void TearDownTestSuite() {
    defaults_.reset();
    cpu_.reset();
  }
  static Device cpu() { return Device::from_backend(cpu_); }
  static Device def() { return Device::from_backend(defaults_); }

  // The same random values on both devices.
  struct Pair {
    H cpu, def;
  };
  static Pair randn(const Shape& s, DType dt, double scale = 1.0, double offset = 0.0) {
    std::normal_distribution<double> nd(offset, scale);
    std::vector<double> v(static_cast<size_t>(s.num_elements()));
    for (double& x : v) x = nd(rng_);
    TensorData d = TensorData::from_vector(v, s);
    H c = api::cast(api::from_data(cpu(), d, burn::Kind::Float), dt);
    H f = api::cast(api::from_data(def(), d, burn::Kind::Float), dt);
    return {c, f};
  }
  static Pair mask(const Shape& s, double p) {
    std::bernoulli_distribution bd(p);
    std::vector<bool> v(static_cast<size_t>(s.num_elements()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = bd(rng_);
    TensorData d = TensorData::from_vector(v, s);
    return {api::from_data(cpu(), d, burn::Kind::Bool), api::from_data(def(), d, burn::Kind::Bool)};
  }
  static OptH opt(const std::optional<Pair>& p, bool cpu_side) {
    if (!p) return std::nullopt;
    return cpu_side ? p->cpu : p->def;
  }

  static void expect_close(const H& got, const H& want, const std::string& what, double rtol, double atol) {
    ASSERT_EQ(static_cast<bool>(got.prim), static_cast<bool>(want.prim)) << what << ": one side is null";
    if (!got.prim) return;
    TensorData g = api::into_data(got), w = api::into_data(want);
    ASSERT_EQ(g.shape(), w.shape()) << what;
    ASSERT_EQ(g.dtype(), w.dtype()) << what;
    auto report = g.compare_approx(w, rtol, atol);
    EXPECT_TRUE(report.ok) << what << ": " << report.message;
  }
  static void expect_all(const api::Hs& got, const api::Hs& want, const std::string& what, double rtol, double atol) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
      expect_close(got[i], want[i], what + " output " + std::to_string(i), rtol, atol);
  }
  static double rtol(DType dt) { return dt == DType::F32 ? 1e-4 : 1e-10; }
  static double atol(DType dt) { return dt == DType::F32 ? 1e-5 : 1e-11; }

  static inline BackendPtr cpu_;
  static inline BackendPtr defaults_;
  static inline std::mt19937_64 rng_{20240611};
};

// Peak resident set and current resident set, in bytes.
size_t peak_rss() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<size_t>(ru.ru_maxrss) * 1024;
}
size_t current_rss() {
  std::ifstream f("/proc/self/statm");
  size_t total = 0, resident = 0;
  f >> total >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// First in the file on purpose: the peak-RSS reading is only informative while this process's peak is
// still close to its current RSS (checked; the test skips otherwise).
TEST_F(ModuleDefaultsNorm, AttentionLongSequenceMatchesCompositeInBoundedMemory) {
  constexpr int64_t kL = 4096, kE = 64;
  const Shape s{1, 1, kL, kE};
  Pair q = randn(s, DType::F32), k = randn(s, DType::F32), v = randn(s, DType::F32);
  const size_t scores_bytes = static_cast<size_t>(kL * kL) * sizeof(float);  // 64 MiB
  // The kernel runs first, both variants, before any composite fills the heap (and the backend's buffer
  // pool) with score-sized blocks that later allocations could reuse unseen.
  H got[2] = {q.cpu, q.cpu};
  for (bool causal : {false, true}) {
    AttentionOptions o;
    o.causal = causal;
    const size_t rss0 = current_rss(), peak0 = peak_rss();
    got[causal] = api::attention(q.cpu, k.cpu, v.cpu, std::nullopt, o);
    const size_t peak1 = peak_rss(), grown = peak1 > rss0 ? peak1 - rss0 : 0;
    std::printf("attention L%lld causal %d: peak RSS grew %zu KiB\n", static_cast<long long>(kL), causal, grown >> 10);
    if (peak0 > rss0 + scores_bytes / 8) {
      std::printf("peak RSS already %zu MiB above the current RSS: memory bound not measurable here\n",
                  (peak0 - rss0) >> 20);
    } else {
      // The kernel's extra memory (output 1 MiB + one score tile per thread) is far below a score matrix.
      EXPECT_LT(grown, scores_bytes / 4) << "attention (causal " << causal << ") raised the peak RSS by "
                                         << (grown >> 20) << " MiB";
    }
  }
  for (bool causal : {false, true}) {
    AttentionOptions o;
    o.causal = causal;
    H want = api::attention(q.def, k.def, v.def, std::nullopt, o);  // materialises [L, L]
    expect_close(got[causal], want, causal ? "long causal attention" : "long attention", 1e-4, 1e-5);
  }
}

TEST_F(ModuleDefaultsNorm, LayerNormAndRmsNorm) {
  struct Cfg {
    Shape shape;
    size_t nd;
  };
  for (DType dt : {DType::F32, DType::F64})
    for (const Cfg& c :
         {Cfg{Shape{8, 33}, 1}, Cfg{Shape{3, 5, 7, 4}, 2}, Cfg{Shape{2, 3, 40}, 3}, Cfg{Shape{130, 257}, 1}})
      for (int aff = 0; aff < 4; ++aff)
        for (double eps : {1e-5, 0.3}) {
          const Shape ws(std::vector<int64_t>(c.shape.end() - static_cast<std::ptrdiff_t>(c.nd), c.shape.end()));
          Pair x = randn(c.shape, dt, 1.7, 0.4), go = randn(c.shape, dt);
          std::optional<Pair> w, b;
          if (aff & 1) w = randn(ws, dt);
          if (aff & 2) b = randn(ws, dt);
          const std::string what = "shape " + c.shape.to_string() + " nd " + std::to_string(c.nd) + " aff " +
                                   std::to_string(aff) + " eps " + std::to_string(eps) + " " +
                                   std::string(dtype_name(dt));
          expect_close(api::layer_norm(x.cpu, opt(w, true), opt(b, true), c.nd, eps),
                       api::layer_norm(x.def, opt(w, false), opt(b, false), c.nd, eps), "layer_norm " + what, rtol(dt),
                       atol(dt));
          expect_all(api::layer_norm_backward(x.cpu, opt(w, true), go.cpu, c.nd, eps),
                     api::layer_norm_backward(x.def, opt(w, false), go.def, c.nd, eps), "layer_norm_backward " + what,
                     rtol(dt), atol(dt));
          expect_close(api::rms_norm(x.cpu, opt(w, true), c.nd, eps), api::rms_norm(x.def, opt(w, false), c.nd, eps),
                       "rms_norm " + what, rtol(dt), atol(dt));
          expect_all(api::rms_norm_backward(x.cpu, opt(w, true), go.cpu, c.nd, eps),
                     api::rms_norm_backward(x.def, opt(w, false), go.def, c.nd, eps), "rms_norm_backward " + what,
                     rtol(dt), atol(dt));
        }
}

TEST_F(ModuleDefaultsNorm, GroupNorm) {
  struct Cfg {
    Shape shape;
    int64_t groups;
  };
  for (DType dt : {DType::F32, DType::F64})
    for (const Cfg& c : {Cfg{Shape{2, 6, 5}, 3}, Cfg{Shape{3, 8}, 2}, Cfg{Shape{2, 8, 9, 7}, 4},
                         Cfg{Shape{2, 4, 3, 2, 5}, 1}, Cfg{Shape{1, 6, 31}, 6}, Cfg{Shape{4, 32, 16, 16}, 8}})
      for (int aff = 0; aff < 4; ++aff) {
        const Shape ws{c.shape[1]};
        Pair x = randn(c.shape, dt, 2.0, -0.5), go = randn(c.shape, dt);
        std::optional<Pair> w, b;
        if (aff & 1) w = randn(ws, dt);
        if (aff & 2) b = randn(ws, dt);
        const std::string what = "shape " + c.shape.to_string() + " groups " + std::to_string(c.groups) + " aff " +
                                 std::to_string(aff) + " " + std::string(dtype_name(dt));
        expect_close(api::group_norm(x.cpu, opt(w, true), opt(b, true), c.groups, 1e-5),
                     api::group_norm(x.def, opt(w, false), opt(b, false), c.groups, 1e-5), "group_norm " + what,
                     rtol(dt), atol(dt));
        expect_all(api::group_norm_backward(x.cpu, opt(w, true), go.cpu, c.groups, 1e-5),
                   api::group_norm_backward(x.def, opt(w, false), go.def, c.groups, 1e-5),
                   "group_norm_backward " + what, rtol(dt), atol(dt));
      }
}

TEST_F(ModuleDefaultsNorm, BatchNorm) {
  for (DType dt : {DType::F32, DType::F64})
    for (const Shape& s : {Shape{6, 3}, Shape{4, 5, 7}, Shape{2, 3, 6, 5}, Shape{2, 2, 3, 4, 3}, Shape{8, 16, 12, 12}})
      for (int mode = 0; mode < 3; ++mode)  // 0: training with running stats, 1: training, 2: inference
        for (int aff = 0; aff < 4; ++aff) {
          const Shape cs{s[1]};
          Pair x = randn(s, dt, 1.3, 0.8), go = randn(s, dt);
          std::optional<Pair> w, b, rm, rv;
          if (aff & 1) w = randn(cs, dt);
          if (aff & 2) b = randn(cs, dt);
          if (mode != 1) {
            rm = randn(cs, dt, 0.3);
            Pair r = randn(cs, dt, 0.2);
            rv = Pair{api::add_scalar(api::unary(OpId::abs, r.cpu), 0.5),
                      api::add_scalar(api::unary(OpId::abs, r.def), 0.5)};
          }
          const bool training = mode != 2;
          const std::string what = "shape " + s.to_string() + " mode " + std::to_string(mode) + " aff " +
                                   std::to_string(aff) + " " + std::string(dtype_name(dt));
          expect_all(
              api::batch_norm(x.cpu, opt(w, true), opt(b, true), opt(rm, true), opt(rv, true), training, 0.2, 1e-5),
              api::batch_norm(x.def, opt(w, false), opt(b, false), opt(rm, false), opt(rv, false), training, 0.2, 1e-5),
              "batch_norm " + what, rtol(dt), atol(dt));
          expect_all(
              api::batch_norm_backward(x.cpu, opt(w, true), opt(rm, true), opt(rv, true), go.cpu, training, 1e-5),
              api::batch_norm_backward(x.def, opt(w, false), opt(rm, false), opt(rv, false), go.def, training, 1e-5),
              "batch_norm_backward " + what, rtol(dt), atol(dt));
        }
}

TEST_F(ModuleDefaultsNorm, Attention) {
  struct Cfg {
    int64_t b, h, lq, lk, e, ev;
  };
  for (DType dt : {DType::F32, DType::F64})
    for (const Cfg& c : {Cfg{2, 3, 5, 5, 4, 4}, Cfg{1, 2, 7, 300, 16, 8}, Cfg{2, 2, 300, 7, 8, 16},
                         Cfg{1, 1, 65, 65, 64, 64}, Cfg{1, 2, 130, 517, 32, 24}, Cfg{2, 1, 1, 1, 3, 2}})
      for (int mk = 0; mk < 4; ++mk)  // none, full, key padding, [Lq, Lk]
        for (bool causal : {false, true})
          for (std::optional<double> scale : {std::optional<double>{}, std::optional<double>{0.05}}) {
            Pair q = randn(Shape{c.b, c.h, c.lq, c.e}, dt), k = randn(Shape{c.b, c.h, c.lk, c.e}, dt),
                 v = randn(Shape{c.b, c.h, c.lk, c.ev}, dt);
            std::optional<Pair> m;
            if (mk == 1) m = mask(Shape{c.b, c.h, c.lq, c.lk}, 0.3);
            if (mk == 2) m = mask(Shape{c.b, 1, 1, c.lk}, 0.2);
            if (mk == 3) m = mask(Shape{c.lq, c.lk}, 0.4);
            AttentionOptions o;
            o.causal = causal;
            o.scale = scale;
            const std::string what = "attention b" + std::to_string(c.b) + " h" + std::to_string(c.h) + " lq" +
                                     std::to_string(c.lq) + " lk" + std::to_string(c.lk) + " mask " +
                                     std::to_string(mk) + " causal " + std::to_string(causal) + " " +
                                     std::string(dtype_name(dt));
            // Random masks can mask whole rows: both sides must give NaN there (compare_approx matches NaN).
            expect_close(api::attention(q.cpu, k.cpu, v.cpu, opt(m, true), o),
                         api::attention(q.def, k.def, v.def, opt(m, false), o), what, rtol(dt), atol(dt));
          }
  // Permuted [B, L, H, E] storage, read in place by the kernel.
  Pair q = randn(Shape{2, 40, 3, 16}, DType::F32), k = randn(Shape{2, 70, 3, 16}, DType::F32),
       v = randn(Shape{2, 70, 3, 8}, DType::F32);
  auto p = [](const H& h) { return api::permute(h, {0, 2, 1, 3}); };
  expect_close(api::attention(p(q.cpu), p(k.cpu), p(v.cpu), std::nullopt, {}),
               api::attention(p(q.def), p(k.def), p(v.def), std::nullopt, {}), "permuted attention", 1e-4, 1e-5);
}

}  // namespace
