// The fusion stream: elementwise ops are deferred until a read, a sync or a non-fusable op needs them;
// results nobody keeps are never computed; kept results are; threads; autodiff on top; the plans and
// the inspector. Counts come from a trace decorator under fusion (what reached the inner backend)
// and from the fusion inspector.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "burn/autodiff/autodiff.hpp"
#include "burn/fusion/fusion.hpp"
#include "burn/tensor/fused.hpp"

#include "inspector_util.hpp"

namespace burn {
namespace {

// fusion<trace<cpu>>: the trace counts what fusion hands the inner backend.
Device traced() { return Device::get("fusion<trace<cpu>>"); }
TraceCounters& trace_of(const Device& d) { return *static_cast<TraceCounters*>(d->query_interface("trace")); }
using fusion_test::insp;

std::vector<float> vec(const Tensor<2>& t) { return t.to_vec<float>(); }

// Runs `body` with the traced device's executor off (op by op) and on (fused), resetting the counters.
template <typename F>
void both_modes(F body) {
  for (bool exec : {false, true}) {
    SCOPED_TRACE(exec ? "fused executor" : "op by op");
    Device d = traced();
    insp(d).set_executor_enabled(exec);
    d.sync();
    insp(d).reset_stats();
    trace_of(d).reset();
    body(d, exec);
    insp(d).set_executor_enabled(true);
  }
}

TEST(FusionDevice, SpecNamesAndFusedWrap) {
  EXPECT_EQ(Device::get("fusion<cpu>").name(), "fusion<cpu>");
  EXPECT_EQ(Device::get("cpu").fused(), Device::get("fusion<cpu>"));
  EXPECT_EQ(Device::get("autodiff<fusion<cpu>>").name(), "autodiff<fusion<cpu>>");
  EXPECT_NE(fusion::inspector(Device::get("autodiff<fusion<cpu>>")), nullptr);
  EXPECT_EQ(fusion::inspector(Device::get("cpu")), nullptr);
  // cpu offers the fused executor; fusion itself does not pass it on (its primitives are not cpu's).
  EXPECT_TRUE(insp(Device::get("fusion<cpu>")).uses_executor());
  EXPECT_NE(Device::get("cpu")->query_interface(kFusedElementwiseInterface), nullptr);
  EXPECT_EQ(Device::get("fusion<cpu>")->query_interface(kFusedElementwiseInterface), nullptr);
}

TEST(FusionStream, ElementwiseOpsWaitForARead) {
  both_modes([](const Device& d, bool exec) {
    auto x = Tensor<2>::from_vector(std::vector<float>{1, -2, 3, -4}, Shape{2, 2}, d);
    auto y = (x * 2.0f + 1.0f).relu().exp();
    EXPECT_EQ(trace_of(d).count(OpId::exp), 0u) << "exp ran before anything read it";
    EXPECT_EQ(trace_of(d).count(OpId::mul_scalar), 0u);
    EXPECT_EQ(insp(d).stats().recorded, 4u);
    const auto got = vec(y);
    EXPECT_FLOAT_EQ(got[0], std::exp(3.0f));
    EXPECT_FLOAT_EQ(got[1], 1.0f);
    EXPECT_FLOAT_EQ(got[2], std::exp(7.0f));
    EXPECT_FLOAT_EQ(got[3], 1.0f);
    // Fused, the inner backend sees none of the four ops; op by op, each exactly once.
    EXPECT_EQ(trace_of(d).count(OpId::exp), exec ? 0u : 1u);
    EXPECT_EQ(trace_of(d).count(OpId::mul_scalar), exec ? 0u : 1u);
    EXPECT_EQ(insp(d).stats().fused_ops, exec ? 4u : 0u);
    EXPECT_EQ(insp(d).stats().eager_ops, exec ? 0u : 4u);
  });
}

TEST(FusionStream, DroppedResultsAreNeverComputed) {
  both_modes([](const Device& d, bool) {
    auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
    auto y = x.exp();
    { auto unused = x.log().sqrt(); }  // dropped before any read
    EXPECT_FLOAT_EQ(vec(y)[1], std::exp(2.0f));
    EXPECT_EQ(trace_of(d).count(OpId::log), 0u);
    EXPECT_EQ(trace_of(d).count(OpId::sqrt), 0u);
    EXPECT_EQ(insp(d).stats().skipped_ops, 2u);
  });
}

TEST(FusionStream, KeptIntermediatesAreMaterialisedOnce) {
  both_modes([](const Device& d, bool exec) {
    auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
    auto a = x * 3.0f;  // kept
    auto b = (a + 1.0f).exp();
    auto got_b = vec(b);
    EXPECT_FLOAT_EQ(got_b[0], std::exp(4.0f));
    EXPECT_EQ(vec(a), (std::vector<float>{3, 6, 9, 12}));
    EXPECT_EQ(trace_of(d).count(OpId::mul_scalar), exec ? 0u : 1u) << "a was computed again";
    EXPECT_EQ(insp(d).stats().flushes, 1u);
    // Fused: one program storing a and b; the sum in between stays in registers.
    if (exec) {
      EXPECT_EQ(insp(d).last_plan(), (std::vector<std::string>{"fused[mul_scalar add_scalar exp] -> 2"}));
      EXPECT_EQ(insp(d).stats().stored, 2u);
    }
  });
}

TEST(FusionStream, NonFusableOpsRunTheirInputsFirst) {
  both_modes([](const Device& d, bool) {
    auto a = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
    auto b = a * 2.0f;
    auto c = (b + a).transpose();                     // 3a, transposed
    EXPECT_EQ(trace_of(d).count(OpId::permute), 1u);  // a layout op is not deferred
    EXPECT_EQ(vec(c), (std::vector<float>{3, 9, 6, 12}));
    EXPECT_EQ(vec(b), (std::vector<float>{2, 4, 6, 8}));
  });
}

TEST(FusionStream, SyncRunsPendingOps) {
  both_modes([](const Device& d, bool exec) {
    auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
    auto y = x.exp().exp();
    d.sync();
    EXPECT_EQ(insp(d).stats().flushes, 1u);
    EXPECT_EQ(trace_of(d).count(OpId::exp), exec ? 0u : 2u);
    EXPECT_FLOAT_EQ(vec(y)[0], std::exp(std::exp(1.0f)));
    EXPECT_EQ(insp(d).stats().flushes, 1u);  // the read found it done
  });
}

TEST(FusionStream, IntAndBoolChains) {
  both_modes([](const Device& d, bool) {
    auto i = Tensor<2, Int>::from_vector(std::vector<int64_t>{1, -2, 3, -4}, Shape{2, 2}, d);
    auto m = (i * 3 + 1).greater_elem(0);
    auto f = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
    auto r = f.mask_fill(m.bool_not(), -1.0f) + i.abs().to_float();
    EXPECT_EQ(vec(r), (std::vector<float>{2, 1, 6, 3}));
  });
}

TEST(FusionStream, BroadcastsAcrossShapes) {
  both_modes([](const Device& d, bool) {
    auto row = Tensor<2>::from_vector(std::vector<float>{1, 2, 3}, Shape{1, 3}, d);
    auto col = Tensor<2>::from_vector(std::vector<float>{10, 20}, Shape{2, 1}, d);
    auto r = (row * 2.0f + col).sqrt();  // [1,3] then [2,3]: two runs
    const auto got = vec(r);
    EXPECT_FLOAT_EQ(got[0], std::sqrt(12.0f));
    EXPECT_FLOAT_EQ(got[5], std::sqrt(26.0f));
  });
}

TEST(FusionStream, IntDivisionByZeroRaisesAtTheCall) {
  auto d = traced();
  auto i = Tensor<1, Int>::from_vector(std::vector<int64_t>{1, 2}, Shape{2}, d);
  auto z = Tensor<1, Int>::from_vector(std::vector<int64_t>{1, 0}, Shape{2}, d);
  EXPECT_THROW(i / z, ValueError);
}

TEST(FusionThreads, ATensorRecordedOnOneThreadIsReadOnAnother) {
  auto d = Device::get("fusion<cpu>");
  auto x = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
  Tensor<2> y;
  std::thread([&] { y = (x + 1.0f) * 2.0f; }).join();  // the recording thread is gone, its segment pending
  EXPECT_EQ(vec(y), (std::vector<float>{4, 6, 8, 10}));
  Tensor<2> z = y.exp();
  std::vector<float> seen;
  std::thread([&] { seen = vec(z + 1.0f); }).join();  // another thread reads this thread's pending z
  EXPECT_FLOAT_EQ(seen[0], std::exp(4.0f) + 1.0f);
}

TEST(FusionThreads, ConcurrentRecordingAndCrossThreadInputs) {
  auto d = Device::get("fusion<cpu>");
  auto shared =
      Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d) * 1.0f;  // pending on this thread
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      bool good = true;
      for (int k = 0; k < 200; ++k) {
        auto v = (shared + static_cast<float>(t)) * 2.0f - static_cast<float>(k);
        if (k % 7 == 0) {
          const auto got = vec(v);
          good = good && got[3] == (4.0f + t) * 2.0f - k;
        }
      }
      ok[t] = good;
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
  EXPECT_EQ(vec(shared)[2], 3.0f);
}

TEST(FusionAutodiff, GradientsThroughFusion) {
  auto d = Device::get("autodiff<fusion<cpu>>");
  auto x = Tensor<2>::from_vector(std::vector<float>{0.5f, -1, 2, 0.25f}, Shape{2, 2}, d).require_grad();
  auto y = ((x * 2.0f + 1.0f).tanh() * x).sum();
  auto g = x.grad(y.backward());
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->device(), Device::get("fusion<cpu>"));
  const auto got = g->to_vec<float>();
  const float xs[] = {0.5f, -1, 2, 0.25f};
  for (int i = 0; i < 4; ++i) {
    const float t = std::tanh(2 * xs[i] + 1);
    EXPECT_NEAR(got[i], t + xs[i] * 2 * (1 - t * t), 1e-5f) << i;
  }
}

