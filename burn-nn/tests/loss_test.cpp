// Losses against PyTorch (fixtures/loss.json from gen_fixtures_loss.py): every reduction's value on
// cpu and autodiff<cpu>, and the gradients w.r.t. the inputs on autodiff<cpu>; then bad inputs and
// options.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "burn/nn.hpp"
#include "fixture.hpp"

using namespace burn;
using burn::test::ad;
using burn::test::cpu;
using burn::test::expect_close;
using burn::test::fixture_data;
using nn::loss::Reduction;
using Red = std::optional<Reduction>;

namespace {

const nlohmann::json& fixtures() { return burn::test::fixture("loss.json"); }

// A case's inputs by name, on one device; f/i give them typed.
struct Inputs {
  std::map<std::string, TensorHandle> h;
  template <size_t D>
  Tensor<D> f(const std::string& k) const {
    return Tensor<D>(h.at(k));
  }
  template <size_t D>
  Tensor<D, Int> i(const std::string& k) const {
    return Tensor<D, Int>(h.at(k));
  }
};

// The loss of a case: reduced with *r, or unreduced for nullopt.
using Run = std::function<TensorHandle(const Inputs&, Red)>;

Red parse(const std::string& s) {
  if (s == "mean") return Reduction::Mean;
  if (s == "sum") return Reduction::Sum;
  if (s == "batchmean") return Reduction::BatchMean;
  return std::nullopt;
}

// Every reduction of the case: the value on cpu and autodiff<cpu>, the gradients on autodiff<cpu>
// (of the loss, or of sum(loss * gout) without reduction).
void check(const std::string& name, const Run& run, double atol = 1e-5, double rtol = 1e-4) {
  const nlohmann::json& c = fixtures().at(name);
  for (const auto& [red, want] : c.items()) {
    if (red == "inputs") continue;
    const Red r = parse(red);
    for (const Device& d : {cpu(), ad()}) {
      const bool grad = d == ad();
      const std::string what = name + " " + red + (grad ? " autodiff" : " cpu");
      Inputs in;
      for (const auto& [k, j] : c.at("inputs").items()) {
        const bool is_int = j.contains("int");
        TensorHandle h =
            api::from_data(d, fixture_data(j, is_int ? DType::I64 : DType::F32), is_int ? Kind::Int : Kind::Float);
        if (grad && want.at("grad").contains(k)) h = api::set_require_grad(h, true);
        in.h[k] = h;
      }
      const TensorHandle y = run(in, r);
      expect_close(api::into_data(y), want.at("value"), atol, rtol, what);
      if (!grad) continue;
      const TensorHandle l =
          r ? y
            : api::reduce_all(OpId::sum, api::mul(y, api::from_data(d, fixture_data(want.at("gout")), Kind::Float)));
      const Gradients g = api::backward(l, {});
      for (const auto& [k, gw] : want.at("grad").items()) {
        const std::optional<TensorHandle> gk = api::grad(in.h.at(k), g);
        ASSERT_TRUE(gk) << what << ": no gradient for " << k;
        expect_close(api::into_data(*gk), gw, atol, rtol, what + " grad " + k);
      }
    }
  }
}

// The call throws E whose message holds every one of `parts`.
template <typename E, typename F>
void expect_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    for (const std::string& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

// ---- classification ----

TEST(CrossEntropyLoss, LogitsMatchPyTorch) {
  const auto loss = nn::loss::CrossEntropyLossConfig{}.init(cpu());
  check("ce_logits", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.i<1>("t"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.i<1>("t")).handle();
  });
}

TEST(CrossEntropyLoss, WeightsSmoothingAndPadTokenMatchPyTorch) {
  nn::loss::CrossEntropyLossConfig cfg;
  cfg.pad_tokens = {2};
  cfg.weights = {0.5, 1.0, 2.0, 0.25, 1.5};
  cfg.smoothing = 0.1;
  const auto loss = cfg.init(cpu());  // weights on cpu, moved to the input's device
  check("ce_weights_smoothing_pad", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.i<1>("t"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.i<1>("t")).handle();
  });
}

