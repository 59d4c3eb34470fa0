// The module system: field lists, paths, walkers, devices, freezing, display and records.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "burn/nn.hpp"
#include "burn/optim/grads.hpp"
#include "fixture.hpp"

using namespace burn;
using burn::test::ad;
using burn::test::cpu;

namespace {

struct Block {
  nn::Linear attn;
  std::optional<nn::Linear> gate;
  nn::Dropout dropout;
  BURN_MODULE(attn, gate, dropout)
};

struct Net {
  nn::Linear embed;
  std::vector<Block> blocks;
  nn::Param<Tensor<1>> scale;
  nn::Param<Tensor<1>> running;  // a buffer
  int64_t width = 4;             // a plain value: not listed, not walked
  BURN_MODULE(embed, blocks, scale, running)

  Tensor<2> forward(const Tensor<2>& x) const {
    Tensor<2> h = embed.forward(x);
    for (const Block& b : blocks) {
      h = b.dropout.forward(b.attn.forward(h).relu());
      if (b.gate) h = b.gate->forward(h);
    }
    return h * scale.val().unsqueeze<2>();
  }
};

Net make_net(const Device& d) {
  Net n;
  n.embed = nn::LinearConfig{3, 4}.init(d);
  for (int i = 0; i < 3; ++i) {
    Block b;
    b.attn = nn::LinearConfig{4, 4}.init(d);
    if (i == 1) b.gate = nn::LinearConfig{4, 4, false}.init(d);
    b.dropout = nn::DropoutConfig{0.0}.init();
    n.blocks.push_back(b);
  }
  n.scale = nn::Param<Tensor<1>>(Tensor<1>::ones({4}, d));
  n.running = nn::buffer(Tensor<1>::zeros({4}, d));
  return n;
}

std::vector<std::string> paths(Net& n) {
  std::vector<std::string> out;
  for (const auto& p : nn::named_params(n)) out.push_back(p.path);
  return out;
}

std::vector<float> values(const nn::ParamBase& p) {
  return api::into_data(p.handle()).convert(DType::F32).to_vec<float>();
}

}  // namespace

TEST(Module, PathsFollowTheFieldList) {
  Net n = make_net(cpu());
  EXPECT_EQ(paths(n),
            (std::vector<std::string>{"embed.weight", "embed.bias", "blocks.0.attn.weight", "blocks.0.attn.bias",
                                      "blocks.1.attn.weight", "blocks.1.attn.bias", "blocks.1.gate.weight",
                                      "blocks.2.attn.weight", "blocks.2.attn.bias", "scale", "running"}));
}

TEST(Module, NumParamsCountsTrainableScalars) {
  Net n = make_net(cpu());
  // embed 3*4+4, three attn 4*4+4, one gate 4*4, scale 4; the buffer is not counted.
  EXPECT_EQ(n.num_params(), 16 + 3 * 20 + 16 + 4);
  EXPECT_EQ((nn::LinearConfig{784, 512}.init(cpu()).num_params()), 784 * 512 + 512);
}

