// Reductions with their prologue: sum/mean/max/min/argmax/argmin over a dim, softmax, log_softmax,
// layer_norm and rms_norm, recorded when their input is pending and run as the last instruction of one fused program.
// Each pattern asserts the plan the inspector reports (no silent fallback to op by op) and that the values equal
// `cpu`'s bit for bit (the executor runs the eager reduction kernels over the prologue).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "burn/fusion/fusion.hpp"
#include "burn/tensor/api.hpp"
#include "burn/tensor/module.hpp"

#include "inspector_util.hpp"

namespace burn {
namespace {

using Plan = std::vector<std::string>;
using H = TensorHandle;

using fusion_test::insp;
using fusion_test::same_bits;

// Deterministic data in [-3, 3] with a few repeated values (ties for argmax).
TensorData tied_data(const Shape& s, DType dt, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(-3 * 64, 3 * 64);
  const int64_t n = s.num_elements();
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = pick(rng) / 64.0;
  return TensorData::from_vector(v, s).convert(dt);
}

// Runs `f` on inputs built from the same data on `cpu` and on fusion<cpu>; expects the outputs to
// agree bit for bit and the fusion device's last plan to be `plan`.
void expect_reduce_fused(const std::vector<std::pair<Shape, DType>>& inputs,
                         const std::function<std::vector<H>(const std::vector<H>&)>& f, const Plan& plan) {
  Device cpu = Device::get("cpu"), fus = Device::get("fusion<cpu>");
  std::vector<H> ref, fin;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorData d = tied_data(inputs[i].first, inputs[i].second, 17 + i);
    const Kind k = is_float(inputs[i].second) ? Kind::Float : Kind::Int;
    ref.push_back(api::from_data(cpu, d, k));
    fin.push_back(api::from_data(fus, d, k));
  }
  fus.sync();
  const std::vector<H> r = f(ref);
  std::vector<H> o = f(fin);
  fin.clear();  // only the outputs stay alive
  fus.sync();
  EXPECT_EQ(insp(fus).last_plan(), plan);
  ASSERT_EQ(r.size(), o.size());
  for (size_t i = 0; i < r.size(); ++i)
    EXPECT_TRUE(same_bits(api::into_data(r[i]), api::into_data(o[i]))) << "output " << i;
}

TEST(FusionReduce, ExpSumOfAnAffinePrologue) {
  // (x * s + m).exp().sum_dim(1): the prologue is computed per lane block and folded, never written.
  expect_reduce_fused({{Shape{64, 300}, DType::F32}, {Shape{1, 300}, DType::F32}},
                      [](const std::vector<H>& in) {
                        return std::vector<H>{api::reduce_dim(
                            OpId::sum_dim, api::unary(OpId::exp, api::add(api::mul_scalar(in[0], 0.5), in[1])), 1)};
                      },
                      {"fused[mul_scalar add exp sum_dim] -> 1"});
}

TEST(FusionReduce, EveryReductionOverEveryDim) {
  const OpId ops[] = {OpId::sum_dim, OpId::mean_dim, OpId::max_dim, OpId::min_dim, OpId::argmax, OpId::argmin};
  for (DType dt : {DType::F32, DType::F64, DType::I64, DType::I32})
    for (OpId op : ops)
      for (int64_t dim = 0; dim < 3; ++dim) {
        SCOPED_TRACE(std::string(op_info(op).name) + " dim " + std::to_string(dim) + " " + std::string(dtype_name(dt)));
        expect_reduce_fused({{Shape{7, 33, 19}, dt}},
                            [&](const std::vector<H>& in) {
                              return std::vector<H>{api::reduce_dim(
                                  op, api::unary(OpId::abs, api::sub_scalar(in[0], Scalar(int64_t{1}))), dim)};
                            },
                            {std::string("fused[sub_scalar abs ") + op_info(op).name + "] -> 1"});
      }
}

// Shapes that take the kernels' other paths: a split reduced dim (fewer lanes than threads), column
// blocks wider than one task, many short lanes read ahead in one evaluation, a broadcast operand.
TEST(FusionReduce, LargeAndOddShapes) {
  struct Case {
    Shape shape;
    int64_t dim;
  };
  for (const Case& c : {Case{Shape{1, 300000}, 1}, Case{Shape{2, 90, 5000}, 1}, Case{Shape{20000, 3}, 1},
                        Case{Shape{20000, 3}, 0}, Case{Shape{3, 700, 300}, 1}})
    for (OpId op : {OpId::sum_dim, OpId::max_dim, OpId::argmin, OpId::softmax}) {
      SCOPED_TRACE(std::string(op_info(op).name) + " " + c.shape.to_string() + " dim " + std::to_string(c.dim));
      Shape row = c.shape;
      row[0] = 1;
      expect_reduce_fused(
          {{c.shape, DType::F32}, {row, DType::F32}},
          [&](const std::vector<H>& in) {
            H x = api::unary(OpId::tanh, api::mul(in[0], in[1]));
            return std::vector<H>{op == OpId::softmax ? api::softmax(x, c.dim) : api::reduce_dim(op, x, c.dim)};
          },
          {std::string("fused[mul tanh ") + op_info(op).name + "] -> 1"});
    }
}

TEST(FusionReduce, SoftmaxAndLogSoftmaxOfAScaledMaskedInput) {
  for (int64_t dim : {1, 0})
    for (bool log : {false, true}) {
      SCOPED_TRACE((log ? "log_softmax dim " : "softmax dim ") + std::to_string(dim));
      expect_reduce_fused(
          {{Shape{48, 96}, DType::F32}, {Shape{1, 96}, DType::F32}},
          [&](const std::vector<H>& in) {
            H s = api::add(api::mul_scalar(in[0], 0.125), in[1]);
            return std::vector<H>{log ? api::log_softmax(s, dim) : api::softmax(s, dim)};
          },
          {std::string(log ? "fused[mul_scalar add log_softmax] -> 1" : "fused[mul_scalar add softmax] -> 1")});
    }
  // f64 too.
  expect_reduce_fused(
      {{Shape{5, 1030}, DType::F64}},
      [](const std::vector<H>& in) { return std::vector<H>{api::softmax(api::unary(OpId::sigmoid, in[0]), 1)}; },
      {"fused[sigmoid softmax] -> 1"});
}

// Layer and RMS norm of a residual sum: the prologue is written where the result goes and normalised
// in place, one pass; with and without weight and bias, over one or two trailing dims, f32 and f64.
TEST(FusionReduce, LayerNormAndRmsNormOfAResidualSum) {
  for (DType dt : {DType::F32, DType::F64})
    for (size_t nd : {size_t{1}, size_t{2}})
      for (int variant = 0; variant < 4; ++variant) {
        const bool rms = variant == 3;
        const bool with_w = variant <= 1 || (rms && nd == 1), with_b = variant == 0;
        SCOPED_TRACE(std::string(rms ? "rms_norm" : "layer_norm") + " nd " + std::to_string(nd) + " variant " +
                     std::to_string(variant) + " " + std::string(dtype_name(dt)));
        const Shape x{6, 37, 300};
        const Shape p = nd == 1 ? Shape{300} : Shape{37, 300};
        expect_reduce_fused(
            {{x, dt}, {x, dt}, {p, dt}, {p, dt}},
            [&](const std::vector<H>& in) {
              H s = api::add(in[0], api::mul_scalar(in[1], 0.5));
              const std::optional<H> w = with_w ? std::optional<H>(in[2]) : std::nullopt;
              const std::optional<H> b = with_b ? std::optional<H>(in[3]) : std::nullopt;
              return std::vector<H>{rms ? api::rms_norm(s, w, nd, 1e-6) : api::layer_norm(s, w, b, nd, 1e-5)};
            },
            {std::string("fused[mul_scalar add ") + (rms ? "rms_norm" : "layer_norm") + "] -> 1"});
      }
}

// A kept intermediate is stored by the same program that reduces it.
TEST(FusionReduce, KeptIntermediatesAreStoredByTheSameProgram) {
  expect_reduce_fused({{Shape{40, 50}, DType::F32}},
                      [](const std::vector<H>& in) {
                        H y = api::unary(OpId::exp, api::mul_scalar(in[0], 2));
                        return std::vector<H>{y, api::reduce_dim(OpId::sum_dim, y, 1), api::softmax(y, 0)};
                      },
                      // softmax reads y from memory: the reduction closed y's run.
                      {"fused[mul_scalar exp sum_dim] -> 2", "eager[softmax]"});
}

// The epilogue (ops on the reduction's result) runs in the same program, after the reduction: over the
// reduced shape, with its own operands; softmax's epilogue is over the full shape.
TEST(FusionReduce, TheEpilogueJoinsTheReductionsProgram) {
  expect_reduce_fused({{Shape{16, 128}, DType::F32}, {Shape{16, 1}, DType::F32}},
                      [](const std::vector<H>& in) {
                        H s = api::reduce_dim(OpId::sum_dim, api::unary(OpId::exp, in[0]), 1);
                        return std::vector<H>{api::add(api::unary(OpId::log, api::div_scalar(s, 128.0)), in[1])};
                      },
                      {"fused[exp sum_dim div_scalar log add] -> 1"});
  // One epilogue op is enough: no eager op left over.
  expect_reduce_fused({{Shape{9, 40}, DType::I64}},
                      [](const std::vector<H>& in) {
                        return std::vector<H>{api::mul_scalar(
                            api::reduce_dim(OpId::max_dim, api::add_scalar(in[0], 3), 0), Scalar(int64_t{2}))};
                      },
                      {"fused[add_scalar max_dim mul_scalar] -> 1"});
  // Kept: the reduction's result and an epilogue value are stored too.
  expect_reduce_fused({{Shape{20, 30}, DType::F32}},
                      [](const std::vector<H>& in) {
                        H m = api::reduce_dim(OpId::mean_dim, api::unary(OpId::square, in[0]), 1);
                        H r = api::unary(OpId::sqrt, m);
                        return std::vector<H>{m, r, api::unary(OpId::recip, r)};
                      },
                      {"fused[square mean_dim sqrt recip] -> 3"});
  expect_reduce_fused({{Shape{32, 64}, DType::F32}, {Shape{32, 64}, DType::F32}},
                      [](const std::vector<H>& in) {
                        return std::vector<H>{api::mul(api::softmax(api::mul_scalar(in[0], 0.5), 1), in[1])};
                      },
                      {"fused[mul_scalar softmax mul] -> 1"});
}

// What cannot join: an op reading a prologue value after the reduction (gone by then) starts a new run;
// a reduction of a value of a closed run starts its own run, whose epilogue joins it.
TEST(FusionReduce, WhereTheEpilogueStops) {
  expect_reduce_fused({{Shape{32, 64}, DType::F32}},
                      [](const std::vector<H>& in) {
                        H y = api::mul_scalar(in[0], 2);
                        return std::vector<H>{api::add(api::softmax(y, 1), y)};
                      },
                      {"fused[mul_scalar softmax] -> 2", "eager[add]"});
  expect_reduce_fused({{Shape{12, 50}, DType::F32}},
                      [](const std::vector<H>& in) {
                        H y = api::unary(OpId::exp, in[0]);
                        H a = api::reduce_dim(OpId::sum_dim, y, 1);
                        H b = api::unary(OpId::neg, api::unary(OpId::log, api::reduce_dim(OpId::sum_dim, y, 0)));
                        return std::vector<H>{a, b};
                      },
                      {"fused[exp sum_dim] -> 2", "fused[sum_dim log neg] -> 1"});
}

// A reduction of a tensor that is not pending runs at once on the inner backend (nothing to fuse).
TEST(FusionReduce, AReadyInputIsNotRecorded) {
  Device d = Device::get("fusion<cpu>");
  auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
  d.sync();
  insp(d).reset_stats();
  auto s = x.sum_dim(1);
  EXPECT_EQ(insp(d).stats().recorded, 0u);
  EXPECT_EQ(s.to_vec<float>(), (std::vector<float>{3, 7}));
  auto t = (x * 2.0f).sum_dim(0);
  EXPECT_EQ(insp(d).stats().recorded, 2u);
  EXPECT_EQ(t.to_vec<float>(), (std::vector<float>{8, 12}));
}

// Bad input raises at the call, naming the op, pending input or not.
TEST(FusionReduce, ErrorsAreRaisedAtTheCall) {
  Device d = Device::get("fusion<cpu>");
  auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
  auto y = x * 2.0f;
  try {
    (void)y.sum_dim(2);
    FAIL() << "sum_dim(2) of a 2-D tensor";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sum_dim"), std::string::npos) << e.what();
  }
  auto empty = Tensor<2>::zeros(Shape{2, 0}, d) + 1.0f;
  try {
    (void)empty.argmax(1);
    FAIL() << "argmax over an empty dim";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("argmax"), std::string::npos) << e.what();
  }
  // An empty tensor's sum still works (zeros): run at once, not recorded.
  EXPECT_EQ(empty.sum_dim(1).shape(), (Shape{2, 1}));
  EXPECT_EQ(y.max_dim(1).to_vec<float>(), (std::vector<float>{4, 8}));
}