TEST(CrossEntropyLoss, NegativePadTokenWithSmoothingMatchesPyTorch) {
  nn::loss::CrossEntropyLossConfig cfg;
  cfg.pad_tokens = {-100};
  cfg.smoothing = 0.25;
  const auto loss = cfg.init(cpu());
  check("ce_smoothing_pad_neg", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.i<1>("t"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.i<1>("t")).handle();
  });
}

TEST(CrossEntropyLoss, ProbabilitiesMatchPyTorchsNllOfTheirLog) {
  nn::loss::CrossEntropyLossConfig cfg;
  cfg.weights = {0.5, 1.0, 2.0, 0.25, 1.5};
  cfg.logits = false;
  const auto loss = cfg.init(cpu());
  check("ce_probs_weights", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.i<1>("t"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.i<1>("t")).handle();
  });
}

TEST(CrossEntropyLoss, ProbabilitiesWithSmoothingAndPadTokenMatchPyTorchsFormula) {
  nn::loss::CrossEntropyLossConfig cfg;
  cfg.weights = {0.5, 1.0, 2.0, 0.25, 1.5};
  cfg.smoothing = 0.2;
  cfg.pad_tokens = {3};
  cfg.logits = false;
  const auto loss = cfg.init(cpu());
  check("ce_probs_smoothing_pad", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.i<1>("t"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.i<1>("t")).handle();
  });
}

TEST(CrossEntropyLoss, SeveralPadTokensDropTheirRows) {
  const Tensor<2> x =
      Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 0, -1, 2, 4, 1, 0, 2, 2, 2}, Shape{4, 3}, cpu());
  const auto t = Tensor<1, Int>::from_list<int64_t>({0, 1, 2, 1}, cpu());
  const auto t_masked = Tensor<1, Int>::from_list<int64_t>({7, 1, 9, 1}, cpu());  // rows 0 and 2 padded
  nn::loss::CrossEntropyLossConfig cfg;
  const std::vector<float> full = cfg.init(cpu()).forward_no_reduction(x, t).to_vec<float>();
  cfg.pad_tokens = {7, 9};
  const auto loss = cfg.init(cpu());
  const std::vector<float> got = loss.forward_no_reduction(x, t_masked).to_vec<float>();
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_EQ(got[2], 0.0f);
  EXPECT_FLOAT_EQ(got[1], full[1]);
  EXPECT_FLOAT_EQ(got[3], full[3]);
  EXPECT_FLOAT_EQ(loss.forward(x, t_masked).item<float>(), (full[1] + full[3]) / 2);
}

TEST(CrossEntropyLoss, BadInputsAreNamedErrors) {
  const auto loss = nn::loss::CrossEntropyLossConfig{}.init(cpu());
  const Tensor<2> x = Tensor<2>::zeros(Shape{3, 4}, cpu());
  expect_error<ShapeError>([&] { loss.forward(x, Tensor<1, Int>::zeros(Shape{2}, cpu())); },
                           {"CrossEntropyLoss", "[2]", "[3, 4]"});
  expect_error<IndexError>(
      [&] {
        loss.forward(x, Tensor<1, Int>::from_list<int64_t>({0, 4, 1}, cpu()));
      },
      {"CrossEntropyLoss", "target 4", "row 1", "4"});
  nn::loss::CrossEntropyLossConfig cfg;
  cfg.weights = {1, 2};
  expect_error<ShapeError>([&] { cfg.init(cpu()).forward(x, Tensor<1, Int>::zeros(Shape{3}, cpu())); },
                           {"CrossEntropyLoss", "weights [2]", "(4)"});
  cfg.smoothing = 1.5;
  expect_error<ValueError>([&] { cfg.init(cpu()); }, {"CrossEntropyLossConfig::init", "smoothing", "1.5"});
  expect_error<ValueError>([&] { loss.forward(x, Tensor<1, Int>::zeros(Shape{3}, cpu()), Reduction::BatchMean); },
                           {"CrossEntropyLoss", "BatchMean"});
}

