// burn::optim: every optimizer against 20 steps of torch.optim (fixtures/optim.json from
// gen_fixtures_optim.py), the adaptor's walk (buffers, frozen and gradient-less parameters), groups,
// clipping and accumulation, and a bit-exact resume from a saved optimizer state.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "burn/nn.hpp"
#include "burn/optim.hpp"
#include "burn/optim/lbfgs.hpp"
#include "fixture.hpp"

using namespace burn;
using burn::test::ad;
using burn::test::cpu;
using burn::test::expect_close;
using burn::test::fixture_tensor;

namespace {

const nlohmann::json& fixtures() { return burn::test::fixture("optim.json"); }

// The fixture's problem: loss = mean((x w + b - y)^2).
struct Affine {
  nn::Param<Tensor<2>> w;
  nn::Param<Tensor<1>> b;
  BURN_MODULE(w, b)
  Tensor<2> forward(const Tensor<2>& x) const { return x.matmul(w.val()) + b.val().unsqueeze<2>(); }
};

Affine initial(const Device& d) {
  return {nn::Param<Tensor<2>>(fixture_tensor<2>(fixtures()["w0"], d)),
          nn::Param<Tensor<1>>(fixture_tensor<1>(fixtures()["b0"], d))};
}

optim::GradientsParams grads_of(const Affine& m) {
  const Tensor<2> x = fixture_tensor<2>(fixtures()["x"], ad());
  const Tensor<2> y = fixture_tensor<2>(fixtures()["y"], ad());
  Gradients g = (m.forward(x) - y).powf_scalar(2.0).mean().backward();
  return optim::GradientsParams::from_grads(g, m);
}

optim::Optimizer make(const std::string& kind, const nlohmann::json& config) {
  const std::string json = config.dump();
  if (kind == "sgd") return optim::SgdConfig::from_json(json).init();
  if (kind == "adam") return optim::AdamConfig::from_json(json).init();
  if (kind == "adamw") return optim::AdamWConfig::from_json(json).init();
  if (kind == "adagrad") return optim::AdaGradConfig::from_json(json).init();
  if (kind == "rmsprop") return optim::RmsPropConfig::from_json(json).init();
  if (kind == "adan") return optim::AdanConfig::from_json(json).init();
  throw std::runtime_error("unknown optimizer " + kind);
}

std::vector<uint8_t> bits(const nn::ParamBase& p) {
  const TensorData d = api::into_data(p.handle());
  return {d.bytes().begin(), d.bytes().end()};
}

std::string temp_file(const std::string& stem) {
  return (std::filesystem::temp_directory_path() / ("burn_optim_" + std::to_string(::getpid()) + "_" + stem)).string();
}

}  // namespace

class MatchesPyTorch : public ::testing::TestWithParam<std::string> {};

TEST_P(MatchesPyTorch, TwentySteps) {
  const nlohmann::json& c = fixtures()["cases"][GetParam()];
  optim::Optimizer opt = make(c["optimizer"], c["config"]);
  Affine m = initial(ad());
  if (c.contains("groups")) opt.add_group({.ids = {m.w.id()}, .lr_scale = 0.1, .weight_decay = 0.2});
  const double lr = c["lr"];
  for (size_t step = 0; step < c["w"].size(); ++step) {
    m = opt.step(lr, m, grads_of(m));
    expect_close(api::into_data(m.w.handle()), c["w"][step], 1e-5, 1e-5,
                 GetParam() + " w, step " + std::to_string(step + 1));
    expect_close(api::into_data(m.b.handle()), c["b"][step], 1e-5, 1e-5,
                 GetParam() + " b, step " + std::to_string(step + 1));
    // The new values are tracked leaves again, so the next backward reaches them.
    ASSERT_TRUE(api::is_require_grad(m.w.handle()));
    ASSERT_EQ(m.w.handle().device, ad());
  }
}

INSTANTIATE_TEST_SUITE_P(Optim, MatchesPyTorch,
                         ::testing::Values("sgd", "sgd_momentum_dampening_wd", "sgd_nesterov", "sgd_clip_norm", "adam",
                                           "adam_wd_amsgrad", "adamw", "adagrad", "rmsprop",
                                           "rmsprop_centered_momentum", "adam_groups", "adan"));

