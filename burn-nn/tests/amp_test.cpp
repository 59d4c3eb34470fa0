// Mixed precision: autocast casts exactly the listed ops (burn/tensor/autocast.hpp), an autocast MLP
// step's gradients are the f32 ones within bf16's error, GradScaler follows torch.cuda.amp.GradScaler's
// rules (torch's CPU build disables that scaler without CUDA, so the expected scales below are worked out
// from its documented algorithm: x growth_factor after growth_interval finite steps in a row, x
// backoff_factor and the step skipped on inf/NaN, unscale before clipping), the optimizer's f32 master
// weights, and a model trained in bf16 loading into f32.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "burn/nn.hpp"
#include "burn/optim.hpp"
#include "burn/optim/grad_scaler.hpp"
#include "burn/tensor/autocast.hpp"
#include "fixture.hpp"

using namespace burn;
using burn::test::ad;
using burn::test::cpu;

namespace {

Tensor<2> rand2(int64_t r, int64_t c, const Device& d, uint64_t seed) {
  d.seed(seed);
  return Tensor<2>::random({r, c}, Distribution::normal(0, 1), d);
}

// The lists as torch.autocast's CPU lists and its fp32 pointwise list map onto the op table, written out
// here independently of AutocastPolicy::cpu.
TEST(Autocast, CpuPolicyListsExactlyTheseOps) {
  const std::set<OpId> lower = {OpId::matmul, OpId::conv, OpId::conv_transpose, OpId::attention};
  const std::set<OpId> f32 = {
      OpId::sum,        OpId::sum_dim,     OpId::mean,     OpId::mean_dim, OpId::prod,          OpId::prod_dim,
      OpId::var,        OpId::cumsum,      OpId::cumprod,  OpId::softmax,  OpId::log_softmax,   OpId::layer_norm,
      OpId::group_norm, OpId::batch_norm,  OpId::rms_norm, OpId::exp,      OpId::log,           OpId::log1p,
      OpId::powf,       OpId::powf_scalar, OpId::recip,    OpId::softplus, OpId::log_sigmoid,   OpId::sinh,
      OpId::cosh,       OpId::tan,         OpId::asin,     OpId::acos,     OpId::grid_sample_2d};
  const std::set<OpId> promote = {OpId::add,       OpId::sub,   OpId::mul,           OpId::div,
                                  OpId::remainder, OpId::fmod,  OpId::maximum,       OpId::minimum,
                                  OpId::atan2,     OpId::hypot, OpId::equal,         OpId::not_equal,
                                  OpId::greater,   OpId::lower, OpId::greater_equal, OpId::lower_equal};
  const AutocastPolicy p = AutocastPolicy::cpu(DType::BF16);
  EXPECT_EQ(p.dtype, DType::BF16);
  for (const OpInfo& info : all_ops()) {
    const AutocastCast want = lower.count(info.id)     ? AutocastCast::Lower
                              : f32.count(info.id)     ? AutocastCast::F32
                              : promote.count(info.id) ? AutocastCast::Promote
                                                       : AutocastCast::None;
    EXPECT_EQ(p.cast_of(info.id), want) << info.name;
  }
}

TEST(Autocast, ListedOpsChangeDtypeAndOthersDoNot) {
  const Device d = cpu();
  const Tensor<2> a = rand2(8, 16, d, 1), b = rand2(16, 4, d, 2);
  const Tensor<2> h = a.cast(DType::BF16);
  {
    AutocastGuard amp(DType::BF16);
    ASSERT_NE(autocast_policy(), nullptr);
    // lower: the product of the operands rounded to bf16, in bf16
    const Tensor<2> p = a.matmul(b);
    EXPECT_EQ(p.dtype(), DType::BF16);
    EXPECT_EQ(p.to_vec<float>(), a.cast(DType::BF16).matmul(b.cast(DType::BF16)).to_vec<float>());
    const Tensor<4> x = Tensor<4>::random({1, 2, 5, 5}, Distribution::normal(0, 1), d);
    const Tensor<4> w = Tensor<4>::random({3, 2, 3, 3}, Distribution::normal(0, 1), d);
    EXPECT_EQ(Tensor<4>(api::conv(x.handle(), w.handle(), std::nullopt, ConvOptions{})).dtype(), DType::BF16);
    // f32: softmax, reductions, norms, exp of a bf16 tensor come out f32
    EXPECT_EQ(h.softmax(1).dtype(), DType::F32);
    EXPECT_EQ(h.log_softmax(1).dtype(), DType::F32);
    EXPECT_EQ(h.sum().dtype(), DType::F32);
    EXPECT_EQ(h.mean_dim(1).dtype(), DType::F32);
    EXPECT_EQ(h.exp().dtype(), DType::F32);
    EXPECT_EQ(h.softmax(1).to_vec<float>(), h.cast(DType::F32).softmax(1).to_vec<float>());
    // promote: a bf16 product plus an f32 tensor is f32; two bf16 operands stay bf16
    EXPECT_EQ((h + a).dtype(), DType::F32);
    EXPECT_EQ((h + a).to_vec<float>(), (h.cast(DType::F32) + a).to_vec<float>());
    EXPECT_EQ((h * h).dtype(), DType::BF16);
    EXPECT_EQ(h.greater(a).to_vec<bool>(), h.cast(DType::F32).greater(a).to_vec<bool>());
    // unlisted: in the dtype given
    EXPECT_EQ(a.relu().dtype(), DType::F32);
    EXPECT_EQ(h.relu().dtype(), DType::BF16);
    EXPECT_EQ(a.tanh().dtype(), DType::F32);
    EXPECT_EQ(h.sigmoid().dtype(), DType::BF16);
    // f64 is left alone, as torch leaves double
    EXPECT_EQ(a.cast(DType::F64).matmul(b.cast(DType::F64)).dtype(), DType::F64);
    {
      NoAutocastGuard off;
      EXPECT_EQ(autocast_policy(), nullptr);
      EXPECT_EQ(a.matmul(b).dtype(), DType::F32);
      AutocastGuard inner(DType::F16);
      EXPECT_EQ(a.matmul(b).dtype(), DType::F16);
    }
    EXPECT_EQ(a.matmul(b).dtype(), DType::BF16);  // the outer policy is back
  }
  EXPECT_EQ(autocast_policy(), nullptr);
  EXPECT_EQ(a.matmul(b).dtype(), DType::F32);
  EXPECT_THROW((void)(h + a), DTypeError);  // outside a guard a mix is refused
  EXPECT_THROW(AutocastGuard(DType::F32), ValueError);
}

struct Mlp {
  nn::Linear fc1, fc2;
  BURN_MODULE(fc1, fc2)
  Tensor<2> forward(const Tensor<2>& x) const { return fc2.forward(fc1.forward(x).relu()); }
};

// One step's gradients of an MLP under bf16 autocast against f32: every gradient is f32 (the parameters'
// dtype) and within bf16's rounding of the f32 gradient (relative to the tensor's largest element).
TEST(Autocast, MlpGradientsAreTheF32OnesWithinBf16Error) {
  const Device d = ad();
  d.seed(7);
  const Mlp m{nn::LinearConfig{32, 64}.init(d), nn::LinearConfig{64, 10}.init(d)};
  const Tensor<2> x = rand2(16, 32, d, 8);
  std::vector<int64_t> labels(16);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int64_t>((i * 7) % 10);
  const Tensor<1, Int> y = Tensor<1, Int>::from_vector(labels, {16}, d);
  const nn::loss::CrossEntropyLoss ce = nn::loss::CrossEntropyLossConfig{}.init(d);
  Gradients g32 = ce.forward(m.forward(x), y).backward();
  Tensor<1> loss16;
  {
    AutocastGuard amp(DType::BF16);
    const Tensor<2> logits = m.forward(x);
    EXPECT_EQ(logits.dtype(), DType::BF16);  // Linear runs in bf16, bias included
    loss16 = ce.forward(logits, y);
    EXPECT_EQ(loss16.dtype(), DType::F32);  // the loss in f32
  }
  Gradients g16 = loss16.backward();
  for (const auto& np : nn::detail::named_params(nn::ModuleRef(const_cast<Mlp&>(m)))) {
    const TensorHandle& p = np.param->handle();
    std::optional<TensorHandle> a = api::grad(p, g32), b = api::grad(p, g16);
    ASSERT_TRUE(a && b) << np.path;
    EXPECT_EQ(b->prim->dtype(), DType::F32) << np.path;
    const auto va = api::into_data(*a).to_vec<float>(), vb = api::into_data(*b).to_vec<float>();
    float scale = 0;
    for (float v : va) scale = std::max(scale, std::fabs(v));
    ASSERT_GT(scale, 0.0f) << np.path;
    double worst = 0;
    for (size_t i = 0; i < va.size(); ++i) worst = std::max(worst, std::fabs(double(va[i]) - vb[i]) / scale);
    // bf16 keeps 8 significant bits (2^-8 relative); a product of rounded operands over 64 terms and a
    // second rounded layer stay within a few of those.
    EXPECT_LT(worst, 4.0 / 256) << np.path;
    EXPECT_GT(worst, 0.0) << np.path << ": the autocast step should differ from f32 (bf16 products)";
  }
}

struct One {
  nn::Param<Tensor<1>> w;
  BURN_MODULE(w)
};

One one_param(std::vector<float> v, DType dt = DType::F32) {
  return {nn::Param<Tensor<1>>(Tensor<1>::from_vector(v, {static_cast<int64_t>(v.size())}, cpu()).cast(dt))};
}

optim::GradientsParams grads_for(const One& m, std::vector<float> g) {
  optim::GradientsParams gp;
  gp.set(m.w.id(), Tensor<1>::from_vector(g, {static_cast<int64_t>(g.size())}, cpu()).cast(m.w.val().dtype()).handle());
  return gp;
}

TEST(GradScaler, DefaultsAreTorchs) {
  const optim::GradScalerConfig c;
  EXPECT_EQ(c.init_scale, 65536.0);
  EXPECT_EQ(c.growth_factor, 2.0);
  EXPECT_EQ(c.backoff_factor, 0.5);
  EXPECT_EQ(c.growth_interval, 2000);
  EXPECT_THROW(optim::GradScaler({.init_scale = 0}), ValueError);
  EXPECT_THROW(optim::GradScaler({.growth_factor = 1.0}), ValueError);
  EXPECT_THROW(optim::GradScaler({.backoff_factor = 1.0}), ValueError);
  EXPECT_THROW(optim::GradScaler({.growth_interval = 0}), ValueError);
}

// A sequence of finite and non-finite steps with growth_interval 3: the scales and skips torch's
// algorithm gives, step by step.
TEST(GradScaler, ScalesAndSkipsFollowTorchsRules) {
  optim::GradScaler scaler({.init_scale = 1024.0, .growth_interval = 3});
  optim::Optimizer sgd = optim::SgdConfig{}.init();
  One m = one_param({1.0f, 2.0f});
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  struct Step {
    std::vector<float> scaled_grad;
    bool stepped;
    double scale_after;
    int64_t tracker_after;
  };
  // finite: 1 good step; 2 good steps; the 3rd grows x2 and the tracker restarts; inf: skipped, backs off
  // x0.5; NaN: skipped, backs off again; a good step; -inf resets the run of good ones; 3 good steps grow.
  const std::vector<Step> steps = {
      {{1024.0f, 2048.0f}, true, 1024.0, 1}, {{512.0f, 0.0f}, true, 1024.0, 2}, {{1024.0f, 1024.0f}, true, 2048.0, 0},
      {{inf, 1.0f}, false, 1024.0, 0},       {{1.0f, nan}, false, 512.0, 0},    {{512.0f, 512.0f}, true, 512.0, 1},
      {{-inf, 0.0f}, false, 256.0, 0},       {{256.0f, 0.0f}, true, 256.0, 1},  {{256.0f, 0.0f}, true, 256.0, 2},
      {{256.0f, 0.0f}, true, 512.0, 0},
  };

  std::vector<float> w = {1.0f, 2.0f};
  for (size_t i = 0; i < steps.size(); ++i) {
    const double scale = scaler.get_scale();
    optim::GradientsParams g = grads_for(m, steps[i].scaled_grad);
    const bool stepped = scaler.step(sgd, 1.0, nn::ModuleRef(m), g);
    EXPECT_EQ(stepped, steps[i].stepped) << "step " << i;
    if (stepped)  // SGD lr 1 with the unscaled gradient
      for (size_t k = 0; k < w.size(); ++k) w[k] -= static_cast<float>(steps[i].scaled_grad[k] / scale);
    EXPECT_EQ(m.w.val().to_vec<float>(), w) << "step " << i << ": a skipped step leaves the parameter";
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), steps[i].scale_after) << "step " << i;
    EXPECT_EQ(scaler.growth_tracker(), steps[i].tracker_after) << "step " << i;
  }
  EXPECT_THROW(scaler.update(), ValueError);  // no step since the last update
}

