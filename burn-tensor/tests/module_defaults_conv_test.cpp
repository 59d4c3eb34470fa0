// Tests the default (composite) bodies of the conv module ops against the cpu plugin's kernels:
// the defaults decorator forwards every op to the cpu backend except the conv group, which runs Backend's
// composite (built from slices, cat, matmul, gather, ...), over many option combinations.
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

class ConvDefaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cpu_ = plugins::create_backend("cpu");
    def_ = make_defaults_backend(cpu_, {OpGroup::conv});
  }
  static void TearDownTestSuite() {
    def_.reset();
    cpu_.reset();
  }

  Prim rand(const Shape& s, DType dt) {
    std::normal_distribution<double> nd(0.0, 1.0);
    std::vector<double> v(static_cast<size_t>(s.num_elements()));
    for (double& e : v) e = nd(rng_);
    return cpu_->cast(cpu_->from_data(TensorData::from_vector(v, s)), dt);
  }

  static void expect_close(const Prim& got, const Prim& want, const std::string& what, DType dt) {
    ASSERT_EQ(static_cast<bool>(got), static_cast<bool>(want)) << what;
    if (!want) return;
    ASSERT_EQ(got->shape(), want->shape()) << what;
    const std::vector<double> g = cpu_->into_data(got).to_f64_vec(), w = cpu_->into_data(want).to_f64_vec();
    const double rtol = dt == DType::F32 ? 1e-4 : 1e-10, atol = dt == DType::F32 ? 1e-4 : 1e-10;
    for (size_t i = 0; i < g.size(); ++i)
      ASSERT_LE(std::abs(g[i] - w[i]), atol + rtol * std::abs(w[i]))
          << what << " element " << i << ": " << g[i] << " vs " << w[i];
  }

  // A backward's {grad_x, grad_weight, grad_bias} present exactly where `mask` asked.
  static void expect_masked(const Prims& r, const ConvGradMask& mask, const std::string& what) {
    ASSERT_EQ(r.size(), 3u) << what;
    EXPECT_EQ(static_cast<bool>(r[0]), mask.x) << what << " grad_x";
    EXPECT_EQ(static_cast<bool>(r[1]), mask.weight) << what << " grad_weight";
    EXPECT_EQ(static_cast<bool>(r[2]), mask.bias) << what << " grad_bias";
  }

  static std::vector<int64_t> out_sizes(const std::vector<int64_t>& in, const std::vector<int64_t>& k,
                                        const ConvOptions& o) {
    std::vector<int64_t> out;
    for (size_t i = 0; i < in.size(); ++i)
      out.push_back((in[i] + o.padding[i] + o.padding_end[i] - o.dilation[i] * (k[i] - 1) - 1) / o.stride[i] + 1);
    return out;
  }

  static BackendPtr cpu_, def_;
  std::mt19937_64 rng_{1234};
};
BackendPtr ConvDefaults::cpu_;
BackendPtr ConvDefaults::def_;

TEST_F(ConvDefaults, ConvAndBackwardMatchCpuKernels) {
  int cases = 0;
  for (size_t sd = 1; sd <= 3; ++sd)
    for (int64_t stride : {1, 2})
      for (int64_t pad : {0, 1})
        for (int64_t pad_end_extra : {0, 1})
          for (int64_t dil : {1, 2})
            for (int64_t groups : {1, 2}) {
              if (sd == 3 && (dil == 2 || pad_end_extra == 1)) continue;  // keep 3-D small
              const DType dt = (cases % 2) ? DType::F64 : DType::F32;
              const bool bias = cases % 3 != 0;
              ConvOptions o;
              o.stride.assign(sd, stride);
              o.padding.assign(sd, pad);
              o.padding_end.assign(sd, pad + pad_end_extra);
              o.dilation.assign(sd, dil);
              o.groups = groups;
              std::vector<int64_t> in, k;
              for (size_t i = 0; i < sd; ++i)
                in.push_back(sd == 3 ? 5 + int64_t(i) : 7 + int64_t(i)), k.push_back(2 + int64_t(i % 2));
              std::vector<int64_t> xs{2, 2 * groups}, ws{3 * groups, 2};
              xs.insert(xs.end(), in.begin(), in.end());
              ws.insert(ws.end(), k.begin(), k.end());
              Prim x = rand(Shape(xs), dt), w = rand(Shape(ws), dt);
              Prim b = bias ? rand(Shape{3 * groups}, dt) : Prim{};
              const std::string what = "conv sd=" + std::to_string(sd) + " s=" + std::to_string(stride) +
                                       " p=" + std::to_string(pad) + "+" + std::to_string(pad_end_extra) +
                                       " d=" + std::to_string(dil) + " g=" + std::to_string(groups);
              expect_close(def_->conv(x, w, b, o), cpu_->conv(x, w, b, o), what, dt);
              std::vector<int64_t> ys{2, 3 * groups};
              for (int64_t v : out_sizes(in, k, o)) ys.push_back(v);
              Prim gy = rand(Shape(ys), dt);
              // Every subset of {x, weight} over the cases: the gradients not asked for are null on both.
              const ConvGradMask mask{cases % 4 != 3, cases % 5 != 4, bias};
              Prims got = def_->conv_backward(x, w, gy, o, mask), want = cpu_->conv_backward(x, w, gy, o, mask);
              ASSERT_EQ(got.size(), 3u);
              expect_masked(want, mask, what);
              for (size_t i = 0; i < 3; ++i) expect_close(got[i], want[i], what + " grad " + std::to_string(i), dt);
              ++cases;
            }
  EXPECT_GT(cases, 60);
}