TEST(Optim, GroupByPathPrefixEqualsGroupById) {
  const nlohmann::json& c = fixtures()["cases"]["adam_groups"];
  optim::Optimizer by_id = make("adam", c["config"]);
  optim::Optimizer by_path = make("adam", c["config"]);
  Affine a = initial(ad()), b = initial(ad());
  by_id.add_group({.ids = {a.w.id()}, .lr_scale = 0.1, .weight_decay = 0.2});
  by_path.add_group({.prefix = "w", .lr_scale = 0.1, .weight_decay = 0.2});
  for (int i = 0; i < 3; ++i) {
    a = by_id.step(0.05, a, grads_of(a));
    b = by_path.step(0.05, b, grads_of(b));
  }
  EXPECT_EQ(bits(a.w), bits(b.w));
  EXPECT_EQ(bits(a.b), bits(b.b));
  EXPECT_THROW(by_id.add_group({}), ValueError);
}

namespace {
struct Net {
  nn::Linear trained, frozen;
  nn::Param<Tensor<1>> running;  // a buffer
  BURN_MODULE(trained, frozen, running)
  Tensor<2> forward(const Tensor<2>& x) const {
    return frozen.forward(trained.forward(x)) + running.val().unsqueeze<2>();
  }
};
}  // namespace

TEST(Optim, SkipsBuffersFrozenAndGradientlessParams) {
  Net n;
  n.trained = nn::LinearConfig{3, 4}.init(ad());
  n.frozen = nn::LinearConfig{4, 2}.init(ad()).no_grad();
  n.running = nn::buffer(Tensor<1>::ones({2}, ad()));
  const Net before = n;
  optim::Optimizer opt = optim::AdamConfig{}.init();
  Gradients g = n.forward(Tensor<2>::ones({5, 3}, ad())).sum().backward();
  optim::GradientsParams gp = optim::GradientsParams::from_grads(g, n);
  ASSERT_EQ(gp.size(), 2u);
  gp.remove(n.trained.bias->id());  // a parameter without a gradient is left as it is
  n = opt.step(0.1, n, gp);
  EXPECT_NE(bits(n.trained.weight), bits(before.trained.weight));
  EXPECT_EQ(bits(*n.trained.bias), bits(*before.trained.bias));
  EXPECT_EQ(bits(n.frozen.weight), bits(before.frozen.weight));
  EXPECT_EQ(bits(n.running), bits(before.running));
  EXPECT_NE(opt.state(n.trained.weight.id()), nullptr);
  EXPECT_EQ(opt.state(n.trained.bias->id()), nullptr);
  EXPECT_EQ(opt.state(n.frozen.weight.id()), nullptr);
  EXPECT_FALSE(api::is_require_grad(n.frozen.weight.handle()));
  EXPECT_EQ(opt.state(n.trained.weight.id())->step, 1);
  EXPECT_EQ(opt.state(n.trained.weight.id())->tensors.size(), 2u);  // moment_1, moment_2
}

TEST(Optim, StepsAModuleOnAPlainDevice) {
  // No autodiff: the gradient comes from elsewhere (here, by hand); SGD is w - lr g exactly.
  Affine m = initial(cpu());
  optim::GradientsParams gp;
  gp.set(m.w.id(), Tensor<2>::full({4, 3}, 2.0, cpu()).handle());
  const std::vector<float> w0 = m.w.val().to_vec<float>();
  m = optim::SgdConfig{}.init().step(0.25, m, gp);
  const std::vector<float> w1 = m.w.val().to_vec<float>();
  for (size_t i = 0; i < w0.size(); ++i) EXPECT_EQ(w1[i], w0[i] - 0.5f);
  EXPECT_EQ(m.w.handle().device, cpu());
}

TEST(Optim, ResumesBitExactlyFromASavedState) {
  // A rule with several state tensors and every option that reads the step count.
  const optim::AdamConfig cfg{.amsgrad = true, .weight_decay = 0.01};
  Affine straight = initial(ad());
  optim::Optimizer a = cfg.init();
  for (int i = 0; i < 10; ++i) straight = a.step(0.05, straight, grads_of(straight));

  Affine first = initial(ad());
  first.w.set_id(straight.w.id());
  first.b.set_id(straight.b.id());
  optim::Optimizer b = cfg.init();
  for (int i = 0; i < 5; ++i) first = b.step(0.05, first, grads_of(first));
  const std::string model_file = temp_file("model.bpz"), optim_file = temp_file("optim.bpz");
  first.save(model_file);
  record::save(optim_file, b.to_record());

  Affine resumed = initial(ad());  // fresh ids: the load restores the saved ones
  ASSERT_TRUE(resumed.load(model_file).ok());
  optim::Optimizer c = cfg.init();
  c.load_record(record::load(optim_file));
  std::filesystem::remove(model_file);
  std::filesystem::remove(optim_file);
  for (int i = 0; i < 5; ++i) resumed = c.step(0.05, resumed, grads_of(resumed));
  EXPECT_EQ(bits(resumed.w), bits(straight.w));
  EXPECT_EQ(bits(resumed.b), bits(straight.b));
  EXPECT_EQ(c.state(resumed.w.id())->step, 10);
  // And the state itself: the record after the resumed steps equals the straight run's.
  EXPECT_TRUE(c.to_record() == a.to_record());
}

