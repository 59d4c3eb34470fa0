// fusion<opencl> through the fusion decorator (burn-fusion): elementwise chains, with broadcast and strided
// inputs, casts, masks and an integer division, reductions (sum_dim, mean_dim, argmax, softmax, log_softmax,
// layer_norm, rms_norm) with their elementwise prologue and epilogue, and conv / conv_transpose (and matmul
// where CLBlast does not run it) with their epilogue, run as one fused program
// (the inspector's stats) in one OpenCL launch, where op by op on `opencl` they take one launch per op; the
// values equal op-by-op `opencl`'s within the tolerance fusion<vulkan> documents.
#include <gtest/gtest.h>

#include "burn/fusion/fusion.hpp"
#include "burn/tensor/api.hpp"
#include "burn/tensor/module.hpp"
#include "gpu_test_support.hpp"
#include "runtime/context.hpp"

namespace burn::opencl {
namespace {

using H = api::H;
using test::uniform_f32;

// OpenCL kernels enqueued on `d`'s device so far (the counters are per context, shared by opencl and
// fusion<opencl> on one device).
uint64_t launches(const Device& d) {
  auto* s = static_cast<OpenClStats*>(d.backend()->query_interface(kOpenClStatsInterface));
  return s ? s->launches : 0;
}

// f on `opencl` and on `fusion<opencl>`: values compared, launch counts returned.
test::FusionRun run(const char* what, const std::vector<Shape>& shapes,
                    const std::function<H(const std::vector<H>&)>& f) {
  return test::run_fused_and_op_by_op("opencl", launches, what, shapes, f);
}

class OpenClFusion : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = test::unavailable("fusion<opencl>")) GTEST_SKIP() << "no usable OpenCL device: " << *why;
  }
};

TEST_F(OpenClFusion, BroadcastChainIsOneLaunch) {
  const test::FusionRun c = run("gelu(x * 0.5 + bias) - x", {Shape{4, 33}, Shape{33}}, [](const std::vector<H>& v) {
    return api::sub(api::unary(OpId::gelu, api::add(api::mul_scalar(v[0], Scalar(0.5)), v[1])), v[0]);
  });
  EXPECT_EQ(c.stats.fused_runs, 1u);
  EXPECT_EQ(c.stats.eager_ops, 0u);
  EXPECT_EQ(c.fused, 1u);
  EXPECT_EQ(c.op_by_op, 4u);
}

// A transposed (strided) input, a comparison, a mask and a cast to int and back: one launch.
TEST_F(OpenClFusion, StridedMaskedCastChainIsOneLaunch) {
  const test::FusionRun c =
      run("cast(mask_where(x^T > 0, y, exp(x^T)), i32) * 1.0", {Shape{6, 5}, Shape{5, 6}}, [](const std::vector<H>& v) {
        const H xt = api::swap_dims(v[0], 0, 1);
        const H m = api::compare_elem(OpId::greater_elem, xt, Scalar(0.0));
        const H w = api::mask_where(api::unary(OpId::exp, xt), m, v[1]);
        return api::cast(api::mul_scalar(api::cast(w, DType::I32), Scalar(3)), DType::F32);
      });
  EXPECT_EQ(c.stats.fused_runs, 1u);
  EXPECT_EQ(c.stats.eager_ops, 0u);
  EXPECT_EQ(c.fused, 1u);
  EXPECT_GE(c.op_by_op, 5u);
}

// A reduction with its prologue and epilogue is one launch: lines of 16 (an invocation per line).
TEST_F(OpenClFusion, ScaledMaskedSoftmaxWithEpilogueIsOneLaunch) {
  const test::FusionRun c =
      run("softmax(x * 0.125 + mask) * 2 + 1", {Shape{2, 4, 16, 16}, Shape{16, 16}}, [](const std::vector<H>& v) {
        const H s = api::softmax(api::add(api::mul_scalar(v[0], Scalar(0.125)), v[1]), -1);
        return api::add_scalar(api::mul_scalar(s, Scalar(2)), Scalar(1));
      });
  EXPECT_EQ(c.stats.fused_runs, 1u);
  EXPECT_EQ(c.stats.eager_ops, 0u);
  EXPECT_EQ(c.fused, 1u);
  EXPECT_EQ(c.op_by_op, 5u);
}