TEST(CrossEntropyLoss, ConfigRoundTripsThroughJson) {
  nn::loss::CrossEntropyLossConfig cfg;
  cfg.pad_tokens = {0, -100};
  cfg.weights = {0.5, 2.0};
  cfg.smoothing = 0.125;
  cfg.logits = false;
  const auto back = nn::loss::CrossEntropyLossConfig::from_json(cfg.to_json());
  EXPECT_EQ(back.pad_tokens, cfg.pad_tokens);
  EXPECT_EQ(back.weights, cfg.weights);
  EXPECT_EQ(back.smoothing, 0.125);
  EXPECT_FALSE(back.logits);
}

TEST(BinaryCrossEntropyLoss, ProbabilitiesWithWeightsMatchPyTorch) {
  nn::loss::BinaryCrossEntropyLossConfig cfg;
  cfg.weights = {0.5, 1.0, 2.0, 1.5};
  const auto loss = cfg.init(cpu());
  check("bce_probs_weights", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<3>("x"), in.f<3>("y"), *r).handle()
             : loss.forward_no_reduction(in.f<3>("x"), in.f<3>("y")).handle();
  });
}

TEST(BinaryCrossEntropyLoss, LogitsWithWeightsAndPosWeightMatchPyTorch) {
  nn::loss::BinaryCrossEntropyLossConfig cfg;
  cfg.logits = true;
  cfg.weights = {0.5, 1.0, 2.0, 1.5};
  cfg.pos_weight = {3.0, 0.5, 1.0, 2.0};
  const auto loss = cfg.init(cpu());
  check("bce_logits_weights_pos_weight", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.f<2>("y"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.f<2>("y")).handle();
  });
}

TEST(BinaryCrossEntropyLoss, LogitsWithSmoothingMatchPyTorch) {
  nn::loss::BinaryCrossEntropyLossConfig cfg;
  cfg.logits = true;
  cfg.smoothing = 0.2;  // y (1 - 0.2) + 0.1
  const auto loss = cfg.init(cpu());
  check("bce_logits_smoothing", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.f<2>("y"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.f<2>("y")).handle();
  });
}

TEST(BinaryCrossEntropyLoss, IntTargetsAreCastToTheInputsFloat) {
  nn::loss::BinaryCrossEntropyLossConfig cfg;
  cfg.logits = true;
  const auto loss = cfg.init(cpu());
  const auto x = Tensor<1>::from_list<float>({2.0f, -1.0f}, cpu());
  const auto y = Tensor<1, Int>::from_list<int64_t>({1, 0}, cpu());
  EXPECT_NEAR(loss.forward(x, y).item<float>(), (std::log1p(std::exp(-2.0)) + std::log1p(std::exp(-1.0))) / 2, 1e-6);
}

TEST(BinaryCrossEntropyLoss, BadInputsAreNamedErrors) {
  const auto loss = nn::loss::BinaryCrossEntropyLossConfig{}.init(cpu());
  const auto p = Tensor<1>::from_list<float>({0.5f, 1.5f}, cpu());
  expect_error<ValueError>([&] { loss.forward(p, p.zeros_like()); }, {"BinaryCrossEntropyLoss", "[0, 1]", "1.5"});
  expect_error<ShapeError>(
      [&] {
        loss.forward(Tensor<2>::zeros(Shape{2, 3}, cpu()), Tensor<2>::zeros(Shape{3, 2}, cpu()));
      },
      {"BinaryCrossEntropyLoss", "[2, 3]", "[3, 2]"});
  nn::loss::BinaryCrossEntropyLossConfig cfg;
  cfg.pos_weight = {2.0};
  expect_error<ValueError>([&] { cfg.init(cpu()); }, {"BinaryCrossEntropyLossConfig::init", "pos_weight", "logits"});
}

