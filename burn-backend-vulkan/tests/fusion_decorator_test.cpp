// fusion<vulkan> through the fusion decorator (burn-fusion): a softmax, a layer_norm, a Linear + bias + gelu
// and a conv + bias + relu, each with what a model puts around it, run as one fused program (the inspector's
// plan and stats) in one Vulkan dispatch, where op by op on `vulkan` they take one dispatch per op; the
// values equal op-by-op `vulkan`'s within the documented tolerance (README.md, "fusion<vulkan>").
#include <gtest/gtest.h>

#include <cmath>
#include <string_view>

#include "burn/fusion/fusion.hpp"
#include "burn/tensor/api.hpp"
#include "burn/tensor/module.hpp"
#include "gpu_test_support.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

using H = api::H;
using test::uniform_f32;

// Vulkan dispatches on `d`'s device so far (its stats are per Vulkan context, shared by vulkan and
// fusion<vulkan> on one physical device).
uint64_t dispatches(const Device& vk) {
  auto* s = static_cast<VulkanStatsSource*>(vk.backend()->query_interface("vulkan-stats"));
  return s ? s->stats().dispatches : 0;
}

// f on `vulkan` and on `fusion<vulkan>`, values compared: one fused program and nothing run op by op.
test::FusionRun run(const char* what, const std::vector<Shape>& shapes,
                    const std::function<H(const std::vector<H>&)>& f) {
  const test::FusionRun r = test::run_fused_and_op_by_op("vulkan", dispatches, what, shapes, f);
  EXPECT_EQ(r.stats.fused_runs, 1u) << what;
  EXPECT_EQ(r.stats.eager_ops, 0u) << what;
  return r;
}

class VulkanFusionDecorator : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = test::unavailable("fusion<vulkan>")) GTEST_SKIP() << "no usable Vulkan device: " << *why;
  }
};

TEST_F(VulkanFusionDecorator, ScaledMaskedSoftmaxIsOneDispatch) {
  const test::FusionRun c = run(
      "softmax(x * 0.125 + mask)", {Shape{2, 4, 16, 16}, Shape{16, 16}},
      [](const std::vector<H>& v) { return api::softmax(api::add(api::mul_scalar(v[0], Scalar(0.125)), v[1]), -1); });
  EXPECT_EQ(c.fused, 1u);
  EXPECT_EQ(c.op_by_op, 3u);
}

TEST_F(VulkanFusionDecorator, ResidualLayerNormIsOneDispatch) {
  const test::FusionRun c =
      run("layer_norm(x + residual, w, b)", {Shape{4, 10, 64}, Shape{4, 10, 64}, Shape{64}, Shape{64}},
          [](const std::vector<H>& v) { return api::layer_norm(api::add(v[0], v[1]), v[2], v[3], 1, 1e-5); });
  EXPECT_EQ(c.fused, 1u);
  EXPECT_EQ(c.op_by_op, 2u);
}

TEST_F(VulkanFusionDecorator, LinearWithBiasAndGeluIsOneDispatch) {
  const test::FusionRun c =
      run("gelu(x W^T + b)", {Shape{8, 32}, Shape{24, 32}, Shape{24}}, [](const std::vector<H>& v) {
        return api::unary(OpId::gelu, api::add(api::matmul(v[0], api::swap_dims(v[1], 0, 1)), v[2]));
      });
  EXPECT_EQ(c.fused, 1u);
  EXPECT_EQ(c.op_by_op, 3u);
}

TEST_F(VulkanFusionDecorator, ConvWithBiasAndReluIsOneDispatch) {
  ConvOptions o;
  o.padding = {1, 1};
  const test::FusionRun c =
      run("relu(conv2d(x, w, b))", {Shape{2, 3, 8, 8}, Shape{4, 3, 3, 3}, Shape{4}},
          [&](const std::vector<H>& v) { return api::unary(OpId::relu, api::conv(v[0], v[1], v[2], o)); });
  EXPECT_EQ(c.fused, 1u);
  EXPECT_EQ(c.op_by_op, 2u);
}

// A reduction over a line longer than the device lets one kernel walk (lavapipe: 2^22 elements) is planned
// as fused, declined by the executor's fits() at run time and run op by op, with op-by-op values.
TEST_F(VulkanFusionDecorator, AReductionTooLongForOneKernelRunsOpByOp) {
  Device vk = Device::get("vulkan"), fus = Device::get("fusion<vulkan>");
  const Shape s{int64_t{1} << 22};
  for (const char* what : {"sum_dim(x * 0.5)", "softmax(x * 0.5)"}) {
    SCOPED_TRACE(what);
    auto f = [&](const H& x) {
      const H y = api::mul_scalar(x, Scalar(0.5));
      return std::string_view(what).starts_with("sum") ? api::reduce_dim(OpId::sum_dim, y, 0) : api::softmax(y, 0);
    };
    const H a = f(api::from_data(vk, uniform_f32(s, 7), Kind::Float));
    const H b = f(api::from_data(fus, uniform_f32(s, 7), Kind::Float));
    const std::vector<double> w = api::into_data(a).convert(DType::F64).to_vec<double>();
    const std::vector<double> g = api::into_data(b).convert(DType::F64).to_vec<double>();
    ASSERT_EQ(g.size(), w.size());
    size_t off = 0;
    for (size_t i = 0; i < g.size(); ++i) off += std::abs(g[i] - w[i]) > 1e-5 * (1 + std::abs(w[i]));
    EXPECT_EQ(off, 0u);
  }
}

}  // namespace
}  // namespace burn::vulkan