// Which ops each pattern fuses, as the inspector reports it: no silent fallback to op by op.
TEST(FusionPlans, WhatIsFusedPerPattern) {
  auto d = Device::get("fusion<cpu>");
  auto& in = insp(d);
  auto x = Tensor<2>::from_vector(std::vector<float>{0.5f, -1, 2, 0.25f, 1, -2}, Shape{2, 3}, d);
  auto row = Tensor<2>::from_vector(std::vector<float>{1, 2, 3}, Shape{1, 3}, d);
  // Broadcast operand, scalars, a comparison, a mask and a cast: one program; y (kept) and z stored.
  auto y = (x * row + 1.0f).exp();  // exp([1.5, -1, 7; 1.25, 3, -5])
  auto z = y.mask_fill(y.greater_elem(2.0f), 5.0f).to_int();
  EXPECT_EQ(z.to_vec<int64_t>(), (std::vector<int64_t>{5, 0, 5, 5, 5, 0}));
  EXPECT_EQ(in.last_plan(), (std::vector<std::string>{"fused[mul add_scalar exp greater_elem mask_fill cast] -> 2"}));
  // mask_where between two kept branches; both branches and the result are stored.
  auto a = x.relu(), b = x.neg().sigmoid();
  auto w = a.mask_where(x.lower_elem(0.0f), b);
  EXPECT_NEAR(w.to_vec<float>()[1], 1.0f / (1.0f + std::exp(-1.0f)), 1e-6f);
  EXPECT_EQ(in.last_plan(), (std::vector<std::string>{"fused[relu neg sigmoid lower_elem mask_where] -> 3"}));
  // A matmul heads a run of its own, with its epilogue: what it reads comes from the run before.
  auto m = (x * 2.0f).matmul(x.transpose()).relu().exp();
  m.to_vec<float>();
  EXPECT_EQ(in.last_plan(), (std::vector<std::string>{"eager[mul_scalar]", "fused[matmul relu exp] -> 1"}));
  // An op the executor does not run (atan) runs alone with its eager kernel; the search cuts its run
  // around it, and the ops on either side stay fused.
  auto t = (x.atan() * 2.0f).exp();
  EXPECT_EQ(t.to_vec<float>(), (x.to_device(Device::get("cpu")).atan() * 2.0f).exp().to_vec<float>());
  EXPECT_EQ(in.last_plan(), (std::vector<std::string>{"eager[atan]", "fused[mul_scalar exp] -> 1"}));
  auto u = ((x * 0.5f + 1.0f).log1p() - 1.0f).relu();
  EXPECT_EQ(u.to_vec<float>(), ((x.to_device(Device::get("cpu")) * 0.5f + 1.0f).log1p() - 1.0f).relu().to_vec<float>());
  EXPECT_EQ(in.last_plan(), (std::vector<std::string>{"fused[mul_scalar add_scalar] -> 1", "eager[log1p]",
                                                      "fused[sub_scalar relu] -> 1"}));
  // Two ops the executor refuses between one it runs: that op alone is its eager kernel too (one
  // program for a single op saves no pass).
  auto v = x.atan().abs().atan();
  EXPECT_EQ(v.to_vec<float>(), x.to_device(Device::get("cpu")).atan().abs().atan().to_vec<float>());
  EXPECT_EQ(in.last_plan(), (std::vector<std::string>{"eager[atan]", "eager[abs]", "eager[atan]"}));
  // A broadcast to a larger shape starts a new run: [1,3] ops, then [2,3] ops.
  auto r = ((row * 2.0f).sqrt() + x).abs();
  r.to_vec<float>();
  EXPECT_EQ(in.last_plan(), (std::vector<std::string>{"fused[mul_scalar sqrt] -> 1", "fused[add abs] -> 1"}));
}