TEST(Module, DisplayIsATreeWithShapesAndCounts) {
  Net n = make_net(cpu());
  const std::string s = n.display();
  EXPECT_NE(s.find("Net(  # 96 params"), std::string::npos) << s;
  EXPECT_NE(
      s.find("  (embed): Linear(d_input=3, d_output=4, bias=true) {weight: [3, 4] f32, bias: [4] f32}  # 16 params"),
      std::string::npos)
      << s;
  EXPECT_NE(s.find("  (blocks): [  # 76 params"), std::string::npos) << s;
  EXPECT_NE(s.find("      (gate): Linear(d_input=4, d_output=4, bias=false) {weight: [4, 4] f32}  # 16 params"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("      (dropout): Dropout(prob=0.000000)"), std::string::npos) << s;
  EXPECT_NE(s.find("  running: [4] f32 (buffer)"), std::string::npos) << s;
}

TEST(Module, CopiesShareTensorsAndKeepIds) {
  Net a = make_net(cpu());
  Net b = a;
  EXPECT_EQ(a.embed.weight.id(), b.embed.weight.id());
  EXPECT_NE(a.embed.weight.id(), a.embed.bias->id());
  EXPECT_EQ(a.embed.weight.handle().prim, b.embed.weight.handle().prim);
}

TEST(Module, ToDeviceTracksTrainableParamsAndValidUntracks) {
  Net n = make_net(cpu()).to_device(ad());
  EXPECT_EQ(n.embed.weight.handle().device, ad());
  EXPECT_TRUE(api::is_require_grad(n.embed.weight.handle()));
  EXPECT_FALSE(api::is_require_grad(n.running.handle()));
  Net v = n.valid();
  EXPECT_EQ(v.embed.weight.handle().device, cpu());
  EXPECT_EQ(v.embed.weight.id(), n.embed.weight.id());
  EXPECT_EQ(values(v.embed.weight), values(n.embed.weight));
}

// valid() peels every autodiff layer: on autodiff<autodiff<cpu>> one inner() still left dropout training
// (validation metrics were once computed with dropout active).
TEST(Module, ValidReachesTheInnermostDeviceWhateverTheNesting) {
  const Device twice = Device::get("autodiff<autodiff<cpu>>");
  EXPECT_EQ(nn::valid_device(twice), cpu());
  EXPECT_EQ(nn::valid_device(ad()), cpu());
  EXPECT_EQ(nn::valid_device(cpu()), cpu());
  Net n = make_net(cpu()).to_device(twice);
  n.blocks[0].dropout = nn::DropoutConfig{0.5}.init();
  ASSERT_EQ(n.embed.weight.handle().device, twice);
  Net v = n.valid();
  for (const auto& p : nn::named_params(v)) EXPECT_EQ(p.param->handle().device, cpu()) << p.path;
  EXPECT_EQ(values(v.embed.weight), values(n.embed.weight));
  // Evaluation is deterministic: dropout is the identity, two passes agree bit for bit.
  const Tensor<2> x = Tensor<2>::random({16, 3}, Distribution::normal(0, 1), cpu());
  twice.seed(1);
  const std::vector<float> a = v.forward(x).to_vec<float>();
  twice.seed(2);
  EXPECT_EQ(v.forward(x).to_vec<float>(), a);
}

TEST(Module, FrozenSubmoduleGetsNoGradient) {
  Net n = make_net(cpu()).to_device(ad());
  n.blocks[0] = n.blocks[0].no_grad();
  const Tensor<2> x = Tensor<2>::random({2, 3}, Distribution::normal(0, 1), ad());
  Gradients grads = n.forward(x).sum().backward();
  optim::GradientsParams g = optim::GradientsParams::from_grads(grads, n);
  EXPECT_FALSE(g.get(n.blocks[0].attn.weight.id()));
  EXPECT_TRUE(g.get(n.blocks[1].attn.weight.id()));
  EXPECT_TRUE(g.get(n.embed.weight.id()));
  EXPECT_FALSE(g.get(n.running.id()));
  EXPECT_EQ(g.size(), 8u);  // embed 2, blocks 1 and 2 (attn 2 + gate 1, attn 2), scale
  EXPECT_NE(n.display().find("weight: [4, 4] f32 (frozen)"), std::string::npos);
}

TEST(Module, DropoutTrainsOnlyOnAutodiff) {
  nn::Dropout d = nn::DropoutConfig{0.5}.init();
  const Tensor<2> x = Tensor<2>::ones({64, 64}, cpu());
  EXPECT_EQ(d.forward(x).sum().item<float>(), 4096.0f);  // identity off autodiff
  ad().seed(7);
  const std::vector<float> y = d.forward(x.to_device(ad())).to_vec<float>();
  int zeros = 0;
  for (float v : y) {
    EXPECT_TRUE(v == 0.0f || v == 2.0f) << v;
    zeros += v == 0.0f;
  }
  EXPECT_NEAR(zeros / 4096.0, 0.5, 0.05);
  {
    NoGradGuard no_grad;
    EXPECT_EQ(d.forward(x.to_device(ad())).sum().item<float>(), 4096.0f);
  }
  EXPECT_THROW(nn::DropoutConfig{1.5}.init(), ValueError);
}

class ModuleRecord : public ::testing::TestWithParam<std::string> {
 protected:
  std::string path(const std::string& stem) {
    return (std::filesystem::temp_directory_path() / ("burn_nn_" + stem + std::to_string(::getpid()) + GetParam()))
        .string();
  }
};

TEST_P(ModuleRecord, SaveLoadRoundTripKeepsValuesAndIds) {
  Net a = make_net(cpu());
  const std::string file = path("roundtrip");
  a.save(file);
  Net b = make_net(ad());
  const nn::LoadReport r = b.load(file);
  std::filesystem::remove(file);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.loaded.size(), 11u);
  auto pa = nn::named_params(a), pb = nn::named_params(b);
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(values(*pa[i].param), values(*pb[i].param)) << pa[i].path;
    EXPECT_EQ(pa[i].param->id(), pb[i].param->id()) << pa[i].path;
    EXPECT_EQ(pb[i].param->handle().device, ad());
  }
  EXPECT_TRUE(api::is_require_grad(b.embed.weight.handle()));  // still trainable after the load
}

