// Tests the default composite bodies of the pool, resample and embedding module ops against the cpu
// plugin's kernels: the defaults decorator runs Backend's own composite for those groups (which calls
// back into the cpu's other ops) and forwards everything else to the cpu backend.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"

namespace {

using namespace burn;

class ModuleDefaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cpu_ = plugins::create_backend("cpu");
    def_ = make_defaults_backend(cpu_, {OpGroup::pool, OpGroup::resample, OpGroup::embedding});
  }
  static void TearDownTestSuite() {
    def_.reset();
    cpu_.reset();
  }

  static Prim rand(const Shape& s, DType dt = DType::F32) {
    static std::mt19937_64 g(1234);
    std::normal_distribution<double> n;
    std::vector<double> v(s.num_elements());
    for (double& e : v) e = n(g);
    Prim p = cpu_->from_data(TensorData::from_vector(v, s));
    return dt == DType::F64 ? p : cpu_->cast(p, dt);
  }
  static Prim ints(const std::vector<int64_t>& v, const Shape& s) {
    return cpu_->from_data(TensorData::from_vector(v, s));
  }

  // Same shape, dtype and values (within tolerance) from the cpu kernel and the composite.
  static void same(const Prim& a, const Prim& b, const std::string& what) {
    ASSERT_EQ(a->shape(), b->shape()) << what;
    ASSERT_EQ(a->dtype(), b->dtype()) << what;
    const std::vector<double> x = cpu_->into_data(a).to_f64_vec(), y = cpu_->into_data(b).to_f64_vec();
    for (size_t i = 0; i < x.size(); ++i) {
      const bool ok = (std::isnan(x[i]) && std::isnan(y[i])) || std::abs(x[i] - y[i]) <= 1e-5 + 1e-5 * std::abs(y[i]);
      ASSERT_TRUE(ok) << what << ": element " << i << " cpu " << x[i] << " default " << y[i];
    }
  }

  static inline BackendPtr cpu_, def_;
};

std::string text(const std::vector<int64_t>& v) { return Shape(v).to_string(); }