TEST(GradScaler, ScalesTheLossAndStopsGrowingAtF32sLargestPowerOfTwo) {
  optim::GradScaler scaler({.init_scale = 0x1p127, .growth_interval = 1});
  const Tensor<1> loss = Tensor<1>::from_vector(std::vector<float>{0.5f}, {1}, cpu());
  EXPECT_EQ(scaler.scale(loss).to_vec<float>(), std::vector<float>{0x1p126f});
  optim::Optimizer sgd = optim::SgdConfig{}.init();
  One m = one_param({1.0f});
  optim::GradientsParams g = grads_for(m, {0.0f});
  ASSERT_TRUE(scaler.step(sgd, 1.0, nn::ModuleRef(m), g));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 0x1p127);  // 2^128 is inf in f32: not taken
  optim::GradScaler off({.enabled = false});
  EXPECT_EQ(off.scale(loss).to_vec<float>(), std::vector<float>{0.5f});
}

// The optimizer clips the unscaled gradients: a gradient of norm 0.5 under clip_grad_norm(1) is not
// clipped, though its scaled form (norm 32768) would be.
TEST(GradScaler, UnscalesBeforeClipping) {
  optim::GradScaler scaler;
  optim::Optimizer sgd = optim::SgdConfig{}.init();
  sgd.set_clipping(optim::GradientClipping::norm(1.0));
  One m = one_param({1.0f, 1.0f});
  optim::GradientsParams g = grads_for(m, {0.3f * 65536.0f, 0.4f * 65536.0f});
  ASSERT_TRUE(scaler.step(sgd, 1.0, nn::ModuleRef(m), g));
  const auto w = m.w.val().to_vec<float>();
  EXPECT_FLOAT_EQ(w[0], 0.7f);
  EXPECT_FLOAT_EQ(w[1], 0.6f);
}

