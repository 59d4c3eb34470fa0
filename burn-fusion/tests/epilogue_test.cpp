// Matmul and conv epilogues: the anchor (matmul, conv) is recorded as the head of a run and the
// elementwise ops on its output (bias add, activation, residual add, scalars) run in the same program,
// after the inner backend's own matmul/conv kernel (the cpu plugin runs a conv's residual add and relu
// inside its conv kernel). Each pattern asserts the plan the inspector reports
// (no silent fallback to op by op) and that the values equal `cpu`'s bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "burn/autodiff/autodiff.hpp"
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

TensorData data_of(const Shape& s, DType dt, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> pick(-2.0, 2.0);
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  for (double& x : v) x = pick(rng);
  return TensorData::from_vector(v, s).convert(dt);
}

// Runs `f` on the same data on `cpu` and on `spec`; expects the outputs to agree bit for bit and the
// fusion device's last plan to be `plan` (unchecked when empty).
void expect_fused(const std::vector<std::pair<Shape, DType>>& inputs,
                  const std::function<std::vector<H>(const std::vector<H>&)>& f, const Plan& plan,
                  const char* spec = "fusion<cpu>") {
  Device cpu = Device::get("cpu"), fus = Device::get(spec);
  std::vector<H> ref, fin;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorData d = data_of(inputs[i].first, inputs[i].second, 31 + i);
    ref.push_back(api::from_data(cpu, d, Kind::Float));
    fin.push_back(api::from_data(fus, d, Kind::Float));
  }
  fus.sync();
  const std::vector<H> r = f(ref);
  std::vector<H> o = f(fin);
  fin.clear();  // only the outputs stay alive
  fus.sync();
  if (!plan.empty()) EXPECT_EQ(insp(fus).last_plan(), plan);
  ASSERT_EQ(r.size(), o.size());
  for (size_t i = 0; i < r.size(); ++i)
    EXPECT_TRUE(same_bits(api::into_data(r[i]), api::into_data(o[i]))) << "output " << i;
}

ConvOptions conv_opts(size_t spatial, int64_t stride, int64_t padding) {
  ConvOptions o;
  o.stride.assign(spatial, stride);
  o.padding.assign(spatial, padding);
  return o;
}

TEST(FusionEpilogue, LinearBiasRelu) {
  for (DType dt : {DType::F32, DType::F64})
    expect_fused({{Shape{64, 96}, dt}, {Shape{96, 80}, dt}, {Shape{80}, dt}},
                 [](const std::vector<H>& in) {
                   return std::vector<H>{api::unary(OpId::relu, api::add(api::matmul(in[0], in[1]), in[2]))};
                 },
                 {"fused[matmul add relu] -> 1"});
}

TEST(FusionEpilogue, MatmulGelu) {
  expect_fused(
      {{Shape{33, 70}, DType::F32}, {Shape{70, 129}, DType::F32}},
      [](const std::vector<H>& in) { return std::vector<H>{api::unary(OpId::gelu, api::matmul(in[0], in[1]))}; },
      {"fused[matmul gelu] -> 1"});
}

// Batched and broadcast batch dims as the eager op allows them; the bias and scale broadcast over the
// output.
TEST(FusionEpilogue, BatchedBroadcastShapes) {
  expect_fused({{Shape{4, 1, 16, 24}, DType::F32}, {Shape{1, 3, 24, 8}, DType::F32}, {Shape{3, 1, 8}, DType::F32}},
               [](const std::vector<H>& in) {
                 H y = api::mul_scalar(api::add(api::matmul(in[0], in[1]), in[2]), 0.5);
                 return std::vector<H>{api::unary(OpId::sigmoid, y)};
               },
               {"fused[matmul add mul_scalar sigmoid] -> 1"});
  // An epilogue operand larger than the matmul's output broadcasts it up: a new run of that shape.
  expect_fused({{Shape{8, 12}, DType::F32}, {Shape{12, 5}, DType::F32}, {Shape{3, 8, 5}, DType::F32}},
               [](const std::vector<H>& in) {
                 return std::vector<H>{api::unary(OpId::relu, api::add(api::matmul(in[0], in[1]), in[2]))};
               },
               {"eager[matmul]", "fused[add relu] -> 1"});
}

