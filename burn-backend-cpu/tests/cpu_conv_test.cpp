// The blocked f32 conv forward (conv_blocked_forward.cpp) on the shapes of its newer branches: weights split into
// panels of output channels (large Mo x Kc), the 6 x 16 micro-kernel of small planes, and 1x1 convs
// (stride 1 read from x, strided ones from a compact copy); and the Winograd forward (conv_winograd.cpp)
// on the 3x3 stride-1 shapes it takes. Each is compared with a naive double reference and with the
// im2col + OpenBLAS path (BURN_CPU_CONV=gemm), the Winograd ones also with the direct kernel
// (BURN_CPU_CONV=direct), and the epilogue with the separate ops. The blocked kernels' AVX-512 micro-kernels
// are checked against the AVX2 ones on odd shapes (CpuConvIsa).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "cpu_test_fixture.hpp"
#include "ops/conv_blocked.hpp"
#include "ops/conv_winograd.hpp"

namespace burn::cpu {
namespace {

struct Case {
  std::vector<int64_t> x, w;  // [N, C, spatial...], [Cout, C / groups, kernel...]
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool bias;
  bool winograd = false;  // the Winograd forward takes it
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "x" << ::testing::PrintToString(c.x) << " w" << ::testing::PrintToString(c.w) << " stride"
      << ::testing::PrintToString(c.stride) << " groups " << c.groups;
}

std::vector<float> randoms(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = d(gen);
  return v;
}

int64_t prod(const std::vector<int64_t>& v, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p *= v[i];
  return p;
}

// Direct convolution in double, spatial dims right-aligned into 3 (as the kernels see them).
std::vector<double> reference(const Case& c, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b, std::vector<int64_t>& out) {
  const size_t r = c.x.size() - 2, off = 3 - r;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1}, o[3] = {1, 1, 1};
  out.clear();
  for (size_t i = 0; i < r; ++i) {
    in[off + i] = c.x[2 + i], k[off + i] = c.w[2 + i], s[off + i] = c.stride[i], p[off + i] = c.padding[i];
    d[off + i] = c.dilation[i];
    o[off + i] = (in[off + i] + 2 * p[off + i] - d[off + i] * (k[off + i] - 1) - 1) / s[off + i] + 1;
    out.push_back(o[off + i]);
  }
  const int64_t n = c.x[0], ch = c.x[1], cout = c.w[0], cg = ch / c.groups, mo = cout / c.groups;
  std::vector<double> y(static_cast<size_t>(n * cout * o[0] * o[1] * o[2]));
  size_t at = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t co = 0; co < cout; ++co)
      for (int64_t z = 0; z < o[0]; ++z)
        for (int64_t yy = 0; yy < o[1]; ++yy)
          for (int64_t xx = 0; xx < o[2]; ++xx) {
            double acc = c.bias ? b[static_cast<size_t>(co)] : 0.0;
            const int64_t g = co / mo;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t a = 0; a < k[0]; ++a)
                for (int64_t bb = 0; bb < k[1]; ++bb)
                  for (int64_t e = 0; e < k[2]; ++e) {
                    const int64_t iz = z * s[0] - p[0] + a * d[0], iy = yy * s[1] - p[1] + bb * d[1];
                    const int64_t ix = xx * s[2] - p[2] + e * d[2];
                    if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1] || ix < 0 || ix >= in[2]) continue;
                    const double xv =
                        x[static_cast<size_t>((((i * ch + g * cg + ci) * in[0] + iz) * in[1] + iy) * in[2] + ix)];
                    const double wv = w[static_cast<size_t>((((co * cg + ci) * k[0] + a) * k[1] + bb) * k[2] + e)];
                    acc += xv * wv;
                  }
            y[at++] = acc;
          }
  return y;
}