// Updates below a bf16 parameter's resolution accumulate in its f32 master copy; without it they round away.
TEST(MasterWeights, SmallUpdatesAccumulateInF32) {
  for (bool master : {false, true}) {
    optim::Optimizer sgd = optim::SgdConfig{}.init();
    sgd.set_master_weights(master);
    One m = one_param({1.0f}, DType::BF16);
    for (int i = 0; i < 100; ++i) {
      optim::GradientsParams g = grads_for(m, {0.1f});
      sgd.step_module(1e-3, nn::ModuleRef(m), g);  // -1e-4 a step; bf16's spacing below 1 is 2^-8
    }
    EXPECT_EQ(m.w.val().dtype(), DType::BF16);
    const float v = m.w.val().to_vec<float>()[0];
    if (!master) {
      EXPECT_EQ(v, 1.0f);
      EXPECT_EQ(sgd.state(m.w.id())->has("master"), false);
    } else {
      const TensorHandle& mw = sgd.state(m.w.id())->at("master", "test");
      EXPECT_EQ(mw.prim->dtype(), DType::F32);
      EXPECT_NEAR(api::into_data(mw).to_vec<float>()[0], 0.99f, 1e-5);
      EXPECT_EQ(v, 0.98828125f);  // 0.99 rounded to bf16
    }
  }
}