TEST(FusionEpilogue, Conv2dWithBiasRelu) {
  for (DType dt : {DType::F32, DType::F64})
    expect_fused({{Shape{2, 3, 17, 19}, dt}, {Shape{8, 3, 3, 3}, dt}, {Shape{8}, dt}},
                 [](const std::vector<H>& in) {
                   return std::vector<H>{api::unary(OpId::relu, api::conv(in[0], in[1], in[2], conv_opts(2, 1, 1)))};
                 },
                 {"fused[conv relu] -> 1"});
}

TEST(FusionEpilogue, Conv2dResidualRelu) {
  // A ResNet block's tail: conv (no bias), + the residual, relu.
  expect_fused({{Shape{2, 4, 10, 10}, DType::F32}, {Shape{4, 4, 3, 3}, DType::F32}, {Shape{2, 4, 10, 10}, DType::F32}},
               [](const std::vector<H>& in) {
                 H y = api::conv(in[0], in[1], std::nullopt, conv_opts(2, 1, 1));
                 return std::vector<H>{api::unary(OpId::relu, api::add(y, in[2]))};
               },
               {"fused[conv add relu] -> 1"});
  // Strided, grouped, with a per-channel scale and shift (a folded batch norm).
  expect_fused({{Shape{1, 6, 15, 15}, DType::F32},
                {Shape{6, 3, 3, 3}, DType::F32},
                {Shape{6, 1, 1}, DType::F32},
                {Shape{6, 1, 1}, DType::F32}},
               [](const std::vector<H>& in) {
                 ConvOptions o = conv_opts(2, 2, 1);
                 o.groups = 2;
                 H y = api::conv(in[0], in[1], std::nullopt, o);
                 return std::vector<H>{api::unary(OpId::relu, api::add(api::mul(y, in[2]), in[3]))};
               },
               {"fused[conv mul add relu] -> 1"});
}

TEST(FusionEpilogue, Conv1d) {
  expect_fused({{Shape{3, 5, 40}, DType::F32}, {Shape{7, 5, 4}, DType::F32}, {Shape{7}, DType::F32}},
               [](const std::vector<H>& in) {
                 ConvOptions o = conv_opts(1, 2, 0);
                 o.dilation = {2};
                 return std::vector<H>{api::unary(OpId::silu, api::conv(in[0], in[1], in[2], o))};
               },
               {"fused[conv silu] -> 1"});
}

TEST(FusionEpilogue, Conv3d) {
  expect_fused({{Shape{2, 3, 6, 7, 8}, DType::F64}, {Shape{4, 3, 2, 3, 3}, DType::F64}, {Shape{4}, DType::F64}},
               [](const std::vector<H>& in) {
                 H y = api::conv(in[0], in[1], in[2], conv_opts(3, 1, 1));
                 return std::vector<H>{api::clamp(y, -1.0, 1.0)};
               },
               {"fused[conv clamp] -> 1"});
}

TEST(FusionEpilogue, ConvTranspose) {
  // A decoder's upsampling: stride 2 with padding_out, bias, then ReLU.
  expect_fused({{Shape{2, 6, 7, 9}, DType::F32}, {Shape{6, 4, 3, 3}, DType::F32}, {Shape{4}, DType::F32}},
               [](const std::vector<H>& in) {
                 ConvTransposeOptions o;
                 o.stride = {2};
                 o.padding = {1};
                 o.padding_out = {1};
                 return std::vector<H>{api::unary(OpId::relu, api::conv_transpose(in[0], in[1], in[2], o))};
               },
               {"fused[conv_transpose relu] -> 1"});
  // Grouped conv_transpose1d without bias, plus a residual.
  expect_fused({{Shape{3, 4, 11}, DType::F64}, {Shape{4, 3, 5}, DType::F64}, {Shape{3, 6, 15}, DType::F64}},
               [](const std::vector<H>& in) {
                 ConvTransposeOptions o;
                 o.groups = 2;
                 return std::vector<H>{api::add(api::conv_transpose(in[0], in[1], std::nullopt, o), in[2])};
               },
               {"fused[conv_transpose add] -> 1"});
}