TEST(MultiMarginLoss, P1MatchesPyTorch) {
  const auto loss = nn::loss::MultiMarginLossConfig{}.init(cpu());
  check("multi_margin_p1", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.i<1>("t"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.i<1>("t")).handle();
  });
}

TEST(MultiMarginLoss, P2WithWeightsMatchesPyTorch) {
  nn::loss::MultiMarginLossConfig cfg;
  cfg.p = 2;
  cfg.margin = 0.5;
  cfg.weights = {0.5, 1.0, 2.0, 1.5};
  const auto loss = cfg.init(cpu());
  check("multi_margin_p2_weights", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.i<1>("t"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.i<1>("t")).handle();
  });
  nn::loss::MultiMarginLossConfig bad;
  bad.p = 3;
  expect_error<ValueError>([&] { bad.init(cpu()); }, {"MultiMarginLossConfig::init", "p must be 1 or 2", "3"});
}

TEST(SoftMarginLoss, MatchesPyTorch) {
  const nn::loss::SoftMarginLoss loss;
  check("soft_margin", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.f<2>("y"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.f<2>("y")).handle();
  });
}

// ---- regression ----

// An elementwise loss of [3, 4] inputs x, y.
template <typename L>
Run pointwise(const L& loss) {
  return [loss](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.f<2>("y"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.f<2>("y")).handle();
  };
}

TEST(MseLoss, MatchesPyTorch) { check("mse", pointwise(nn::loss::MseLoss{})); }
TEST(L1Loss, MatchesPyTorch) { check("l1", pointwise(nn::loss::L1Loss{})); }
TEST(HuberLoss, MatchesPyTorch) { check("huber", pointwise(nn::loss::HuberLossConfig{0.7}.init())); }
TEST(SmoothL1Loss, MatchesPyTorch) { check("smooth_l1", pointwise(nn::loss::SmoothL1LossConfig{0.5}.init())); }
TEST(SmoothL1Loss, BetaZeroIsL1) { check("smooth_l1_beta0", pointwise(nn::loss::SmoothL1LossConfig{0.0}.init())); }
TEST(KlDivLoss, MatchesPyTorchWithBatchMean) { check("kl_div", pointwise(nn::loss::KlDivLossConfig{}.init())); }
TEST(KlDivLoss, LogTargetMatchesPyTorch) {
  check("kl_div_log_target", pointwise(nn::loss::KlDivLossConfig{true}.init()));
}
TEST(PoissonNllLoss, LogInputMatchesPyTorch) {
  check("poisson_log_input", pointwise(nn::loss::PoissonNllLossConfig{}.init()));
}
TEST(PoissonNllLoss, RatesWithStirlingTermMatchPyTorch) {
  check("poisson_rate_full", pointwise(nn::loss::PoissonNllLossConfig{false, true}.init()));
}

template <size_t DV>
Run gaussian(const nn::loss::GaussianNllLoss& loss) {
  return [loss](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.f<2>("y"), in.f<DV>("v"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.f<2>("y"), in.f<DV>("v")).handle();
  };
}

TEST(GaussianNllLoss, MatchesPyTorchWithAVarianceBelowEps) {
  check("gaussian_nll", gaussian<2>(nn::loss::GaussianNllLossConfig{}.init()));
}
TEST(GaussianNllLoss, OneVariancePerRowMatchesPyTorch) {
  check("gaussian_nll_full_row_var", gaussian<1>(nn::loss::GaussianNllLossConfig{true}.init()));
  check("gaussian_nll_last_dim_1", gaussian<2>(nn::loss::GaussianNllLossConfig{}.init()));
}