class CpuConvBlocked : public CpuBackendTest, public ::testing::WithParamInterface<Case> {
 protected:
  std::vector<float> run(const Case& c, const std::vector<float>& x, const std::vector<float>& w,
                         const std::vector<float>& bias, const char* path = nullptr) {
    if (path)
      EXPECT_EQ(setenv("BURN_CPU_CONV", path, 1), 0);
    else
      EXPECT_EQ(unsetenv("BURN_CPU_CONV"), 0);
    ConvOptions o{c.stride, c.padding, c.padding, c.dilation, c.groups};
    Prim y = b.conv(f32(x, Shape(c.x)), f32(w, Shape(c.w)), c.bias ? f32(bias, Shape{c.w[0]}) : nullptr, o);
    EXPECT_EQ(unsetenv("BURN_CPU_CONV"), 0);
    return vals<float>(y);
  }
};

TEST_P(CpuConvBlocked, MatchesReferenceAndGemmPath) {
  const Case& c = GetParam();
  const std::vector<float> x = randoms(prod(c.x, 0), 1), w = randoms(prod(c.w, 0), 2), bias = randoms(c.w[0], 3);
  std::vector<int64_t> out;
  const std::vector<double> want = reference(c, x, w, bias, out);
  // Each path the shape can take: the default (Winograd or blocked), im2col + OpenBLAS, and for the
  // Winograd shapes the blocked direct kernel and each of the two tilings, F(2x2, 3x3) and F(4x4, 3x3).
  std::vector<std::vector<float>> got{run(c, x, w, bias), run(c, x, w, bias, "gemm")};
  if (c.winograd)
    for (const char* path : {"direct", "winograd2", "winograd4"}) got.push_back(run(c, x, w, bias, path));
  // Sums of up to a few thousand products of values in [-1, 1): f32 error grows with sqrt(Kc).
  const double kc = static_cast<double>(prod(c.w, 1));
  const double tol = 1e-5 * std::sqrt(kc) * 4;
  double worst = 0;
  for (size_t p = 0; p < got.size(); ++p) {
    ASSERT_EQ(got[p].size(), want.size()) << "path " << p;
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[p][i], want[i], tol) << "path " << p << " element " << i;
  }
  for (double v : want) worst = std::max(worst, std::abs(v));
  EXPECT_GT(worst, 1.0);  // outputs are not trivially small
}

// The input and weight gradients on the default paths (the Winograd forward of gy for stride-1 input
// gradients it takes, else the blocked kernels) against im2col + OpenBLAS, and the input gradient of
// the Winograd shapes also on the blocked direct kernel and each tiling; values as in the forward test.
TEST_P(CpuConvBlocked, GradientsMatchTheGemmPath) {
  const Case& c = GetParam();
  const std::vector<float> x = randoms(prod(c.x, 0), 1), w = randoms(prod(c.w, 0), 2);
  const ConvOptions o{c.stride, c.padding, c.padding, c.dilation, c.groups};
  const Prim xp = f32(x, Shape(c.x)), wp = f32(w, Shape(c.w));
  ASSERT_EQ(unsetenv("BURN_CPU_CONV"), 0);
  const Shape ys = b.conv(xp, wp, nullptr, o)->shape();
  const Prim gy = f32(randoms(ys.num_elements(), 5), ys);
  const auto grads = [&](const char* path) {
    EXPECT_EQ(path ? setenv("BURN_CPU_CONV", path, 1) : unsetenv("BURN_CPU_CONV"), 0);
    const Prims g = b.conv_backward(xp, wp, gy, o, ConvGradMask{});
    EXPECT_EQ(unsetenv("BURN_CPU_CONV"), 0);
    return std::vector<std::vector<float>>{vals<float>(g[0]), vals<float>(g[1]), vals<float>(g[2])};
  };
  const auto got = grads(nullptr), want = grads("gemm");
  // gx sums Cout x K products per element, gw and gb sum N x L of them.
  const double n_gx = static_cast<double>(c.w[0] / c.groups * prod(c.w, 2));
  const double n_gw = static_cast<double>(c.x[0] * ys.num_elements() / (ys[0] * ys[1]));
  const double tols[3] = {1e-5 * std::sqrt(n_gx) * 4, 1e-5 * std::sqrt(n_gw) * 4, 1e-5 * std::sqrt(n_gw) * 4};
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(got[k].size(), want[k].size()) << "gradient " << k;
    for (size_t i = 0; i < want[k].size(); ++i)
      ASSERT_NEAR(got[k][i], want[k][i], tols[k]) << "gradient " << k << " element " << i;
  }
  if (c.winograd)
    for (const char* path : {"direct", "winograd2", "winograd4"}) {
      const auto other = grads(path);
      for (size_t i = 0; i < want[0].size(); ++i)
        ASSERT_NEAR(other[0][i], got[0][i], tols[0]) << path << " element " << i;
    }
}