// ResNet-18's conv tails (relu, + a residual of the output's shape on either side of the add, both) on
// every kernel shape of the cpu plugin's blocked forward (3x3 on a wide plane with junk pitch columns,
// the 6x16 micro-kernel of 7x7 planes, weights cut into panels with K in several chunks, the strided
// stem, 1x1 stride 1 and 2), and NaN through relu: bit for bit the eager conv, add and relu.
TEST(FusionEpilogue, ResNetConvTailsOnEveryBlockedKernelShape) {
  using Make = std::function<H(const std::vector<H>&)>;
  struct Case {
    Shape x, w;
    int64_t stride, pad;
  };
  const std::vector<Case> cases = {
      {Shape{2, 16, 30, 29}, Shape{24, 16, 3, 3}, 1, 1},   // 4x24 micro-kernel, junk columns
      {Shape{1, 64, 7, 7}, Shape{80, 64, 3, 3}, 1, 1},     // 6x16 micro-kernel
      {Shape{1, 96, 9, 9}, Shape{136, 96, 3, 3}, 1, 1},    // weights in panels of 128 channels, K 864
      {Shape{1, 3, 40, 40}, Shape{16, 3, 7, 7}, 2, 3},     // the stem
      {Shape{2, 32, 12, 12}, Shape{48, 32, 3, 3}, 2, 1},   // stride 2
      {Shape{2, 32, 12, 12}, Shape{48, 32, 1, 1}, 2, 0},   // 1x1 stride 2 (a downsample)
      {Shape{1, 40, 10, 11}, Shape{56, 40, 1, 1}, 1, 0}};  // 1x1 stride 1
  for (const Case& c : cases) {
    SCOPED_TRACE(c.w.to_string());
    ConvOptions o = conv_opts(2, c.stride, c.pad);
    const int64_t oh = (c.x[2] + 2 * c.pad - c.w[2]) / c.stride + 1, ow = (c.x[3] + 2 * c.pad - c.w[3]) / c.stride + 1;
    const Shape y{c.x[0], c.w[0], oh, ow};
    const std::vector<std::pair<Shape, DType>> in = {
        {c.x, DType::F32}, {c.w, DType::F32}, {Shape{c.w[0]}, DType::F32}, {y, DType::F32}};
    const auto conv = [o](const std::vector<H>& v) { return api::conv(v[0], v[1], v[2], o); };
    expect_fused(in, [&](const std::vector<H>& v) { return std::vector<H>{api::unary(OpId::relu, conv(v))}; },
                 {"fused[conv relu] -> 1"});
    expect_fused(in, [&](const std::vector<H>& v) { return std::vector<H>{api::add(conv(v), v[3])}; },
                 {"fused[conv add] -> 1"});
    expect_fused(
        in, [&](const std::vector<H>& v) { return std::vector<H>{api::unary(OpId::relu, api::add(v[3], conv(v)))}; },
        {"fused[conv add relu] -> 1"});
  }
  // NaN and a large negative residual through relu: relu keeps NaN (the eager rule), zeroes the other.
  const Shape xs{1, 4, 6, 6}, ws{8, 4, 1, 1};
  std::vector<float> res(8 * 36, 0.0f);
  res[0] = std::nanf("");
  res[1] = -1e30f;
  Device cpu = Device::get("cpu"), fus = Device::get("fusion<cpu>");
  const auto run = [&](const Device& d) {
    const H x = api::from_data(d, data_of(xs, DType::F32, 5), Kind::Float);
    const H w = api::from_data(d, TensorData::from_vector(std::vector<float>(32, 0.0f), ws), Kind::Float);
    const H r = api::from_data(d, TensorData::from_vector(res, Shape{1, 8, 6, 6}), Kind::Float);
    const H b = api::from_data(d, TensorData::from_vector(std::vector<float>(8, -0.0f), Shape{8}), Kind::Float);
    return api::into_data(api::unary(OpId::relu, api::add(api::conv(x, w, b, conv_opts(2, 1, 0)), r)));
  };
  const TensorData want = run(cpu), got = run(fus);
  EXPECT_TRUE(same_bits(want, got));
  const std::vector<float> v = got.to_vec<float>();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0.0f);
}