// A model trained with bf16 parameters (and f32 master weights) saves and loads into an f32 model of the
// same structure: its values widened exactly.
TEST(MasterWeights, ModelTrainedInBf16LoadsIntoF32) {
  const Device d = cpu();
  d.seed(3);
  Mlp m = nn::cast(Mlp{nn::LinearConfig{4, 8}.init(d), nn::LinearConfig{8, 3}.init(d)}, DType::BF16);
  optim::Optimizer adam = optim::AdamConfig{}.init();
  adam.set_master_weights(true);
  for (int s = 0; s < 3; ++s) {
    optim::GradientsParams g;
    for (const auto& np : nn::detail::named_params(nn::ModuleRef(m)))
      g.set(np.param->id(), api::full(d, np.param->handle().prim->shape(), 0.01 * (s + 1), DType::BF16));
    adam.step_module(1e-2, nn::ModuleRef(m), g);
  }
  const record::Record rec = m.into_record();
  Mlp f = Mlp{nn::LinearConfig{4, 8}.init(d), nn::LinearConfig{8, 3}.init(d)};
  const nn::LoadReport report = f.load_record(rec);
  EXPECT_TRUE(report.ok()) << report.to_string();
  EXPECT_EQ(f.fc1.weight.val().dtype(), DType::F32);
  EXPECT_EQ(f.fc1.weight.val().to_vec<float>(), m.fc1.weight.val().to_vec<float>());
  EXPECT_EQ(f.fc2.bias->val().to_vec<float>(), m.fc2.bias->val().to_vec<float>());
  const Tensor<2> x = rand2(2, 4, d, 4);
  EXPECT_EQ(f.forward(x).dtype(), DType::F32);
}

}  // namespace