TEST(Optim, StateRecordLayoutAndErrors) {
  Affine m = initial(ad());
  optim::Optimizer opt = optim::SgdConfig{.momentum = 0.9}.init();
  m = opt.step(0.1, m, grads_of(m));
  const record::Record rec = opt.to_record();
  EXPECT_EQ(rec.at("rule").as_string(), "sgd");
  const std::string w = "state." + std::to_string(m.w.id());
  EXPECT_EQ(rec.at(w + ".step").as_int(), 1);
  EXPECT_EQ(rec.at(w + ".momentum").tensor().shape(), Shape({4, 3}));

  optim::Optimizer adam = optim::AdamConfig{}.init();
  try {
    adam.load_record(rec);
    FAIL() << "loading SGD's state into Adam must throw";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("'sgd', this optimizer is 'adam'"), std::string::npos) << e.what();
  }
  record::Record bad = rec;
  bad.set("state.notanid.step", int64_t{1});
  EXPECT_THROW(opt.load_record(bad), RecordError);
  bad = rec;
  bad.erase(w + ".step");
  EXPECT_THROW(opt.load_record(bad), RecordError);
  EXPECT_THROW(opt.load_record(record::Record()), RecordError);
}

TEST(Optim, GradientOfTheWrongShapeIsAShapeError) {
  Affine m = initial(cpu());
  optim::GradientsParams gp;
  gp.set(m.w.id(), Tensor<2>::zeros({3, 4}, cpu()).handle());
  try {
    optim::SgdConfig{}.init().step(0.1, m, gp);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'w' is [4, 3] but its gradient is [3, 4]"), std::string::npos)
        << e.what();
  }
}

TEST(OptimConfig, JsonRoundTripAndValidation) {
  const optim::AdamWConfig c{.beta_2 = 0.95, .amsgrad = true, .weight_decay = 0.05};
  const optim::AdamWConfig back = optim::AdamWConfig::from_json(c.to_json());
  EXPECT_EQ(back.beta_2, 0.95);
  EXPECT_TRUE(back.amsgrad);
  EXPECT_EQ(back.weight_decay, 0.05);
  EXPECT_EQ(back.epsilon, 1e-5);  // Burn's default
  EXPECT_EQ(optim::AdamWConfig{}.weight_decay, 1e-4);
  EXPECT_THROW(optim::SgdConfig::from_json(R"({"momentun": 0.9})"), ValueError);
  EXPECT_THROW(optim::AdamConfig{.beta_1 = 1.0}.init(), ValueError);
  EXPECT_THROW((optim::SgdConfig{.nesterov = true}.init()), ValueError);  // Nesterov without momentum
  EXPECT_THROW((optim::RmsPropConfig{.alpha = -0.1}.init()), ValueError);
  EXPECT_THROW((optim::SgdConfig{.grad_clip_norm = 1, .grad_clip_value = 1}.init()), ValueError);
  EXPECT_THROW(optim::SgdConfig{}.init().step(-1.0, initial(cpu()), {}), ValueError);
}

TEST(Clipping, MatchesTorchClipGradNormAndValue) {
  const nlohmann::json& c = fixtures()["clipping"];
  Affine m = initial(cpu());
  auto fresh = [&] {
    optim::GradientsParams gp;
    gp.set(m.w.id(), fixture_tensor<2>(c["grad_w"], cpu()).handle());
    gp.set(m.b.id(), fixture_tensor<1>(c["grad_b"], cpu()).handle());
    return gp;
  };
  struct Case {
    const char* name;
    std::function<double(optim::GradientsParams&)> clip;
  };
  const std::vector<Case> cases = {
      {"norm2", [](auto& g) { return optim::clip_grad_norm(g, 0.5); }},
      {"norm_inf", [](auto& g) { return optim::clip_grad_norm(g, 0.2, INFINITY); }},
      {"norm3_no_clip", [](auto& g) { return optim::clip_grad_norm(g, 100.0, 3.0); }},
      {"value",
       [](auto& g) {
         optim::clip_grad_value(g, 0.3);
         return 0.0;
       }},
  };
  for (const Case& k : cases) {
    optim::GradientsParams gp = fresh();
    const double total = k.clip(gp);
    if (!c[k.name]["total"].is_null()) EXPECT_NEAR(total, c[k.name]["total"].get<double>(), 1e-5) << k.name;
    expect_close(api::into_data(*gp.get(m.w.id())), c[k.name]["w"], 1e-6, 1e-5, k.name);
    expect_close(api::into_data(*gp.get(m.b.id())), c[k.name]["b"], 1e-6, 1e-5, k.name);
  }
  optim::GradientsParams gp = fresh();
  EXPECT_THROW(optim::clip_grad_norm(gp, -1.0), ValueError);
  EXPECT_THROW(optim::clip_grad_value(gp, -1.0), ValueError);
}