// The user keeps the anchor's output: it is stored with its own (pre-epilogue) value, the epilogue's
// result is a tensor of its own.
TEST(FusionEpilogue, KeptAnchorOutputHasItsPreEpilogueValue) {
  expect_fused({{Shape{20, 30}, DType::F32}, {Shape{30, 25}, DType::F32}, {Shape{25}, DType::F32}},
               [](const std::vector<H>& in) {
                 H mm = api::matmul(in[0], in[1]);
                 return std::vector<H>{mm, api::unary(OpId::relu, api::add(mm, in[2]))};
               },
               {"fused[matmul add relu] -> 2"});
  // Kept epilogue intermediates are stored too.
  expect_fused({{Shape{2, 3, 9, 9}, DType::F32}, {Shape{4, 3, 3, 3}, DType::F32}, {Shape{4}, DType::F32}},
               [](const std::vector<H>& in) {
                 H y = api::conv(in[0], in[1], in[2], conv_opts(2, 1, 0));
                 H z = api::mul_scalar(y, 2.0);
                 return std::vector<H>{y, z, api::unary(OpId::tanh, z)};
               },
               {"fused[conv mul_scalar tanh] -> 3"});
}

// The epilogue reads the anchor's output twice (x * sigmoid(x), x + relu(x)), also after the op
// whose result is stored: the output is then not written over the anchor's.
TEST(FusionEpilogue, TheEpilogueReadsTheAnchorTwice) {
  expect_fused({{Shape{31, 17}, DType::F32}, {Shape{17, 45}, DType::F32}},
               [](const std::vector<H>& in) {
                 H mm = api::matmul(in[0], in[1]);
                 return std::vector<H>{api::mul(mm, api::unary(OpId::sigmoid, mm))};
               },
               {"fused[matmul sigmoid mul] -> 1"});
  expect_fused({{Shape{31, 17}, DType::F32}, {Shape{17, 45}, DType::F32}},
               [](const std::vector<H>& in) {
                 H mm = api::matmul(in[0], in[1]);
                 H a = api::unary(OpId::relu, mm);
                 H b = api::add(api::unary(OpId::exp, a), mm);
                 return std::vector<H>{a, b};
               },
               {"fused[matmul relu exp add] -> 2"});
}

// A prologue into the matmul is not fused: what the matmul reads runs in the run before; the
// matmul's inputs are read whole. A reduction of the matmul's output starts a run of its own.
TEST(FusionEpilogue, WhereTheRunStops) {
  expect_fused({{Shape{16, 16}, DType::F32}, {Shape{16, 16}, DType::F32}},
               [](const std::vector<H>& in) {
                 H mm = api::matmul(api::unary(OpId::exp, api::mul_scalar(in[0], 0.25)), in[1]);
                 return std::vector<H>{api::softmax(api::mul_scalar(mm, 0.5), 1)};
               },
               {"fused[mul_scalar exp] -> 1", "fused[matmul mul_scalar] -> 1", "eager[softmax]"});
  // A matmul alone is the eager kernel.
  expect_fused({{Shape{8, 8}, DType::F32}, {Shape{8, 8}, DType::F32}},
               [](const std::vector<H>& in) { return std::vector<H>{api::matmul(in[0], in[1])}; }, {"eager[matmul]"});
}