TEST_F(ConvDefaults, ConvTransposeAndBackwardMatchCpuKernels) {
  int cases = 0;
  for (size_t sd = 1; sd <= 3; ++sd)
    for (int64_t stride : {1, 2, 3})
      for (int64_t pad : {0, 1})
        for (int64_t pad_out : {0, 1, 2})
          for (int64_t dil : {1, 3})
            for (int64_t groups : {1, 2}) {
              if (pad_out >= std::max(stride, dil)) continue;
              if (sd == 3 && (stride == 3 || dil == 3)) continue;
              const DType dt = (cases % 2) ? DType::F64 : DType::F32;
              const bool bias = cases % 3 != 1;
              ConvTransposeOptions o;
              o.stride.assign(sd, stride);
              o.padding.assign(sd, pad);
              o.padding_out.assign(sd, pad_out);
              o.dilation.assign(sd, dil);
              o.groups = groups;
              std::vector<int64_t> xs{2, 2 * groups}, ws{2 * groups, 3}, ys{2, 3 * groups};
              for (size_t i = 0; i < sd; ++i) {
                const int64_t in = 3 + int64_t(i), k = 2 + int64_t(i % 2);
                xs.push_back(in), ws.push_back(k);
                ys.push_back((in - 1) * stride - 2 * pad + dil * (k - 1) + pad_out + 1);
              }
              Prim x = rand(Shape(xs), dt), w = rand(Shape(ws), dt);
              Prim b = bias ? rand(Shape{3 * groups}, dt) : Prim{};
              const std::string what = "conv_transpose sd=" + std::to_string(sd) + " s=" + std::to_string(stride) +
                                       " p=" + std::to_string(pad) + " op=" + std::to_string(pad_out) +
                                       " d=" + std::to_string(dil) + " g=" + std::to_string(groups);
              expect_close(def_->conv_transpose(x, w, b, o), cpu_->conv_transpose(x, w, b, o), what, dt);
              Prim gy = rand(Shape(ys), dt);
              const ConvGradMask mask{cases % 4 != 3, cases % 5 != 4, bias};
              Prims got = def_->conv_transpose_backward(x, w, gy, o, mask);
              Prims want = cpu_->conv_transpose_backward(x, w, gy, o, mask);
              ASSERT_EQ(got.size(), 3u);
              expect_masked(want, mask, what);
              for (size_t i = 0; i < 3; ++i) expect_close(got[i], want[i], what + " grad " + std::to_string(i), dt);
              ++cases;
            }
  EXPECT_GT(cases, 60);
}

TEST_F(ConvDefaults, DeformConv2dMatchesCpuKernel) {
  int cases = 0;
  for (int64_t stride : {1, 2})
    for (int64_t pad : {0, 1})
      for (int64_t dil : {1, 2})
        for (int64_t wg : {1, 2})
          for (int64_t og : {1, 2})
            for (bool use_mask : {false, true}) {
              const DType dt = (cases % 2) ? DType::F64 : DType::F32;
              DeformConvOptions o;
              o.stride = {stride, stride};
              o.padding = {pad, pad};
              o.dilation = {dil, dil};
              o.weight_groups = wg;
              o.offset_groups = og;
              const int64_t c = 4, h = 7, wd = 6, kh = 3, kw = 2;
              const int64_t ho = (h + 2 * pad - dil * (kh - 1) - 1) / stride + 1;
              const int64_t wo = (wd + 2 * pad - dil * (kw - 1) - 1) / stride + 1;
              Prim x = rand(Shape{2, c, h, wd}, dt), w = rand(Shape{4, c / wg, kh, kw}, dt);
              Prim off = cpu_->mul_scalar(rand(Shape{2, 2 * og * kh * kw, ho, wo}, dt), Scalar(2.0));
              Prim m = use_mask ? rand(Shape{2, og * kh * kw, ho, wo}, dt) : Prim{};
              Prim b = cases % 3 ? rand(Shape{4}, dt) : Prim{};
              expect_close(def_->deform_conv2d(x, off, w, m, b, o), cpu_->deform_conv2d(x, off, w, m, b, o),
                           "deform_conv2d case " + std::to_string(cases), dt);
              ++cases;
            }
}

TEST_F(ConvDefaults, UnfoldFoldMatchCpuKernels) {
  int cases = 0;
  for (int64_t kh : {1, 2, 3})
    for (int64_t stride : {1, 2, 3})
      for (int64_t pad : {0, 1})
        for (int64_t dil : {1, 2}) {
          const DType dt = (cases % 2) ? DType::F64 : DType::F32;
          UnfoldOptions o{{kh, 2}, {stride, 1}, {pad, 0}, {dil, 1}};
          const Shape size{7, 6};
          Prim x = rand(Shape{2, 3, 7, 6}, dt);
          Prim cols = cpu_->unfold(x, o);
          expect_close(def_->unfold(x, o), cols, "unfold case " + std::to_string(cases), dt);
          Prim c2 = rand(cols->shape(), dt);
          expect_close(def_->fold(c2, size, o), cpu_->fold(c2, size, o), "fold case " + std::to_string(cases), dt);
          ++cases;
        }
}

}  // namespace