// A run longer than the search weighs start by start (64 computed ops) is cut along one path: the
// longest accepted piece, the refused op alone, the longest accepted piece.
TEST(FusionPlans, ALongRunIsCutAroundTheOpTheExecutorLacks) {
  auto d = Device::get("fusion<cpu>");
  auto cpu = Device::get("cpu");
  auto x = Tensor<2>::from_vector(std::vector<float>{0.5f, -1, 2, 0.25f, 1, -2}, Shape{2, 3}, d);
  auto chain = [](Tensor<2> y) {
    for (int i = 0; i < 100; ++i) y = i == 40 ? y.atan() : i % 2 ? y * 0.99f : y + 0.01f;
    return y;
  };
  auto y = chain(x);
  EXPECT_EQ(y.to_vec<float>(), chain(x.to_device(cpu)).to_vec<float>());
  const std::vector<std::string> plan = insp(d).last_plan();
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_TRUE(plan[0].starts_with("fused[add_scalar mul_scalar")) << plan[0];
  EXPECT_EQ(plan[1], "eager[atan]");
  EXPECT_TRUE(plan[2].starts_with("fused[mul_scalar add_scalar")) << plan[2];
}

// f64 gelu_tanh fused equals the eager op bit for bit (the executor once let GCC contract its
// multiply-add into an FMA, an ulp away from the eager loop).
TEST(FusionPlans, F64GeluTanhMatchesEagerBits) {
  std::vector<double> v;
  for (int i = -3 * 1024; i <= 3 * 1024; ++i) v.push_back(i / 1024.0);
  const Shape s{static_cast<int64_t>(v.size())};
  auto run = [&](const Device& d) {
    auto x = Tensor<1>::from_vector(v, s, d);
    return ((x * -1.8).gelu_tanh()).to_vec<double>();
  };
  auto d = Device::get("fusion<cpu>");
  const std::vector<double> fused = run(d);
  EXPECT_EQ(insp(d).last_plan(), (std::vector<std::string>{"fused[mul_scalar gelu_tanh] -> 1"}));
  const std::vector<double> eager = run(Device::get("cpu"));
  ASSERT_EQ(fused.size(), eager.size());
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(std::memcmp(&fused[i], &eager[i], 8), 0) << "x = " << v[i];
}

TEST(FusionPlans, ALoopPlansOnce) {
  auto d = Device::get("fusion<cpu>");
  auto& in = insp(d);
  d.sync();
  in.reset_stats();
  auto w = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, d);
  for (int step = 0; step < 10; ++step) {
    auto g = (w * 0.5f).tanh();
    w = w - g * 0.1f;
    w.to_vec<float>();  // one flush per step, the same op sequence each time
  }
  EXPECT_EQ(in.stats().flushes, 10u);
  EXPECT_EQ(in.stats().plan_misses, 1u);
  EXPECT_EQ(in.stats().plan_hits, 9u);
}

}  // namespace
}  // namespace burn