TEST(Accumulation, SumsGradientsOverSteps) {
  const Affine m = initial(ad());
  const Tensor<2> x = fixture_tensor<2>(fixtures()["x"], ad()), y = fixture_tensor<2>(fixtures()["y"], ad());
  auto loss = [&](int64_t lo, int64_t hi) {
    return (m.forward(x.slice({Slice::range(lo, hi)})) - y.slice({Slice::range(lo, hi)})).powf_scalar(2.0).sum();
  };
  optim::GradientsAccumulator acc;
  for (int64_t lo : {0, 3, 6}) {
    Gradients g = loss(lo, std::min<int64_t>(lo + 3, 8)).backward();
    acc.accumulate(optim::GradientsParams::from_grads(g, m));
  }
  EXPECT_EQ(acc.steps(), 3u);
  optim::GradientsParams sum = acc.grads();
  Gradients whole = loss(0, 8).backward();
  optim::GradientsParams all = optim::GradientsParams::from_grads(whole, m);
  for (nn::ParamId id : {m.w.id(), m.b.id()}) {
    const std::vector<float> got = api::into_data(*sum.get(id)).to_vec<float>();
    const std::vector<float> want = api::into_data(*all.get(id)).to_vec<float>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i])));
  }
  EXPECT_EQ(acc.steps(), 0u);
  EXPECT_TRUE(acc.grads().empty());
  optim::GradientsParams wrong;
  wrong.set(m.w.id(), Tensor<2>::zeros({2, 2}, cpu()).handle());
  acc.accumulate(sum);
  EXPECT_THROW(acc.accumulate(wrong), ShapeError);
}

namespace {
// The Muon fixture's problem: mean((tanh(x w1) w2 + b2 - y)^2).
struct TwoLayer {
  nn::Param<Tensor<2>> w1, w2;
  nn::Param<Tensor<1>> b2;
  BURN_MODULE(w1, w2, b2)
  Tensor<2> forward(const Tensor<2>& x) const {
    return x.matmul(w1.val()).tanh().matmul(w2.val()) + b2.val().unsqueeze<2>();
  }
};
}  // namespace