// Lines of 300 and 256: a work-group per line, its trees in local memory.
TEST_F(OpenClFusion, LongLinesReduceInWorkGroups) {
  const test::FusionRun s = run("log_softmax(x - 1) * 3", {Shape{5, 300}}, [](const std::vector<H>& v) {
    return api::mul_scalar(api::log_softmax(api::sub_scalar(v[0], Scalar(1.0)), 1), Scalar(3));
  });
  EXPECT_EQ(s.stats.fused_runs, 1u);
  EXPECT_EQ(s.fused, 1u);
  const test::FusionRun n =
      run("layer_norm(x + residual, w, b)", {Shape{4, 3, 256}, Shape{4, 3, 256}, Shape{256}, Shape{256}},
          [](const std::vector<H>& v) { return api::layer_norm(api::add(v[0], v[1]), v[2], v[3], 1, 1e-5); });
  EXPECT_EQ(n.stats.fused_runs, 1u);
  EXPECT_EQ(n.fused, 1u);
  EXPECT_EQ(n.op_by_op, 2u);
  const test::FusionRun r =
      run("rms_norm(x * x, w, 2 dims) - x", {Shape{2, 16, 16}, Shape{16, 16}},
          [](const std::vector<H>& v) { return api::sub(api::rms_norm(api::mul(v[0], v[0]), v[1], 2, 1e-6), v[0]); });
  EXPECT_EQ(r.stats.fused_runs, 1u);
  EXPECT_EQ(r.fused, 1u);
}

// Folds along a middle dim of a transposed (strided) input, their epilogue reading a broadcast input of the
// result's shape: one launch each; argmax's i64 indices as op by op.
TEST_F(OpenClFusion, DimFoldsOverAStridedInputAreOneLaunch) {
  for (const OpId op : {OpId::sum_dim, OpId::mean_dim, OpId::max_dim, OpId::min_dim}) {
    const test::FusionRun c = run(op_info(op).name, {Shape{5, 4, 3}, Shape{3, 1, 5}}, [&](const std::vector<H>& v) {
      const H x = api::swap_dims(v[0], 0, 2);  // [3, 4, 5], strided
      return api::add(api::mul_scalar(api::reduce_dim(op, api::mul(x, x), 1), Scalar(0.5)), v[1]);
    });
    EXPECT_EQ(c.stats.fused_runs, 1u) << op_info(op).name;
    EXPECT_EQ(c.fused, 1u) << op_info(op).name;
  }
  const test::FusionRun a = run("argmax(x^T * 2, 1)", {Shape{5, 4, 3}}, [](const std::vector<H>& v) {
    return api::reduce_dim(OpId::argmax, api::mul_scalar(api::swap_dims(v[0], 0, 2), Scalar(2)), 1);
  });
  EXPECT_EQ(a.stats.fused_runs, 1u);
  EXPECT_EQ(a.fused, 1u);
}