// A chain of matmuls, each with its epilogue (an MLP forward): one run per layer.
TEST(FusionEpilogue, AnMlpForward) {
  expect_fused({{Shape{32, 64}, DType::F32},
                {Shape{64, 48}, DType::F32},
                {Shape{48}, DType::F32},
                {Shape{48, 10}, DType::F32},
                {Shape{10}, DType::F32}},
               [](const std::vector<H>& in) {
                 H h = api::unary(OpId::relu, api::add(api::matmul(in[0], in[1]), in[2]));
                 return std::vector<H>{api::add(api::matmul(h, in[3]), in[4])};
               },
               {"fused[matmul add relu] -> 1", "fused[matmul add] -> 1"});
}

// Without an executor (or with it disabled) the same ops run one by one, with the same values; through
// trace, the counts show the eager kernels that ran.
void expect_op_by_op_and_through_trace(const std::vector<std::pair<Shape, DType>>& shapes,
                                       const std::function<std::vector<H>(const std::vector<H>&)>& f,
                                       const std::string& ops) {
  Device d = Device::get("fusion<cpu>");
  insp(d).set_executor_enabled(false);
  expect_fused(shapes, f, {"eager[" + ops + "]"});
  insp(d).set_executor_enabled(true);
  expect_fused(shapes, f, {"fused[" + ops + "] -> 1"}, "fusion<trace<cpu>>");
}

TEST(FusionEpilogue, OpByOpAndThroughTrace) {
  expect_op_by_op_and_through_trace(
      {{Shape{9, 7}, DType::F32}, {Shape{7, 5}, DType::F32}, {Shape{5}, DType::F32}},
      [](const std::vector<H>& in) {
        return std::vector<H>{api::unary(OpId::relu, api::add(api::matmul(in[0], in[1]), in[2]))};
      },
      "matmul add relu");
}

// What the eager kernel would refuse runs at once and raises at the call; an integer matmul is not
// recorded.
TEST(FusionEpilogue, ErrorsAreRaisedAtTheCall) {
  Device d = Device::get("fusion<cpu>");
  auto a = Tensor<2>::ones(Shape{2, 3}, d), b = Tensor<2>::ones(Shape{2, 3}, d);
  try {
    (void)a.matmul(b);
    FAIL() << "matmul of 2x3 by 2x3";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("matmul"), std::string::npos) << e.what();
  }
  d.sync();
  insp(d).reset_stats();
  auto i = Tensor<2, Int>::ones(Shape{2, 2}, d);
  auto c = i.matmul(i);
  EXPECT_EQ(insp(d).stats().recorded, 0u);
  EXPECT_EQ(c.to_vec<int64_t>(), (std::vector<int64_t>{2, 2, 2, 2}));
  auto m = a.matmul(b.transpose());
  EXPECT_EQ(insp(d).stats().recorded, 1u);
  EXPECT_EQ(m.to_vec<float>(), (std::vector<float>{3, 3, 3, 3}));
}

// Nobody keeps the matmul's output: the epilogue writes over it, so the fused Linear allocates one
// tensor; kept, the output and the epilogue's result are two.
TEST(FusionEpilogue, TheEpilogueWritesOverADroppedAnchorOutput) {
  auto* mem = static_cast<MemoryStats*>(Device::get("cpu")->query_interface("memory"));
  ASSERT_NE(mem, nullptr);
  Device d = Device::get("fusion<cpu>");
  auto x = Tensor<2>::ones(Shape{64, 64}, d), w = Tensor<2>::ones(Shape{64, 256}, d);
  auto b = Tensor<2>::ones(Shape{1, 256}, d);
  d.sync();
  const uint64_t out_bytes = 64 * 256 * sizeof(float);
  for (const bool keep : {false, true}) {
    const uint64_t before = mem->bytes_in_use();
    mem->reset_peak();
    auto mm = x.matmul(w);
    auto y = (mm + b).relu();
    std::optional<Tensor<2>> kept;
    if (keep) kept = mm;
    mm = Tensor<2>::ones(Shape{1, 1}, d);  // drops the handle (a 4-byte tensor in its place)
    d.sync();
    EXPECT_EQ(insp(d).last_plan(), (Plan{keep ? "fused[matmul add relu] -> 2" : "fused[matmul add relu] -> 1"}));
    EXPECT_LE(mem->peak_bytes_in_use() - before, (keep ? 2 : 1) * out_bytes + 64) << (keep ? "kept" : "dropped");
    EXPECT_EQ(y.to_vec<float>(), std::vector<float>(64 * 256, 65.0f));
    if (keep) EXPECT_EQ(kept->to_vec<float>(), std::vector<float>(64 * 256, 64.0f));
  }
}

