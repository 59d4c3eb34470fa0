// The fused executor: a hand-made elementwise program gives, in one dispatch, what the eager ops give.
#include <gtest/gtest.h>

#include "burn/tensor/fused.hpp"
#include "runtime/instance.hpp"
#include "vulkan_backend.hpp"

namespace burn::vulkan {
namespace {

std::shared_ptr<Context> context_or_null() {
  try {
    auto inst = Instance::get();
    if (inst->best_score() == 0) return nullptr;
    return context_for(inst->choose(""));
  } catch (const std::exception&) {
    return nullptr;
  }
}

FusedInstr instr(OpId op, uint16_t a, uint16_t b = 0, uint8_t n = 1) {
  FusedInstr in;
  in.op = op;
  in.args[0] = a;
  in.args[1] = b;
  in.n_args = n;
  return in;
}

TEST(VulkanFused, AChainWithBroadcastAScalarAndABoolOutputIsOneDispatch) {
  auto ctx = context_or_null();
  if (!ctx) GTEST_SKIP() << "no usable Vulkan device";
  VulkanBackend be(ctx, "vulkan");
  auto* ex = static_cast<FusedExecutor*>(be.query_interface(kFusedElementwiseInterface));
  ASSERT_NE(ex, nullptr);
  const TensorData xd =
      TensorData::from_vector<float>({-1, 0, 1, 2, 3, 4, -2, 0.5f, 1.5f, 2.5f, -0.25f, 0.75f}, Shape{4, 3});
  const TensorData yd = TensorData::from_vector<float>({0.5f, -0.5f, 1}, Shape{3});
  Prim x = be.from_data(xd), y = be.from_data(yd);

  FusedProgram p;
  p.shape = Shape{4, 3};
  p.num_inputs = 2;
  p.reg_dtype = {DType::F32, DType::F32, DType::F32, DType::F32, DType::Bool};
  p.code.push_back(instr(OpId::add, 0, 1, 2));  // r2 = x + y
  p.code.push_back(instr(OpId::exp, 2));        // r3 = exp(r2)
  FusedInstr gt = instr(OpId::greater_elem, 3);
  gt.scalars[0] = Scalar(2.0);
  gt.n_args = 1;
  p.code.push_back(gt);  // r4 = r3 > 2
  p.outputs = {3, 4};
  ASSERT_TRUE(ex->can_run(p));

  auto* stats = static_cast<VulkanStatsSource*>(be.query_interface("vulkan-stats"));
  const uint64_t before = stats->stats().dispatches;
  Prims outs = ex->run(p, {x, y});
  EXPECT_EQ(stats->stats().dispatches - before, 1u);
  ASSERT_EQ(outs.size(), 2u);

  Prim e = be.exp(be.add(x, y));
  Prim g = be.greater_elem(e, Scalar(2.0));
  EXPECT_EQ(be.into_data(outs[0]).to_vec<float>(), be.into_data(e).to_vec<float>());
  EXPECT_EQ(be.into_data(outs[1]).to_vec<bool>(), be.into_data(g).to_vec<bool>());
}

TEST(VulkanFused, ReductionsAreLeftToTheOpByOpPath) {
  auto ctx = context_or_null();
  if (!ctx) GTEST_SKIP() << "no usable Vulkan device";
  VulkanBackend be(ctx, "vulkan");
  auto* ex = static_cast<FusedExecutor*>(be.query_interface(kFusedElementwiseInterface));
  FusedProgram p;
  p.shape = Shape{2, 3};
  p.num_inputs = 1;
  p.reg_dtype = {DType::F32, DType::F32};
  p.code.push_back(instr(OpId::sum_dim, 0));
  p.outputs = {1};
  EXPECT_FALSE(ex->can_run(p));
}

}  // namespace
}  // namespace burn::vulkan