int64_t out_len(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d, bool ceil_mode) {
  const int64_t span = in + pb + pe - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

// Valid option sets the api would accept, already normalised (full-length vectors).
std::vector<PoolOptions> pool_configs(const std::vector<int64_t>& sp, bool is_max) {
  std::vector<PoolOptions> out;
  const size_t n = sp.size();
  for (int64_t k : {1, 2, 3})
    for (int64_t s : {1, 2, 3})
      for (int64_t p : {0, 1})
        for (int64_t pe : {0, 1})
          for (int64_t d : {1, 2})
            for (bool ceil_mode : {false, true})
              for (bool cip : {false, true}) {
                if ((!is_max && d != 1) || (is_max && !cip)) continue;
                PoolOptions o;
                o.kernel.assign(n, k);
                o.kernel[0] = std::max<int64_t>(1, k - 1);  // a non-square kernel
                o.stride.assign(n, s);
                o.padding.assign(n, p);
                o.padding_end.assign(n, pe);
                o.dilation.assign(n, d);
                o.ceil_mode = ceil_mode;
                o.count_include_pad = cip;
                bool ok = true;
                for (size_t i = 0; i < n; ++i) {
                  const int64_t eff = d * (o.kernel[i] - 1) + 1;
                  if (p > eff / 2 || pe > eff / 2 || eff > sp[i] + p + pe)
                    ok = false;
                  else if (out_len(sp[i], o.kernel[i], s, p, pe, d, ceil_mode) <= 0)
                    ok = false;
                }
                if (ok) out.push_back(o);
              }
  return out;
}

Shape nc(const std::vector<int64_t>& sp) {
  std::vector<int64_t> d{2, 3};
  d.insert(d.end(), sp.begin(), sp.end());
  return Shape(d);
}

const std::vector<std::vector<int64_t>> kSpatial = {{9}, {6, 7}, {4, 5, 5}};

TEST_F(ModuleDefaults, MaxPoolForwardIndicesBackward) {
  int cases = 0;
  for (const auto& sp : kSpatial)
    for (const PoolOptions& o : pool_configs(sp, true)) {
      const std::string what = "max_pool " + Shape(nc(sp)).to_string() + " k" + text(o.kernel) + " s" + text(o.stride) +
                               " p" + text(o.padding) + "/" + text(o.padding_end) + " d" + text(o.dilation) +
                               (o.ceil_mode ? " ceil" : "");
      Prim x = rand(nc(sp));
      same(cpu_->max_pool(x, o), def_->max_pool(x, o), what);
      auto [v1, i1] = cpu_->max_pool_with_indices(x, o);
      auto [v2, i2] = def_->max_pool_with_indices(x, o);
      same(v1, v2, what + " values");
      same(i1, i2, what + " indices");
      Prim g = rand(v1->shape());
      same(cpu_->max_pool_backward(x, g, i1, o), def_->max_pool_backward(x, g, i1, o), what + " backward");
      ++cases;
    }
  EXPECT_GT(cases, 100);
}

TEST_F(ModuleDefaults, AvgPoolForwardBackward) {
  for (DType dt : {DType::F32, DType::F64})
    for (const auto& sp : kSpatial)
      for (const PoolOptions& o : pool_configs(sp, false)) {
        const std::string what = "avg_pool " + Shape(nc(sp)).to_string() + " k" + text(o.kernel) + " s" +
                                 text(o.stride) + " p" + text(o.padding) + "/" + text(o.padding_end) +
                                 (o.ceil_mode ? " ceil" : "") + (o.count_include_pad ? " cip" : "");
        Prim x = rand(nc(sp), dt);
        Prim y = cpu_->avg_pool(x, o);
        same(y, def_->avg_pool(x, o), what);
        Prim g = rand(y->shape(), dt);
        same(cpu_->avg_pool_backward(x, g, o), def_->avg_pool_backward(x, g, o), what + " backward");
      }
}

TEST_F(ModuleDefaults, AdaptivePools) {
  const std::vector<std::vector<int64_t>> outs = {{4}, {3, 5}, {2, 3, 4}, {9}, {6, 7}, {1, 1, 1}, {5}, {4, 2}};
  for (const auto& os : outs) {
    const auto& sp = kSpatial[os.size() - 1];
    const std::string what = "adaptive " + Shape(nc(sp)).to_string() + " -> " + text(os);
    Prim x = rand(nc(sp));
    same(cpu_->adaptive_avg_pool(x, Shape(os)), def_->adaptive_avg_pool(x, Shape(os)), what + " avg");
    auto [v1, i1] = cpu_->adaptive_max_pool(x, Shape(os));
    auto [v2, i2] = def_->adaptive_max_pool(x, Shape(os));
    same(v1, v2, what + " max");
    same(i1, i2, what + " max indices");
    Prim g = rand(v1->shape());
    same(cpu_->adaptive_avg_pool_backward(x, g), def_->adaptive_avg_pool_backward(x, g), what + " avg backward");
    same(cpu_->adaptive_max_pool_backward(x, g, i1), def_->adaptive_max_pool_backward(x, g, i1),
         what + " max backward");
  }
}

TEST_F(ModuleDefaults, Interpolate) {
  const std::vector<std::vector<int64_t>> outs = {{13}, {4}, {1}, {11, 3}, {3, 14}, {6, 7}, {7, 3, 9}, {2, 2, 2}};
  for (const auto& os : outs)
    for (InterpolateMode m : {InterpolateMode::Nearest, InterpolateMode::Linear, InterpolateMode::Cubic})
      for (bool ac : {false, true}) {
        if (m == InterpolateMode::Cubic && os.size() == 3) continue;
        const auto& sp = kSpatial[os.size() - 1];
        const InterpolateOptions o{m, ac};
        const std::string what = "interpolate " + Shape(nc(sp)).to_string() + " -> " + text(os) + " mode " +
                                 std::to_string(static_cast<int>(m)) + (ac ? " align" : "");
        Prim x = rand(nc(sp), DType::F64);
        Prim y = cpu_->interpolate(x, Shape(os), o);
        same(y, def_->interpolate(x, Shape(os), o), what);
        Prim g = rand(y->shape(), DType::F64);
        same(cpu_->interpolate_backward(x, g, Shape(os), o), def_->interpolate_backward(x, g, Shape(os), o),
             what + " backward");
      }
}

TEST_F(ModuleDefaults, PixelShuffle) {
  for (int64_t r : {1, 2, 3}) {
    Prim x = rand(Shape{2, 2 * r * r, 3, 4});
    same(cpu_->pixel_shuffle(x, r), def_->pixel_shuffle(x, r), "pixel_shuffle r" + std::to_string(r));
    Prim y = rand(Shape{2, 3, 2, 3 * r, 2 * r});
    same(cpu_->pixel_unshuffle(y, r), def_->pixel_unshuffle(y, r), "pixel_unshuffle r" + std::to_string(r));
  }
}

TEST_F(ModuleDefaults, Embedding) {
  Prim w = rand(Shape{7, 5});
  Prim idx = ints({0, 6, 3, 3, 1, 6}, Shape{2, 3});
  same(cpu_->embedding(w, idx), def_->embedding(w, idx), "embedding");
  Prim g = rand(Shape{2, 3, 5});
  same(cpu_->embedding_backward(w, g, idx), def_->embedding_backward(w, g, idx), "embedding_backward");
  // I32 indices (widened) and a transposed view (packed) give the same rows as the I64 ones.
  Prim idx32 = cpu_->cast(idx, DType::I32);
  same(cpu_->embedding(w, idx32), def_->embedding(w, idx), "embedding of I32 indices");
  same(cpu_->embedding_backward(w, g, idx32), def_->embedding_backward(w, g, idx), "embedding_backward of I32");
  Prim idx_t = cpu_->permute(ints({0, 3, 6, 1, 3, 6}, Shape{3, 2}), {1, 0});
  same(cpu_->embedding(w, idx_t), def_->embedding(w, idx), "embedding of transposed indices");
  Prim bad = ints({0, 7}, Shape{2});
  EXPECT_THROW(cpu_->embedding(w, bad), IndexError);
  EXPECT_THROW(cpu_->embedding(w, cpu_->cast(bad, DType::I32)), IndexError);
  EXPECT_THROW(def_->embedding(w, bad), IndexError);
}

}  // namespace