TEST(Optim, MuonWithAnAdamWGroupMatchesTheReference) {
  const nlohmann::json& c = fixtures()["muon"];
  TwoLayer m{nn::Param<Tensor<2>>(fixture_tensor<2>(c["w1"], ad())),
             nn::Param<Tensor<2>>(fixture_tensor<2>(c["w2"], ad())),
             nn::Param<Tensor<1>>(fixture_tensor<1>(c["b2"], ad()))};
  const Tensor<2> x = fixture_tensor<2>(c["x"], ad()), y = fixture_tensor<2>(c["y"], ad());
  optim::Optimizer opt = optim::MuonConfig{.weight_decay = c["weight_decay"]}.init();
  opt.add_group({.prefix = "b2", .lr_scale = c["bias_lr_scale"], .rule = optim::AdamWConfig{.epsilon = 1e-8}.rule()});
  const double lr = c["lr"];
  const nlohmann::json& steps = c["steps"];
  for (size_t i = 0; i < steps["w1"].size(); ++i) {
    Gradients g = (m.forward(x) - y).powf_scalar(2.0).mean().backward();
    m = opt.step(lr, m, optim::GradientsParams::from_grads(g, m));
    const std::string at = " step " + std::to_string(i + 1);
    expect_close(api::into_data(m.w1.handle()), steps["w1"][i], 1e-5, 1e-5, "w1" + at);
    expect_close(api::into_data(m.w2.handle()), steps["w2"][i], 1e-5, 1e-5, "w2" + at);
    expect_close(api::into_data(m.b2.handle()), steps["b2"][i], 1e-5, 1e-5, "b2" + at);
  }
  // The group's rule is recorded with its state, and a resumed optimizer with another rule refuses it.
  const record::Record rec = opt.to_record();
  EXPECT_EQ(rec.at("state." + std::to_string(m.b2.id()) + ".rule").as_string(), "adamw");
  EXPECT_FALSE(rec.contains("state." + std::to_string(m.w1.id()) + ".rule"));
  Gradients g = (m.forward(x) - y).powf_scalar(2.0).mean().backward();
  optim::Optimizer muon_only = optim::MuonConfig{}.init();
  const std::vector<uint8_t> w1_before = bits(m.w1);
  optim::GradientsParams gp = optim::GradientsParams::from_grads(g, m);
  EXPECT_THROW(muon_only.step_module(lr, m, gp), ValueError);  // Muon on a vector
  // The step is all or nothing: w1, before b2 in the walk, is not updated either.
  EXPECT_EQ(bits(m.w1), w1_before);
  EXPECT_EQ(muon_only.state(m.w1.id()), nullptr);
  optim::Optimizer wrong = optim::MuonConfig{}.init();
  wrong.add_group({.prefix = "b2", .rule = optim::AdamConfig{}.rule()});
  wrong.load_record(rec);
  Gradients g2 = (m.forward(x) - y).powf_scalar(2.0).mean().backward();
  try {
    wrong.step(lr, m, optim::GradientsParams::from_grads(g2, m));
    FAIL() << "a state made by AdamW used by Adam must throw";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("'b2' was made by 'adamw', its rule is now 'adam'"), std::string::npos)
        << e.what();
  }
}

namespace {
// L-BFGS runs in float64 here, so its branches (line search, tolerances) meet PyTorch's float64 run
// without float32 noise deciding one of them differently.
template <size_t D>
Tensor<D> f64(const nlohmann::json& j) {
  return Tensor<D>::from_data(burn::test::fixture_data(j, DType::F64), ad());
}

TwoLayer two_layer_f64(const nlohmann::json& c) {
  return {nn::Param<Tensor<2>>(f64<2>(c["w1"])), nn::Param<Tensor<2>>(f64<2>(c["w2"])),
          nn::Param<Tensor<1>>(f64<1>(c["b2"]))};
}

optim::Lbfgs::Eval eval_two_layer(const TwoLayer& m, const nlohmann::json& c) {
  const Tensor<2> x = f64<2>(c["x"]), y = f64<2>(c["y"]);
  Tensor<1> loss = (m.forward(x) - y).powf_scalar(2.0).mean();
  Gradients g = loss.backward();
  return {loss.item<double>(), optim::GradientsParams::from_grads(g, m)};
}
}  // namespace

class LbfgsMatchesPyTorch : public ::testing::TestWithParam<std::string> {};

TEST_P(LbfgsMatchesPyTorch, Steps) {
  const nlohmann::json& data = fixtures()["muon"];
  const nlohmann::json& c = fixtures()["lbfgs"][GetParam()];
  optim::Lbfgs lbfgs = optim::LbfgsConfig::from_json(c["config"].dump()).init();
  TwoLayer m = two_layer_f64(data);
  for (size_t i = 0; i < c["steps"].size(); ++i) {
    const nlohmann::json& want = c["steps"][i];
    m = lbfgs.step(m, [&](const TwoLayer& cur) { return eval_two_layer(cur, data); });
    const std::string at = GetParam() + " step " + std::to_string(i + 1);
    EXPECT_EQ(lbfgs.n_iter(), want["n_iter"].get<int64_t>()) << at;
    EXPECT_EQ(lbfgs.func_evals(), want["func_evals"].get<int64_t>()) << at;
    expect_close(api::into_data(m.w1.handle()), want["w1"], 1e-9, 1e-9, "w1 " + at);
    expect_close(api::into_data(m.w2.handle()), want["w2"], 1e-9, 1e-9, "w2 " + at);
    expect_close(api::into_data(m.b2.handle()), want["b2"], 1e-9, 1e-9, "b2 " + at);
  }
}

INSTANTIATE_TEST_SUITE_P(Optim, LbfgsMatchesPyTorch, ::testing::Values("fixed_step", "strong_wolfe"));