INSTANTIATE_TEST_SUITE_P(Recorders, ModuleRecord,
                         ::testing::Values(".json", ".bpz", ".h5", ".safetensors", ".mpk", ".mpk.gz", ".bpk"));

TEST(Module, LoadReportsMissingUnexpectedAndMismatched) {
  Net a = make_net(cpu());
  record::Record rec = a.into_record();
  rec.erase("blocks.1.gate.weight");
  rec.set("blocks.9.attn.weight", TensorData::from_vector(std::vector<float>{1, 2}, Shape{2}));
  rec.set("embed.bias", TensorData::from_vector(std::vector<float>{1, 2, 3}, Shape{3}));
  Net b = make_net(cpu());
  const std::vector<float> before = values(b.embed.bias.value());
  try {
    b.load_record(rec);
    FAIL() << "a strict load of a record that does not match must throw";
  } catch (const RecordError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("missing: blocks.1.gate.weight"), std::string::npos) << m;
    EXPECT_NE(m.find("unexpected: blocks.9.attn.weight"), std::string::npos) << m;
    EXPECT_NE(m.find("mismatched: embed.bias: record [3], module [4]"), std::string::npos) << m;
  }
  EXPECT_EQ(values(b.embed.bias.value()), before);  // a failed strict load changes nothing
  const nn::LoadReport r = b.load_record(rec, {.strict = false});
  EXPECT_EQ(r.missing, std::vector<std::string>{"blocks.1.gate.weight"});
  EXPECT_EQ(r.unexpected, std::vector<std::string>{"blocks.9.attn.weight"});
  EXPECT_EQ(r.loaded.size(), 9u);
  EXPECT_EQ(values(b.embed.weight), values(a.embed.weight));
}

TEST(Module, LoadCastsToTheModulePrecisionAndReadsAPrefix) {
  Net a = make_net(cpu());
  record::Record ckpt;
  ckpt.set("model", a.cast(DType::F64).into_record());
  ckpt.set("epoch", int64_t{3});
  Net b = make_net(cpu());
  const nn::LoadReport r = b.load_record(ckpt, {.prefix = "model"});
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(b.embed.weight.dtype(), DType::F32);
  EXPECT_EQ(values(b.embed.weight), values(a.embed.weight));
  EXPECT_THROW(b.load_record(ckpt, {.prefix = "optimizer"}), RecordError);
}

TEST(Module, CastChangesFloatParams) {
  Net n = make_net(cpu()).cast(DType::F64);
  EXPECT_EQ(n.embed.weight.dtype(), DType::F64);
  EXPECT_EQ(n.running.dtype(), DType::F64);
  EXPECT_THROW(make_net(cpu()).cast(DType::I64), DTypeError);
}

TEST(Config, JsonRoundTripAndErrors) {
  nn::LinearConfig c{.d_input = 7, .d_output = 3, .bias = false, .initializer = nn::Initializer::xavier_normal(2.0)};
  const nn::LinearConfig back = nn::LinearConfig::from_json(c.to_json());
  EXPECT_EQ(back.d_input, 7);
  EXPECT_EQ(back.d_output, 3);
  EXPECT_FALSE(back.bias);
  EXPECT_EQ(back.initializer, c.initializer);
  const nn::LinearConfig partial = nn::LinearConfig::from_json(R"({"d_input": 2, "d_output": 5})");
  EXPECT_TRUE(partial.bias);  // the default
  EXPECT_THROW(nn::LinearConfig::from_json(R"({"d_inptu": 2})"), ValueError);
  EXPECT_THROW(nn::LinearConfig::from_json(R"({"d_input": "two"})"), ValueError);
  EXPECT_THROW(nn::LinearConfig::from_json("[1, 2"), ValueError);
  const std::string file = (std::filesystem::temp_directory_path() / "burn_nn_config.json").string();
  c.save(file);
  EXPECT_EQ(nn::LinearConfig::load(file).initializer, c.initializer);
  std::filesystem::remove(file);
  EXPECT_THROW(nn::LinearConfig::load(file), ValueError);
  EXPECT_THROW((nn::LinearConfig{0, 3}.init(cpu())), ValueError);
}