// A training-like loop records the same sequence each step: planned once.
TEST(FusionEpilogue, ThePlanIsCached) {
  Device d = Device::get("fusion<cpu>");
  auto x = Tensor<2>::ones(Shape{4, 6}, d), w = Tensor<2>::ones(Shape{6, 3}, d);
  auto bias = Tensor<1>::ones(Shape{3}, d);
  d.sync();
  insp(d).reset_stats();
  for (int step = 0; step < 5; ++step) {
    auto y = (x.matmul(w) + bias.unsqueeze<2>()).relu();
    EXPECT_EQ(y.to_vec<float>(), std::vector<float>(12, 7.0f));
  }
  // At most one miss: an earlier test on this device may have planned the same sequence.
  EXPECT_LE(insp(d).stats().plan_misses, 1u);
  EXPECT_GE(insp(d).stats().plan_hits, 4u);
  EXPECT_EQ(insp(d).stats().fused_runs, 5u);
}

// Autodiff on top: the forward Linear + bias + ReLU and the backward matmuls (with what follows them)
// go through the anchors; the gradients equal autodiff<cpu>'s bit for bit.
TEST(FusionEpilogue, GradientsThroughAFusedLinear) {
  auto grads = [](const char* spec, bool check_plan) {
    Device d = Device::get(spec);
    auto x = Tensor<2>::from_data(data_of(Shape{12, 20}, DType::F32, 1), d).require_grad();
    auto w = Tensor<2>::from_data(data_of(Shape{20, 9}, DType::F32, 2), d).require_grad();
    auto b = Tensor<2>::from_data(data_of(Shape{1, 9}, DType::F32, 3), d).require_grad();
    auto y = (x.matmul(w) + b).relu();
    if (check_plan) {
      (void)y.to_vec<float>();
      EXPECT_EQ(insp(d).last_plan(), (Plan{"fused[matmul add relu] -> 1"}));
    }
    auto g = (y * 0.5f).sum().backward();
    std::vector<TensorData> out;
    for (auto* t : {&x, &w, &b}) out.push_back(t->grad(g)->to_data());
    return out;
  };
  const auto ref = grads("autodiff<cpu>", false), got = grads("autodiff<fusion<cpu>>", true);
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_TRUE(same_bits(ref[i], got[i])) << "gradient " << i;
}

// ---- views: reshape (squeeze, unsqueeze, flatten) of a pending value is recorded, not a flush ----

// nn::Linear on [batch, seq, d] multiplies the flattened input and reshapes the result back; the
// activation after it stays in the matmul's epilogue.
TEST(FusionView, ALinearOnA3dInputKeepsItsActivationInTheEpilogue) {
  for (DType dt : {DType::F32, DType::F64})
    expect_fused({{Shape{4, 5, 8}, dt}, {Shape{8, 6}, dt}, {Shape{6}, dt}},
                 [](const std::vector<H>& in) {
                   H y = api::add(api::matmul(api::reshape(in[0], {-1, 8}), in[1]), in[2]);
                   return std::vector<H>{api::unary(OpId::relu, api::reshape(y, {4, 5, 6}))};
                 },
                 {"fused[matmul add reshape relu] -> 1"});
}