// Without the executor the same segments run op by op, with the same values.
TEST(FusionReduce, OpByOpWithoutTheExecutor) {
  Device d = Device::get("fusion<cpu>");
  insp(d).set_executor_enabled(false);
  auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3}, d);
  auto s = (x * 2.0f).exp().log().sum_dim(1);
  EXPECT_EQ(s.to_vec<float>(), (std::vector<float>{12, 30}));
  EXPECT_EQ(insp(d).last_plan(), (Plan{"eager[mul_scalar exp log sum_dim]"}));
  insp(d).set_executor_enabled(true);
}

// The plan depends on the reduction's dim: a loop alternating two dims plans twice, then hits.
TEST(FusionReduce, ThePlanCacheKeysTheDim) {
  Device d = Device::get("fusion<cpu>");
  auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3}, d);
  d.sync();
  insp(d).reset_stats();
  for (int step = 0; step < 6; ++step) {
    const int64_t dim = step % 2;
    auto s = (x + 1.0f).sum_dim(dim);
    EXPECT_EQ(s.to_vec<float>(), dim == 0 ? (std::vector<float>{7, 9, 11}) : (std::vector<float>{9, 18}));
  }
  EXPECT_EQ(insp(d).stats().plan_misses, 2u);
  EXPECT_EQ(insp(d).stats().plan_hits, 4u);
  EXPECT_EQ(insp(d).stats().fused_runs, 6u);
}

}  // namespace
}  // namespace burn
