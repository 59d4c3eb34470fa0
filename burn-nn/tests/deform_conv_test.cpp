// DeformConv2d against torchvision.ops.DeformConv2d (fixtures/deform_conv.json, gen_fixtures_deform.py):
// forward on cpu, gradients of input, offset, mask and weight on autodiff<cpu>.
#include <gtest/gtest.h>

#include "burn/nn/deform_conv.hpp"
#include "fixture.hpp"

using namespace burn;
using burn::test::expect_close;
using burn::test::fixture_tensor;

TEST(DeformConv2d, MatchesTorchvision) {
  const nlohmann::json fx = burn::test::load_fixture("deform_conv.json");
  const Device ad = Device::get("autodiff<cpu>");
  for (const char* name : {"plain", "grouped_masked"}) {
    const nlohmann::json& c = fx[name];
    const std::vector<int64_t> k = c["config"].get<std::vector<int64_t>>();  // in out k stride pad dil groups og
    nn::DeformConv2d m = nn::DeformConv2dConfig{.channels = {k[0], k[1]},
                                                .kernel_size = {k[2], k[2]},
                                                .stride = {k[3], k[3]},
                                                .dilation = {k[5], k[5]},
                                                .padding = {k[4], k[4]},
                                                .weight_groups = k[6],
                                                .offset_groups = k[7]}
                             .init(ad);
    m.weight.set(fixture_tensor<4>(c["weight"], ad));
    m.bias->set(fixture_tensor<1>(c["bias"], ad));
    const Tensor<4> x = fixture_tensor<4>(c["x"], ad).require_grad();
    const Tensor<4> off = fixture_tensor<4>(c["offset"], ad).require_grad();
    std::optional<Tensor<4>> mask;
    if (c.contains("mask")) mask = fixture_tensor<4>(c["mask"], ad).require_grad();
    const Tensor<4> y = m.forward(x, off, mask);
    expect_close(y.into_data(), c["y"], 1e-5, 1e-4, name);
    Gradients g = (y * fixture_tensor<4>(c["grad_out"], ad)).sum().backward();
    expect_close(x.grad(g)->into_data(), c["grad_x"], 1e-5, 1e-4, std::string(name) + " grad_x");
    expect_close(off.grad(g)->into_data(), c["grad_offset"], 1e-5, 1e-4, std::string(name) + " grad_offset");
    expect_close(m.weight.val().grad(g)->into_data(), c["grad_weight"], 1e-5, 1e-4, std::string(name) + " grad_w");
    if (mask) expect_close(mask->grad(g)->into_data(), c["grad_mask"], 1e-5, 1e-4, std::string(name) + " grad_mask");
  }
}

TEST(DeformConv2d, ErrorsAndConfig) {
  const Device cpu = Device::get("cpu");
  const nn::DeformConv2d m = nn::DeformConv2dConfig{.channels = {4, 6}, .kernel_size = {3, 3}}.init(cpu);
  EXPECT_THROW(m.forward(Tensor<4>::zeros({1, 3, 5, 5}, cpu), Tensor<4>::zeros({1, 18, 3, 3}, cpu)), ShapeError);
  EXPECT_THROW((nn::DeformConv2dConfig{.channels = {4, 6}, .kernel_size = {3, 3}, .weight_groups = 3}.init(cpu)),
               ValueError);
  const nn::DeformConv2dConfig back = nn::DeformConv2dConfig::from_json(
      nn::DeformConv2dConfig{.channels = {2, 4}, .kernel_size = {3, 1}, .offset_groups = 2}.to_json());
  EXPECT_EQ(back.kernel_size, (std::array<int64_t, 2>{3, 1}));
  EXPECT_EQ(back.offset_groups, 2);
  EXPECT_EQ(m.num_params(), 6 * 4 * 9 + 6);
}