// After the view, an operand of the view's element count (the residual, in its own shape) is read in
// the run's iteration order; one that broadcasts does not have that order, and starts a new run.
TEST(FusionView, WhatJoinsTheRunAfterAView) {
  expect_fused({{Shape{4, 5, 8}, DType::F32}, {Shape{8, 8}, DType::F32}, {Shape{8}, DType::F32}},
               [](const std::vector<H>& in) {
                 H y = api::add(api::matmul(api::reshape(in[0], {-1, 8}), in[1]), in[2]);
                 return std::vector<H>{api::add(api::reshape(y, {4, 5, 8}), in[0])};
               },
               {"fused[matmul add reshape add] -> 1"});
  expect_fused({{Shape{20, 6}, DType::F32}, {Shape{5, 1}, DType::F32}},
               [](const std::vector<H>& in) {
                 H y = api::unary(OpId::exp, api::mul_scalar(in[0], 0.5));
                 return std::vector<H>{api::add(api::reshape(y, {4, 5, 6}), in[1])};
               },
               {"fused[mul_scalar exp reshape] -> 1", "eager[add]"});
  // A value of an earlier run read after a view is reshaped like an input.
  expect_fused({{Shape{6, 4}, DType::F32}, {Shape{6, 4}, DType::F32}},
               [](const std::vector<H>& in) {
                 H s = api::reduce_dim(OpId::sum_dim, api::unary(OpId::exp, in[0]), 1);  // [6, 1]
                 H t = api::sub(in[1], s);                                               // a new run: [6, 4]
                 H v = api::reshape(api::mul_scalar(t, 3.0), {2, 12});
                 return std::vector<H>{api::add(v, api::reshape(t, {2, 12}))};
               },
               {"fused[exp sum_dim] -> 1", "fused[sub mul_scalar reshape reshape add] -> 1"});
}

// Views kept alive, a view of a view, and ops of another shape after them: every handle gets its
// value in its own shape.
TEST(FusionView, KeptViewsAndViewsOfViews) {
  expect_fused({{Shape{6, 4}, DType::F32}},
               [](const std::vector<H>& in) {
                 H a = api::mul_scalar(in[0], 2.0);
                 H v1 = api::reshape(a, {3, 8});
                 H v2 = api::reshape(v1, {24});
                 H e = api::unary(OpId::exp, v2);
                 H w = api::add_scalar(v1, 1.0);  // [3, 8] after a [24] view: a run of its own
                 return std::vector<H>{a, v1, v2, e, w};
               },
               {"fused[mul_scalar reshape reshape exp] -> 2", "eager[add_scalar]"});
  // Squeeze, unsqueeze and flatten are views too.
  expect_fused({{Shape{3, 1, 4}, DType::F32}},
               [](const std::vector<H>& in) {
                 H a = api::unary(OpId::neg, in[0]);
                 H b = api::unary(OpId::relu, api::squeeze_dims(a, {1}));
                 H c = api::flatten(api::unsqueeze_dims(b, {0}), 0, 2);
                 return std::vector<H>{api::unary(OpId::exp, c)};
               },
               {"fused[neg reshape relu reshape reshape exp] -> 1"});
}

// A view of a reduction's result runs alone (metadata only), and what follows starts a new run.
TEST(FusionView, AViewOfAReductionRunsAlone) {
  expect_fused({{Shape{4, 6}, DType::F32}},
               [](const std::vector<H>& in) {
                 H s = api::reduce_dim(OpId::sum_dim, api::unary(OpId::exp, in[0]), 1);
                 return std::vector<H>{api::mul_scalar(api::reshape(s, {4}), 2.0)};
               },
               {"fused[exp sum_dim] -> 1", "eager[reshape]", "eager[mul_scalar]"});
}