// The Winograd forward takes exactly the shapes marked for it, so none of them is silently tested on
// the direct kernel instead (and the direct-kernel shapes stay there).
TEST_P(CpuConvBlocked, WinogradTakesTheShapesMarkedForIt) {
  const Case& c = GetParam();
  std::vector<int64_t> in(c.x.begin() + 2, c.x.end()), k(c.w.begin() + 2, c.w.end()), out;
  for (size_t i = 0; i < in.size(); ++i)
    out.push_back((in[i] + 2 * c.padding[i] - c.dilation[i] * (k[i] - 1) - 1) / c.stride[i] + 1);
  const conv_detail::Geo3 g(in, out, k, c.stride, c.padding, c.dilation);
  const conv_detail::Dims m(c.x[0], c.x[1], c.w[0], c.groups, g);
  ASSERT_EQ(unsetenv("BURN_CPU_CONV"), 0);
  EXPECT_EQ(conv_detail::winograd_conv_fits(m, g), c.winograd);
  ASSERT_EQ(setenv("BURN_CPU_CONV", "direct", 1), 0);
  EXPECT_FALSE(conv_detail::winograd_conv_fits(m, g));
  ASSERT_EQ(unsetenv("BURN_CPU_CONV"), 0);
}

// conv_with_epilogue (a relu run by each task on its finished tile, a residual add and relu in one pass over
// the finished output; for the fused executor) against the separate conv, add and relu ops, bit for bit, on every
// branch and with each ISA's micro-kernels: pitch tiles (panels stored in place and panels copied out past junk
// columns), dense tiles with thin panels, tiles that are pieces of a row, 1x1 GEMMs, K in chunks and weights in panels.
// The residual's values are as large as the conv's, so the relu clips about half of the sums.
TEST_P(CpuConvBlocked, EpilogueInTheKernelEqualsTheSeparateOps) {
  const Case& c = GetParam();
  const std::vector<float> x = randoms(prod(c.x, 0), 1), w = randoms(prod(c.w, 0), 2), bias = randoms(c.w[0], 3);
  ASSERT_EQ(unsetenv("BURN_CPU_CONV"), 0);
  const ConvOptions o{c.stride, c.padding, c.padding, c.dilation, c.groups};
  const Prim xp = f32(x, Shape(c.x)), wp = f32(w, Shape(c.w)), bp = c.bias ? f32(bias, Shape{c.w[0]}) : nullptr;
  const Prim plain = b.conv(xp, wp, bp, o);
  std::vector<float> r = randoms(plain->shape().num_elements(), 4);
  for (float& v : r) v *= 3.0f;
  const Prim rp = f32(r, plain->shape());
  bool padded = false;
  for (int64_t p : c.padding) padded = padded || p != 0;
  const bool blocked = !(prod(c.w, 2) == 1 && padded);  // 1x1 convs with padding take the im2col path
  const conv_detail::ConvIsa before = conv_detail::conv_isa();
  for (conv_detail::ConvIsa isa : {conv_detail::ConvIsa::Avx2, conv_detail::ConvIsa::Avx512}) {
    if (!conv_detail::conv_isa_available(isa)) continue;
    conv_detail::set_conv_isa(isa);
    const Prim plain_isa = b.conv(xp, wp, bp, o);  // the separate ops on the same micro-kernels
    for (int variant = 0; variant < 3; ++variant) {
      const bool add = variant != 0, relu = variant != 1;
      const Prim fused = conv_with_epilogue(xp, wp, bp, o, add ? rp : nullptr, relu);
      ASSERT_EQ(fused != nullptr, blocked) << "variant " << variant;
      if (!fused) continue;
      Prim want = add ? b.add(plain_isa, rp) : plain_isa;
      if (relu) want = b.relu(want);
      const std::vector<float> got = vals<float>(fused), exp = vals<float>(want);
      ASSERT_EQ(got.size(), exp.size());
      ASSERT_EQ(0, std::memcmp(got.data(), exp.data(), got.size() * sizeof(float)))
          << "variant " << variant << ", " << conv_detail::conv_isa_name(isa);
    }
  }
  conv_detail::set_conv_isa(before);
  // A residual of another shape is left to the separate ops.
  if (blocked) EXPECT_EQ(conv_with_epilogue(xp, wp, bp, o, f32({1.0f}, Shape{1}), true), nullptr);
}