TEST(RegressionLosses, BadInputsAreNamedErrors) {
  const Tensor<2> a = Tensor<2>::zeros(Shape{2, 3}, cpu());
  const Tensor<2> b = Tensor<2>::zeros(Shape{2, 4}, cpu());
  expect_error<ShapeError>([&] { nn::loss::MseLoss{}.forward(a, b); }, {"MseLoss", "[2, 3]", "[2, 4]"});
  expect_error<ValueError>([&] { nn::loss::L1Loss{}.forward(a, a, Reduction::BatchMean); }, {"L1Loss", "BatchMean"});
  expect_error<ValueError>([&] { nn::loss::HuberLossConfig{0.0}.init(); }, {"HuberLossConfig::init", "delta", "0"});
  expect_error<ValueError>([&] { nn::loss::SmoothL1LossConfig{-1.0}.init(); }, {"SmoothL1LossConfig::init", "-1"});
  const auto g = nn::loss::GaussianNllLossConfig{}.init();
  expect_error<ShapeError>([&] { g.forward(a, a, Tensor<1>::ones(Shape{3}, cpu())); },
                           {"GaussianNllLoss", "var [3]", "[2, 3]"});
  expect_error<ValueError>([&] { g.forward(a, a, a.full_like(-0.5)); }, {"GaussianNllLoss", "negative", "-0.5"});
}

// ---- embedding / ranking ----

TEST(CosineEmbeddingLoss, MatchesPyTorch) {
  const auto loss = nn::loss::CosineEmbeddingLossConfig{0.2}.init();
  check("cosine_embedding", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("a"), in.f<2>("b"), in.i<1>("y"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("a"), in.f<2>("b"), in.i<1>("y")).handle();
  });
  const Tensor<2> x = Tensor<2>::ones(Shape{2, 3}, cpu());
  expect_error<ValueError>(
      [&] {
        loss.forward(x, x, Tensor<1, Int>::from_list<int64_t>({1, 0}, cpu()));
      },
      {"CosineEmbeddingLoss", "target 0", "neither 1 nor -1"});
}

TEST(HingeEmbeddingLoss, MatchesPyTorch) {
  const auto loss = nn::loss::HingeEmbeddingLossConfig{0.8}.init();
  check("hinge_embedding", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("x"), in.f<2>("y"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("x"), in.f<2>("y")).handle();
  });
}

TEST(MarginRankingLoss, MatchesPyTorch) {
  const auto loss = nn::loss::MarginRankingLossConfig{0.3}.init();
  check("margin_ranking", [&](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<1>("a"), in.f<1>("b"), in.f<1>("y"), *r).handle()
             : loss.forward_no_reduction(in.f<1>("a"), in.f<1>("b"), in.f<1>("y")).handle();
  });
}

Run triplet(const nn::loss::TripletMarginLoss& loss) {
  return [loss](const Inputs& in, Red r) {
    return r ? loss.forward(in.f<2>("a"), in.f<2>("p"), in.f<2>("n"), *r).handle()
             : loss.forward_no_reduction(in.f<2>("a"), in.f<2>("p"), in.f<2>("n")).handle();
  };
}

TEST(TripletMarginLoss, MatchesPyTorch) { check("triplet", triplet(nn::loss::TripletMarginLossConfig{}.init())); }
TEST(TripletMarginLoss, L1NormWithSwapMatchesPyTorch) {
  check("triplet_p1_swap", triplet(nn::loss::TripletMarginLossConfig{0.5, 1.0, 1e-6, true}.init()));
}
TEST(TripletMarginLoss, P3NormMatchesPyTorch) {
  check("triplet_p3", triplet(nn::loss::TripletMarginLossConfig{2.0, 3.0, 1e-4}.init()));
  const Tensor<2> a = Tensor<2>::zeros(Shape{2, 3}, cpu());
  expect_error<ShapeError>(
      [&] {
        nn::loss::TripletMarginLoss{}.forward(a, a, Tensor<2>::zeros(Shape{3, 3}, cpu()));
      },
      {"TripletMarginLoss", "negative [3, 3]"});
  expect_error<ValueError>([&] { nn::loss::TripletMarginLossConfig{1.0, 0.0}.init(); }, {"p must be > 0"});
}

// ---- CTC: the gradient w.r.t. the logits of log_probs = log_softmax(x) ----