TEST(Lbfgs, ReturnsTheFirstLossAndResumesBitExactly) {
  const nlohmann::json& data = fixtures()["muon"];
  const nlohmann::json& c = fixtures()["lbfgs"]["strong_wolfe"];
  const optim::LbfgsConfig cfg = optim::LbfgsConfig::from_json(c["config"].dump());
  auto closure = [&](const TwoLayer& cur) { return eval_two_layer(cur, data); };

  TwoLayer straight = two_layer_f64(data);
  optim::Lbfgs a = cfg.init();
  for (int i = 0; i < 3; ++i) {
    const double first = a.step_module(straight, [&] { return closure(straight); });
    EXPECT_NEAR(first, c["steps"][i]["loss"].get<double>(), 1e-9);
  }

  TwoLayer resumed = two_layer_f64(data);
  optim::Lbfgs b = cfg.init();
  resumed = b.step(resumed, closure);
  const std::string file = temp_file("lbfgs.bpz");
  record::save(file, b.to_record());
  optim::Lbfgs fresh = cfg.init();  // the config is not state: the same one is given again
  fresh.load_record(record::load(file));
  std::filesystem::remove(file);
  EXPECT_EQ(fresh.n_iter(), b.n_iter());
  for (int i = 0; i < 2; ++i) resumed = fresh.step(resumed, closure);
  EXPECT_EQ(bits(resumed.w1), bits(straight.w1));
  EXPECT_EQ(bits(resumed.b2), bits(straight.b2));

  EXPECT_THROW(fresh.load_record(optim::SgdConfig{}.init().to_record()), RecordError);
  EXPECT_THROW(optim::LbfgsConfig{.line_search_fn = "backtracking"}.init(), ValueError);
  EXPECT_THROW(optim::LbfgsConfig{.max_iter = 0}.init(), ValueError);
}

class OptimRecorders : public ::testing::TestWithParam<std::string> {};

// Parameter ids are numeric path segments ("state.1234.moment_1"): every recorder keeps them.
TEST_P(OptimRecorders, StateRoundTripsThroughEachRecorder) {
  Affine m = initial(ad());
  optim::Optimizer opt = optim::RmsPropConfig{.centered = true, .momentum = 0.5}.init();
  for (int i = 0; i < 3; ++i) m = opt.step(0.01, m, grads_of(m));
  const std::string file = temp_file("state" + GetParam());
  record::save(file, opt.to_record());
  optim::Optimizer back = optim::RmsPropConfig{.centered = true, .momentum = 0.5}.init();
  back.load_record(record::load(file));
  std::filesystem::remove(file);
  const record::Record a = opt.to_record(), b = back.to_record();
  EXPECT_EQ(a.tensor_count(), 6u);  // square_avg, grad_avg, momentum for w and b
  for (const record::FlatEntry& e : a.flatten())
    if (e.value->kind() == record::EntryKind::Tensor || e.value->kind() == record::EntryKind::Int)
      EXPECT_TRUE(*e.value == b.at(e.path)) << e.path;
}

INSTANTIATE_TEST_SUITE_P(Optim, OptimRecorders, ::testing::Values(".bpz", ".h5", ".json", ".safetensors"));

TEST(Lbfgs, Float32FollowsTheFloat64Reference) {
  // The usual precision: the same iterates within float32's reach (no tolerance test fires early).
  const nlohmann::json& data = fixtures()["muon"];
  const nlohmann::json& c = fixtures()["lbfgs"]["fixed_step"];
  optim::Lbfgs lbfgs = optim::LbfgsConfig::from_json(c["config"].dump()).init();
  TwoLayer m{nn::Param<Tensor<2>>(fixture_tensor<2>(data["w1"], ad())),
             nn::Param<Tensor<2>>(fixture_tensor<2>(data["w2"], ad())),
             nn::Param<Tensor<1>>(fixture_tensor<1>(data["b2"], ad()))};
  const Tensor<2> x = fixture_tensor<2>(data["x"], ad()), y = fixture_tensor<2>(data["y"], ad());
  for (size_t i = 0; i < c["steps"].size(); ++i) {
    m = lbfgs.step(m, [&](const TwoLayer& cur) {
      Tensor<1> loss = (cur.forward(x) - y).powf_scalar(2.0).mean();
      Gradients g = loss.backward();
      return optim::Lbfgs::Eval{loss.item<double>(), optim::GradientsParams::from_grads(g, cur)};
    });
    expect_close(api::into_data(m.w1.handle()), c["steps"][i]["w1"], 1e-4, 1e-4, "w1 f32 step " + std::to_string(i));
    EXPECT_EQ(m.w1.dtype(), DType::F32);
  }
}