INSTANTIATE_TEST_SUITE_P(
    Branches, CpuConvBlocked,
    ::testing::Values(
        // 3x3, Mo x Kc = 300 x 360 floats > 192 KiB: three panels of 128 output channels, the last
        // of 44; a 9x11 plane takes the 6 x 16 micro-kernel.
        Case{{2, 40, 9, 11}, {300, 40, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
        // the same on a larger plane: 255 2x2 blocks, Winograd (output channels in two panels of 80).
        Case{{1, 64, 30, 33}, {160, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, true},
        // stride 2, odd sizes, dilation 2, two groups of 200 x 288 weights.
        Case{{2, 64, 13, 10}, {400, 32, 3, 3}, {2, 2}, {2, 1}, {2, 2}, 2, false},
        // a 7x7 plane with layer4-like weights cut into panels (stride 2 from 14x14).
        Case{{1, 96, 14, 14}, {256, 96, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, true},
        // 1x1 stride 1 (B read from x), with bias, odd sizes; and grouped.
        Case{{3, 37, 9, 7}, {29, 37, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},
        Case{{2, 36, 5, 13}, {30, 12, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 3, false},
        // 1x1 stride 2 and (2, 3) on odd sizes (compact copy of the strided pixels), one with a
        // panel split (600 x 100 weights) on a 7x7 output.
        Case{{2, 21, 11, 9}, {17, 21, 1, 1}, {2, 2}, {0, 0}, {1, 1}, 1, true},
        Case{{1, 100, 13, 14}, {600, 100, 1, 1}, {2, 2}, {0, 0}, {1, 1}, 1, false},
        Case{{2, 8, 10, 17}, {40, 8, 1, 1}, {2, 3}, {0, 0}, {1, 1}, 1, true},
        // stride 2 on rows wide enough for the vector gather of every other input (23 and 25 outputs).
        Case{{2, 24, 11, 45}, {40, 24, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, true},
        Case{{1, 8, 6, 50}, {12, 8, 1, 1}, {2, 2}, {0, 0}, {1, 1}, 1, false},
        // region rows built 8 outputs a store with masked loads at the padding (fill_row): a stem-like
        // 7x7 stride-2 conv with padding 3 on odd sizes (pitch 15, rows that end at the input's last
        // float), stride 2 on a 9-wide input with padding (2, 0) and stride 1 with padding 2 (pitch 10).
        Case{{1, 3, 23, 29}, {16, 3, 7, 7}, {2, 2}, {3, 3}, {1, 1}, 1, true},
        Case{{2, 16, 9, 31}, {24, 16, 3, 3}, {2, 2}, {2, 0}, {1, 1}, 1, false},
        Case{{1, 16, 6, 6}, {24, 16, 5, 5}, {1, 1}, {2, 2}, {1, 1}, 1, true},
        // 1x1 with padding (im2col path) and a large 1x1 stride-1 GEMM (several tiles and panels).
        Case{{1, 5, 6, 7}, {9, 5, 1, 1}, {1, 1}, {1, 2}, {1, 1}, 1, true},
        Case{{2, 70, 40, 41}, {300, 70, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},
        // dense tiles (real pixels only, gathered across row ends) ending in a panel of at most 4
        // pixels (thin_kernel): 7x7 (48 + 1) with bias, and 14x14 on two images (192 + 4) with
        // Kc = 333 (the thin kernel's tails of 8 and of single k).
        Case{{1, 64, 7, 7}, {96, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
        Case{{2, 37, 14, 14}, {40, 37, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false},
        // 14x14 with weights in panels: tiles of 192 or 96 pixels whose last 4 join the tile before.
        Case{{1, 64, 14, 14}, {300, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
        // 1-D and 3-D: a 1x1 stride-2 conv and a 3x3x3 conv with panels.
        Case{{2, 6, 29}, {11, 6, 1}, {2}, {0}, {1}, 1, true},
        Case{{1, 24, 5, 6, 7}, {200, 24, 3, 3, 3}, {1, 2, 1}, {1, 1, 0}, {1, 1, 1}, 1, true},
        // Winograd: 200 input channels (two passes of at most 128) and 37 outputs (a last row block of
        // 1) on odd sizes over two images (runs of blocks that end at rows and images), padding 0 and 2
        // (patches that start outside the plane), the fewest output channels it takes (17, 20), and
        // three images whose input gradient (72 -> 64 channels) takes it too.
        Case{{2, 200, 17, 23}, {37, 200, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, true},
        Case{{1, 64, 40, 41}, {20, 64, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, false, true},
        Case{{1, 64, 31, 30}, {17, 64, 3, 3}, {1, 1}, {2, 2}, {1, 1}, 1, true, true},
        Case{{3, 64, 14, 15}, {72, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, true},
        // ResNet's 256-channel 14x14 layer at batch 1 (49 blocks); and what it leaves: too few blocks (a 7x7
        // plane at batch 1, 16 blocks, as ResNet's 512-channel layer), 63 input channels, and dilation 2.
        Case{{1, 256, 14, 14}, {256, 256, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, true},
        Case{{1, 256, 7, 7}, {256, 256, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
        Case{{1, 63, 40, 40}, {32, 63, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false},
        Case{{1, 32, 40, 40}, {32, 32, 3, 3}, {1, 1}, {2, 2}, {2, 2}, 1, false}));

// The blocked kernels with the AVX2 and the AVX-512 micro-kernels (forced through set_conv_isa): the forward
// against the double reference, the input, weight and bias gradients against im2col + OpenBLAS, and the two
// kernel sets against each other, on shapes whose edges the 8- and 16-lane register blocks cut differently:
// channel counts that are no multiple of 8 or 16, padding, stride 2 (input gradient by columns), groups with
// dilation, 1x1 convs (8 x 32 and 8 x 48 pointwise tiles) and a 32 -> 32 plane of 34x30.
class CpuConvIsa : public CpuBackendTest {};

TEST_F(CpuConvIsa, Avx512KernelsMatchAvx2AndTheReference) {
  if (!conv_detail::conv_isa_available(conv_detail::ConvIsa::Avx512)) GTEST_SKIP() << "no AVX512F";
  ASSERT_EQ(unsetenv("BURN_CPU_CONV"), 0);
  const std::vector<Case> cases{Case{{2, 19, 11, 13}, {21, 19, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
                                Case{{2, 13, 12, 15}, {35, 13, 3, 3}, {2, 2}, {1, 0}, {1, 1}, 1, true},
                                Case{{1, 18, 9, 10}, {12, 6, 3, 3}, {1, 1}, {2, 2}, {2, 2}, 3, false},
                                Case{{2, 17, 7, 9}, {19, 17, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},
                                Case{{1, 20, 30, 31}, {40, 20, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, false},
                                Case{{1, 32, 34, 30}, {32, 32, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
                                // Winograd's tasks of 24 (AVX2) and 32 blocks (AVX-512): 216 blocks in two
                                // passes of input channels, 37 outputs (rows 8 x 4 + 5); and padding 2.
                                Case{{2, 200, 17, 23}, {37, 200, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, true},
                                Case{{1, 64, 31, 30}, {17, 64, 3, 3}, {1, 1}, {2, 2}, {1, 1}, 1, true, true}};
  const conv_detail::ConvIsa before = conv_detail::set_conv_isa(conv_detail::ConvIsa::Avx2);
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c));
    const std::vector<float> x = randoms(prod(c.x, 0), 1), w = randoms(prod(c.w, 0), 2), bias = randoms(c.w[0], 3);
    const ConvOptions o{c.stride, c.padding, c.padding, c.dilation, c.groups};
    const Prim xp = f32(x, Shape(c.x)), wp = f32(w, Shape(c.w)), bp = c.bias ? f32(bias, Shape{c.w[0]}) : nullptr;
    std::vector<int64_t> out;
    const std::vector<double> want = reference(c, x, w, bias, out);
    const Shape ys = b.conv(xp, wp, bp, o)->shape();
    const Prim gy = f32(randoms(ys.num_elements(), 5), ys);
    const auto run = [&](const char* path) {
      EXPECT_EQ(path ? setenv("BURN_CPU_CONV", path, 1) : unsetenv("BURN_CPU_CONV"), 0);
      const Prims g = b.conv_backward(xp, wp, gy, o, ConvGradMask{});
      std::vector<std::vector<float>> r{vals<float>(b.conv(xp, wp, bp, o)), vals<float>(g[0]), vals<float>(g[1]),
                                        vals<float>(g[2])};
      EXPECT_EQ(unsetenv("BURN_CPU_CONV"), 0);
      return r;
    };
    const auto gemm = run("gemm");
    const double n_gx = static_cast<double>(c.w[0] / c.groups * prod(c.w, 2));
    const double n_gw = static_cast<double>(c.x[0] * ys.num_elements() / (ys[0] * ys[1]));
    const double tols[4] = {1e-5 * std::sqrt(static_cast<double>(prod(c.w, 1))) * 4, 1e-5 * std::sqrt(n_gx) * 4,
                            1e-5 * std::sqrt(n_gw) * 4, 1e-5 * std::sqrt(n_gw) * 4};
    std::vector<std::vector<std::vector<float>>> got;
    for (conv_detail::ConvIsa isa : {conv_detail::ConvIsa::Avx2, conv_detail::ConvIsa::Avx512}) {
      conv_detail::set_conv_isa(isa);
      ASSERT_EQ(conv_detail::conv_isa(), isa);
      got.push_back(run(nullptr));
      const auto& r = got.back();
      ASSERT_EQ(r[0].size(), want.size()) << conv_detail::conv_isa_name(isa);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(r[0][i], want[i], tols[0]) << conv_detail::conv_isa_name(isa) << " y element " << i;
      if (c.winograd) {  // the F(4x4, 3x3) tiling on this ISA's tasks (24 or 32 blocks)
        const auto f43 = run("winograd4");
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_NEAR(f43[0][i], want[i], tols[0]) << conv_detail::conv_isa_name(isa) << " winograd4 y element " << i;
      }
      for (int k = 1; k < 4; ++k) {
        ASSERT_EQ(r[static_cast<size_t>(k)].size(), gemm[static_cast<size_t>(k)].size());
        for (size_t i = 0; i < gemm[static_cast<size_t>(k)].size(); ++i)
          ASSERT_NEAR(r[static_cast<size_t>(k)][i], gemm[static_cast<size_t>(k)][i], tols[k])
              << conv_detail::conv_isa_name(isa) << " gradient " << k << " element " << i;
      }
    }
    for (int k = 0; k < 4; ++k)
      for (size_t i = 0; i < got[0][static_cast<size_t>(k)].size(); ++i)
        ASSERT_NEAR(got[1][static_cast<size_t>(k)][i], got[0][static_cast<size_t>(k)][i], tols[k])
            << "result " << k << " element " << i;
  }
  conv_detail::set_conv_isa(before);
}

// A weight that inference convolves again unwritten has its Winograd transform made once, at the second call
// (as the packed GEMM's weights, ops/pack_cache.hpp), and the cached transform gives the bits of the transform made
// for one call; a weight of another storage with the same shape gets its own.
TEST_F(CpuConvIsa, WinogradTransformsAReusedWeightOnce) {
  ASSERT_EQ(unsetenv("BURN_CPU_CONV"), 0);
  const Case c{{1, 64, 30, 33}, {160, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, true};
  const conv_detail::Geo3 g({30, 33}, {30, 33}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  if (!conv_detail::blocked_conv_enabled() || !conv_detail::winograd_conv_fits(conv_detail::Dims(1, 64, 160, 1, g), g))
    GTEST_SKIP() << "the Winograd forward does not run here";
  const ConvOptions o{c.stride, c.padding, c.padding, c.dilation, c.groups};
  const Prim xp = f32(randoms(prod(c.x, 0), 1), Shape(c.x)), bp = f32(randoms(c.w[0], 3), Shape{c.w[0]});
  const std::vector<float> w = randoms(prod(c.w, 0), 2);
  const Prim wp = f32(w, Shape(c.w));
  const uint64_t before = conv_detail::winograd_weight_transforms();
  std::vector<std::vector<float>> ys;
  for (int call = 0; call < 3; ++call) {
    ys.push_back(vals<float>(b.conv(xp, wp, bp, o)));
    EXPECT_EQ(conv_detail::winograd_weight_transforms(), before + (call == 0 ? 0 : 1)) << "call " << call;
  }
  for (int call = 1; call < 3; ++call)
    ASSERT_EQ(0, std::memcmp(ys[0].data(), ys[static_cast<size_t>(call)].data(), ys[0].size() * sizeof(float)))
        << "call " << call;
  std::vector<float> w2 = w;
  for (float& v : w2) v = -v;
  const std::vector<float> y2 = vals<float>(b.conv(xp, f32(w2, Shape(c.w)), nullptr, o));
  const std::vector<float> bias = vals<float>(bp);
  const size_t plane = ys[0].size() / static_cast<size_t>(c.w[0]);
  for (size_t i = 0; i < y2.size(); ++i)  // conv(x, -w) = -(conv(x, w) + bias - bias)
    ASSERT_NEAR(y2[i], -(ys[0][i] - bias[i / plane]), 1e-4) << "element " << i;
}

// A kernel set the CPU lacks is refused by name.
TEST_F(CpuConvIsa, SetConvIsaRefusesKernelsTheCpuLacks) {
  for (conv_detail::ConvIsa isa : {conv_detail::ConvIsa::Avx2, conv_detail::ConvIsa::Avx512})
    if (!conv_detail::conv_isa_available(isa)) EXPECT_THROW(conv_detail::set_conv_isa(isa), Unsupported);
  if (conv_detail::conv_isa_available(conv_detail::ConvIsa::Avx2))
    EXPECT_EQ(conv_detail::set_conv_isa(conv_detail::set_conv_isa(conv_detail::ConvIsa::Avx2)),
              conv_detail::ConvIsa::Avx2);
}

// conv_backward and conv_transpose_backward asked for each subset of {x, weight, bias}: the gradients asked
// for are bitwise those of the call that asks for all three, the others null, on every path the shapes take:
// the Winograd input gradient (3x3 stride 1), the blocked kernels (stride 2, groups, 1-D, 3-D) with each kernel
// set the CPU has, their direct kernel and im2col + OpenBLAS (BURN_CPU_CONV), f64, and f16 and bf16 through
// the plugin's half decorator.
class CpuConvMask : public CpuBackendTest {
 protected:
  static std::vector<unsigned char> bits(Backend& be, const Prim& p) {
    const TensorData d = be.into_data(p);
    const auto* raw = static_cast<const unsigned char*>(d.raw());
    return {raw, raw + d.bytes().size()};
  }
  // Every mask against the full call of the same backend, op and inputs.
  template <typename Call>
  static void expect_masked_bitwise(Backend& be, const Call& call, const std::string& what) {
    const Prims full = call(ConvGradMask{});
    ASSERT_EQ(full.size(), 3u) << what;
    for (const Prim& p : full) ASSERT_TRUE(p) << what;
    for (int bitsel = 0; bitsel < 8; ++bitsel) {
      const ConvGradMask mask{(bitsel & 1) != 0, (bitsel & 2) != 0, (bitsel & 4) != 0};
      const bool asked[3] = {mask.x, mask.weight, mask.bias};
      const Prims got = call(mask);
      ASSERT_EQ(got.size(), 3u) << what;
      for (size_t i = 0; i < 3; ++i) {
        ASSERT_EQ(static_cast<bool>(got[i]), asked[i]) << what << " mask " << bitsel << " gradient " << i;
        if (!asked[i]) continue;
        EXPECT_EQ(got[i]->dtype(), full[i]->dtype()) << what << " mask " << bitsel << " gradient " << i;
        EXPECT_EQ(got[i]->shape(), full[i]->shape()) << what << " mask " << bitsel << " gradient " << i;
        EXPECT_TRUE(bits(be, got[i]) == bits(be, full[i])) << what << " mask " << bitsel << " gradient " << i;
      }
    }
  }
};

TEST_F(CpuConvMask, EachSubsetIsBitwiseTheFullCallOnEveryPath) {
  ASSERT_EQ(unsetenv("BURN_CPU_CONV"), 0);
  const std::vector<Case> cases{Case{{2, 16, 12, 12}, {24, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, true},
                                Case{{2, 13, 11, 9}, {19, 13, 3, 3}, {2, 2}, {1, 0}, {1, 1}, 1, true},
                                Case{{1, 12, 9, 10}, {12, 4, 3, 3}, {1, 1}, {2, 2}, {2, 2}, 3, true},
                                Case{{2, 8, 7, 9}, {10, 8, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},
                                Case{{2, 6, 17}, {8, 6, 5}, {2}, {2}, {1}, 1, true},
                                Case{{1, 4, 5, 6, 7}, {6, 4, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, true}};
  std::vector<conv_detail::ConvIsa> isas;
  for (conv_detail::ConvIsa isa : {conv_detail::ConvIsa::Avx2, conv_detail::ConvIsa::Avx512})
    if (conv_detail::conv_isa_available(isa)) isas.push_back(isa);
  const conv_detail::ConvIsa before = isas.empty() ? conv_detail::ConvIsa::Avx2 : conv_detail::conv_isa();
  const std::unique_ptr<Backend> plugin = make_cpu_backend();  // with the f16/bf16 decorator
  int checked = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c));
    const ConvOptions o{c.stride, c.padding, c.padding, c.dilation, c.groups};
    // The transposed conv of the same weights runs from the conv's output shape back to x's.
    ConvTransposeOptions t;
    t.stride = c.stride, t.padding = c.padding, t.dilation = c.dilation, t.groups = c.groups;
    const Prim x = f32(randoms(prod(c.x, 0), 1), Shape(c.x)), w = f32(randoms(prod(c.w, 0), 2), Shape(c.w));
    const Shape ys = b.conv(x, w, nullptr, o)->shape();
    const Prim gy = f32(randoms(ys.num_elements(), 5), ys);
    // The conv's weight read as a transposed one ([C_in = Cout, C_out / groups, k]), with the output padding
    // that gives back x's spatial size.
    for (size_t i = 0; i + 2 < c.x.size(); ++i)
      t.padding_out.push_back(
          c.x[i + 2] - ((ys[i + 2] - 1) * c.stride[i] - 2 * c.padding[i] + c.dilation[i] * (c.w[i + 2] - 1) + 1));
    const auto both = [&](Backend& be, const Prim& xx, const Prim& ww, const Prim& gg, const std::string& what) {
      expect_masked_bitwise(
          be, [&](const ConvGradMask& m) { return be.conv_backward(xx, ww, gg, o, m); }, "conv " + what);
      // conv_transpose's x is the conv's grad_out, its grad_out the conv's input.
      expect_masked_bitwise(
          be, [&](const ConvGradMask& m) { return be.conv_transpose_backward(gg, ww, xx, t, m); },
          "conv_transpose " + what);
      ++checked;
    };
    for (const char* path : {static_cast<const char*>(nullptr), "gemm", "direct"}) {
      if (path) ASSERT_EQ(setenv("BURN_CPU_CONV", path, 1), 0);
      for (conv_detail::ConvIsa isa : isas) {
        conv_detail::set_conv_isa(isa);
        both(b, x, w, gy, std::string("f32 ") + (path ? path : "default") + " " + conv_detail::conv_isa_name(isa));
      }
      if (isas.empty()) both(b, x, w, gy, std::string("f32 ") + (path ? path : "default"));
      ASSERT_EQ(unsetenv("BURN_CPU_CONV"), 0);
    }
    if (!isas.empty()) conv_detail::set_conv_isa(before);
    both(b, b.cast(x, DType::F64), b.cast(w, DType::F64), b.cast(gy, DType::F64), "f64");
    for (DType h : {DType::F16, DType::BF16})
      both(*plugin, plugin->cast(x, h), plugin->cast(w, h), plugin->cast(gy, h), std::string(dtype_name(h)));
  }
  EXPECT_GE(checked, 6 * 6);
}

}  // namespace
}  // namespace burn::cpu