Run ctc(const nn::loss::CtcLoss& loss) {
  return [loss](const Inputs& in, Red r) {
    const Tensor<3> lp = in.f<3>("x").log_softmax(2);
    return r ? loss.forward(lp, in.i<2>("t"), in.i<1>("il"), in.i<1>("tl"), *r).handle()
             : loss.forward_no_reduction(lp, in.i<2>("t"), in.i<1>("il"), in.i<1>("tl")).handle();
  };
}

TEST(CtcLoss, MatchesPyTorchWithRepeatsAndAnEmptyTarget) { check("ctc", ctc(nn::loss::CtcLossConfig{}.init())); }

TEST(CtcLoss, LongSequencesMatchPyTorch) { check("ctc_long", ctc(nn::loss::CtcLossConfig{}.init())); }

TEST(CtcLoss, ZeroInfinityZeroesAnImpossibleAlignment) {
  check("ctc_blank4_zero_inf", ctc(nn::loss::CtcLossConfig{4, true}.init()));
}

TEST(CtcLoss, ImpossibleAlignmentIsInfiniteWithoutZeroInfinity) {
  // Targets 1, 1 need a blank between them: three steps at least, two given.
  const Tensor<3> lp = Tensor<3>::zeros(Shape{2, 1, 3}, cpu()).log_softmax(2);
  const auto t = Tensor<2, Int>::from_vector(std::vector<int64_t>{1, 1}, Shape{1, 2}, cpu());
  const auto il = Tensor<1, Int>::from_list<int64_t>({2}, cpu());
  const auto tl = Tensor<1, Int>::from_list<int64_t>({2}, cpu());
  EXPECT_TRUE(std::isinf(nn::loss::CtcLoss{}.forward(lp, t, il, tl).item<float>()));
  // One step of three equiprobable classes emitting 1: -log(1/3).
  const auto one = Tensor<2, Int>::from_vector(std::vector<int64_t>{1}, Shape{1, 1}, cpu());
  EXPECT_NEAR(nn::loss::CtcLoss{}
                  .forward(lp, one, Tensor<1, Int>::from_list<int64_t>({1}, cpu()),
                           Tensor<1, Int>::from_list<int64_t>({1}, cpu()), Reduction::Sum)
                  .item<float>(),
              std::log(3.0), 1e-6);
}

TEST(CtcLoss, BadInputsAreNamedErrors) {
  const Tensor<3> lp = Tensor<3>::zeros(Shape{4, 2, 3}, cpu());
  const auto t = Tensor<2, Int>::from_vector(std::vector<int64_t>{1, 2, 2, 0}, Shape{2, 2}, cpu());
  const auto il = Tensor<1, Int>::from_list<int64_t>({4, 3}, cpu());
  const auto tl = Tensor<1, Int>::from_list<int64_t>({2, 1}, cpu());
  expect_error<ValueError>([&] { nn::loss::CtcLoss{3}.forward(lp, t, il, tl); }, {"CtcLoss", "blank 3", "3"});
  expect_error<ValueError>([&] { nn::loss::CtcLoss{2}.forward(lp, t, il, tl); },
                           {"CtcLoss", "targets[0, 1] = 2", "blank 2"});
  expect_error<ValueError>(
      [&] {
        nn::loss::CtcLoss{}.forward(lp, t, Tensor<1, Int>::from_list<int64_t>({5, 3}, cpu()), tl);
      },
      {"CtcLoss", "input_lengths[0] = 5", "[1, 4]"});
  expect_error<ShapeError>(
      [&] { nn::loss::CtcLoss{}.forward(lp, t, Tensor<1, Int>::from_list<int64_t>({4}, cpu()), tl); },
      {"CtcLoss", "input_lengths [1]", "[4, 2, 3]"});
  expect_error<ValueError>([&] { nn::loss::CtcLoss{}.forward(lp, t, il, tl, Reduction::BatchMean); },
                           {"CtcLoss", "BatchMean"});
}

}  // namespace