// A conv and a conv_transpose with their bias, a residual add and an activation: one launch each; a matmul
// runs CLBlast's GEMM on its own, its epilogue fused apart.
TEST_F(OpenClFusion, ConvWithBiasResidualAndReluIsOneLaunch) {
  ConvOptions o;
  o.padding = {1, 1};
  const test::FusionRun c = run(
      "relu(conv2d(x, w, b) + r)", {Shape{2, 3, 8, 8}, Shape{4, 3, 3, 3}, Shape{4}, Shape{2, 4, 8, 8}},
      [&](const std::vector<H>& v) { return api::unary(OpId::relu, api::add(api::conv(v[0], v[1], v[2], o), v[3])); });
  EXPECT_EQ(c.stats.fused_runs, 1u);
  EXPECT_EQ(c.stats.eager_ops, 0u);
  EXPECT_EQ(c.fused, 1u);
  EXPECT_EQ(c.op_by_op, 3u);
  ConvTransposeOptions t;
  t.stride = {2, 2};
  const test::FusionRun ct =
      run("gelu(conv_transpose2d(x, w, b)) * 0.5", {Shape{2, 4, 5, 5}, Shape{4, 3, 3, 3}, Shape{3}},
          [&](const std::vector<H>& v) {
            return api::mul_scalar(api::unary(OpId::gelu, api::conv_transpose(v[0], v[1], v[2], t)), Scalar(0.5));
          });
  EXPECT_EQ(ct.stats.fused_runs, 1u);
  EXPECT_EQ(ct.fused, 1u);
  const test::FusionRun mm =
      run("gelu(x W^T + b)", {Shape{8, 32}, Shape{24, 32}, Shape{24}}, [](const std::vector<H>& v) {
        return api::unary(OpId::gelu, api::add(api::matmul(v[0], api::swap_dims(v[1], 0, 1)), v[2]));
      });
  EXPECT_EQ(mm.stats.eager_ops, 1u);
  EXPECT_LT(mm.fused, mm.op_by_op);
}

// Where CLBlast does not run (here BURN_OPENCL_BLAS=off), a matmul with its bias, a residual and an activation
// is one launch of matmul.kernel with its epilogue: a transposed rhs (a Linear's weight), the residual strided.
TEST_F(OpenClFusion, MatmulWithBiasAndGeluIsOneLaunchWhereClblastDoesNotRun) {
  ::setenv("BURN_OPENCL_BLAS", "off", 1);
  const test::FusionRun mm =
      run("gelu(x W^T + b) + r^T", {Shape{7, 33}, Shape{19, 33}, Shape{19}, Shape{19, 7}}, [](const std::vector<H>& v) {
        H y = api::add(api::matmul(v[0], api::swap_dims(v[1], 0, 1)), v[2]);
        return api::add(api::unary(OpId::gelu, y), api::swap_dims(v[3], 0, 1));
      });
  ::unsetenv("BURN_OPENCL_BLAS");
  EXPECT_EQ(mm.stats.fused_runs, 1u);
  EXPECT_EQ(mm.stats.eager_ops, 0u);
  EXPECT_EQ(mm.fused, 1u);
  EXPECT_EQ(mm.op_by_op, 4u);
}

// A chain over more inputs than one launch takes (16: burn_modes' 2 bits each) is cut into programs that fit.
TEST_F(OpenClFusion, AChainOverTwentyInputsIsCutIntoProgramsThatFit) {
  const std::vector<Shape> shapes(20, Shape{3, 7});
  const test::FusionRun c = run("x0 + x1 + ... + x19", shapes, [](const std::vector<H>& v) {
    H acc = v[0];
    for (size_t i = 1; i < v.size(); ++i) acc = api::add(acc, v[i]);
    return acc;
  });
  EXPECT_GE(c.stats.fused_runs, 2u);
  EXPECT_EQ(c.fused, c.stats.fused_runs + c.stats.eager_ops);
  EXPECT_EQ(c.op_by_op, 19u);
}

// An integer division by zero inside a fused chain is the op's error, as op by op.
TEST_F(OpenClFusion, IntegerDivisionByZeroInAChainIsAnError) {
  Device fus = Device::get("fusion<opencl>");
  const H a = api::cast(api::from_data(fus, uniform_f32(Shape{8}, 3), Kind::Float), DType::I64);
  const H z = api::mul_scalar(a, Scalar(0));
  const H q = api::add_scalar(api::div(a, z), Scalar(1));
  EXPECT_THROW(api::into_data(q), Error);
}

}  // namespace
}  // namespace burn::opencl