// Recording a view runs nothing; a -1 reaching the backend and a wrong size take the eager path
// (inferred, or raised at the call) and leave the stream intact; op by op and through trace the values
// are the same.
TEST(FusionView, RecordingInferenceErrorsAndOpByOp) {
  Device d = Device::get("fusion<cpu>");
  auto x = Tensor<2>::from_data(data_of(Shape{4, 6}, DType::F32, 5), d);
  d.sync();
  insp(d).reset_stats();
  auto y = x * 2.0f;
  auto z = y.reshape<3>({2, 2, 6}).unsqueeze<4>().squeeze<3>(0).flatten<2>(0, 1);
  EXPECT_EQ(insp(d).stats().flushes, 0u);
  EXPECT_EQ(insp(d).stats().recorded, 5u);
  const std::vector<float> want = (x.to_device(Device::get("cpu")) * 2.0f).to_vec<float>();
  EXPECT_EQ(z.shape(), (Shape{4, 6}));
  EXPECT_EQ(z.to_vec<float>(), want);
  auto p = x + 1.0f;
  auto q = p.reshape<2>({-1, 3});  // the tensor API infers the -1: a view of [8, 3]
  EXPECT_EQ(q.shape(), (Shape{8, 3}));
  EXPECT_EQ(insp(d).stats().flushes, 1u);
  EXPECT_EQ(q.to_vec<float>(), (x.to_device(Device::get("cpu")) + 1.0f).to_vec<float>());
  EXPECT_EQ(insp(d).last_plan(), (Plan{"eager[add_scalar reshape]"}));
  // Called on the backend directly, -1 is the eager kernel's to infer.
  auto p2 = x + 2.0f;
  const Prim q2 = d->reshape(p2.handle().prim, Shape{3, -1});
  EXPECT_EQ(q2->shape(), (Shape{3, 8}));
  EXPECT_EQ(insp(d).last_plan(), (Plan{"eager[add_scalar]"}));
  auto r = x - 1.0f;
  EXPECT_THROW((void)r.reshape<2>({5, 5}), ShapeError);
  EXPECT_EQ(r.to_vec<float>(), (x.to_device(Device::get("cpu")) - 1.0f).to_vec<float>());

  expect_op_by_op_and_through_trace(
      {{Shape{4, 5, 8}, DType::F32}, {Shape{8, 6}, DType::F32}, {Shape{6}, DType::F32}},
      [](const std::vector<H>& in) {
        H y = api::add(api::matmul(api::reshape(in[0], {-1, 8}), in[1]), in[2]);
        return std::vector<H>{api::unary(OpId::relu, api::reshape(y, {4, 5, 6}))};
      },
      "matmul add reshape relu");
}

// A tensor pending on one thread, reshaped on another: that thread's segment runs first.
TEST(FusionView, AViewOnAnotherThread) {
  Device d = Device::get("fusion<cpu>");
  auto x = Tensor<2>::from_data(data_of(Shape{3, 4}, DType::F32, 6), d);
  d.sync();
  auto y = (x * 3.0f).exp();
  std::vector<float> got;
  std::thread t([&] { got = (y.reshape<1>({12}) + 1.0f).to_vec<float>(); });
  t.join();
  EXPECT_EQ(got, ((x.to_device(Device::get("cpu")) * 3.0f).exp().reshape<1>({12}) + 1.0f).to_vec<float>());
}

// The transformer's Linear on autodiff<fusion<cpu>>: forward and backward through the views, the
// gradients equal autodiff<cpu>'s bit for bit.
TEST(FusionView, GradientsThroughA3dLinear) {
  auto grads = [](const char* spec) {
    Device d = Device::get(spec);
    auto x = Tensor<3>::from_data(data_of(Shape{3, 4, 10}, DType::F32, 1), d).require_grad();
    auto w = Tensor<2>::from_data(data_of(Shape{10, 7}, DType::F32, 2), d).require_grad();
    auto b = Tensor<2>::from_data(data_of(Shape{1, 7}, DType::F32, 3), d).require_grad();
    auto y = (x.reshape<2>({-1, 10}).matmul(w) + b).reshape<3>({3, 4, 7}).relu();
    auto g = (y * y).sum().backward();
    std::vector<TensorData> out;
    out.push_back(x.grad(g)->to_data());
    for (auto* t : {&w, &b}) out.push_back(t->grad(g)->to_data());
    return out;
  };
  const auto ref = grads("autodiff<cpu>"), got = grads("autodiff<fusion<cpu>>");
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_TRUE(same_bits(ref[i], got[i])) << "gradient " << i;
}

}  // namespace
}  // namespace burn
