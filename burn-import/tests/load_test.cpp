// burn::import::load and load_into: remapping, selection, top-level keys over every kind of file,
// and the PyTorch adapter, ending with torchvision's ResNet-18 and (reduced-width) ResNet-50 state dicts
// giving PyTorch's logits, and torchvision's full-size ResNet-50 names and shapes loading strictly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "burn/import/load.hpp"
#include "burn/nn.hpp"
#include "burn/tensor/error.hpp"
#include "resnet.hpp"
#include "resnet_fixture.hpp"
#include "safetensors_writer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using import::KeyRemap;

std::string fixture(const std::string& name) { return std::string(BURN_IMPORT_FIXTURES) + "/safetensors/" + name; }
std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("burn_import_load_" + name)).string();
}
Device cpu() { return Device::get("cpu"); }

TEST(KeyRemapping, RulesApplyInOrderWithCaptures) {
  const std::vector<KeyRemap> rules{{"^module\\.", ""}, {"layers\\.([0-9]+)\\.", "blocks.$1."}, {"blocks", "b"}};
  EXPECT_EQ(import::remap_key("module.layers.12.fc.weight", rules), "b.12.fc.weight");
  EXPECT_EQ(import::remap_key("head.weight", rules), "head.weight");
}

TEST(KeyRemapping, ParsesRegexEqualsReplacement) {
  const KeyRemap r = import::parse_remap("^enc\\.(.*)=encoder.$1");
  EXPECT_EQ(r.pattern, "^enc\\.(.*)");
  EXPECT_EQ(r.replacement, "encoder.$1");
  EXPECT_EQ(import::parse_remap("a\\=b=c").pattern, "a=b");
  EXPECT_THROW(import::parse_remap("no-equals"), ValueError);
  EXPECT_THROW(import::parse_remap("([=x"), ValueError);  // not a valid regex
}

TEST(Load, RemapAndSelectRenameTheRecord) {
  import::LoadOptions o;
  o.remap = {{"^encoder\\.linear\\.", "fc."}};
  o.select = "weight$";
  const record::Record r = import::load(fixture("small.safetensors"), o);
  ASSERT_TRUE(r.contains("fc.weight"));
  EXPECT_FALSE(r.contains("fc.bias"));  // not selected
  EXPECT_FALSE(r.contains("encoder"));
  EXPECT_EQ(r.at("fc.weight").tensor().to_vec<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

// A select pattern that keeps nothing is an error naming the file, the pattern and some keys, not an
// empty record (`burn convert --select` used to write an empty file).
TEST(Load, SelectMatchingNothingIsAnErrorNamingThePatternAndSomeKeys) {
  const std::string file = fixture("small.safetensors");
  import::LoadOptions o;
  o.select = "^decoder\\.";
  try {
    import::open(file, o);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()), "[import.select] " + file +
                                         ": select pattern '^decoder\\.' matches none of its 2 keys; they include "
                                         "'encoder.linear.weight', 'encoder.linear.bias'");
  }
  o.remap = {{"^encoder\\.linear\\.", "fc."}};
  o.select = "^encoder";  // seen after remapping: matches nothing
  try {
    import::load(file, o);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()), "[import.select] " + file +
                                         ": select pattern '^encoder' matches none of its 2 keys (after remapping); "
                                         "they include 'fc.weight', 'fc.bias'");
  }
  // The same for a record already read.
  record::Record r;
  for (int i = 0; i < 7; ++i) r.set("k" + std::to_string(i), record::Value(int64_t{i}));
  import::ModuleImportOptions mo;
  mo.load.select = "^z";
  nn::Linear fc = nn::LinearConfig{.d_input = 3, .d_output = 2}.init(Device::get("cpu"));
  try {
    import::load_record_into(fc, r, mo);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()),
              "[import.select] the record: select pattern '^z' matches none of its 7 keys; "
              "they include 'k0', 'k1', 'k2', 'k3', 'k4', ...");
  }
}

TEST(Load, TwoKeysRenamedToOneIsAnErrorNamingBoth) {
  import::LoadOptions o;
  o.remap = {{"(weight|bias)$", "p"}};
  try {
    import::load(fixture("small.safetensors"), o);
    FAIL();
  } catch (const RecordError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("encoder.linear.weight"), std::string::npos) << m;
    EXPECT_NE(m.find("encoder.linear.bias"), std::string::npos) << m;
    EXPECT_NE(m.find("small.safetensors"), std::string::npos) << m;
  }
}

TEST(Load, FloatDTypeCastsFloatsOnly) {
  import::LoadOptions o;
  o.float_dtype = DType::F16;
  const record::Record r = import::load(fixture("all_dtypes.safetensors"), o);
  EXPECT_EQ(r.at("layer.0.bias").tensor().dtype(), DType::F16);
  EXPECT_EQ(r.at("ints.i64").tensor().dtype(), DType::I64);
  EXPECT_EQ(r.at("mask").tensor().dtype(), DType::Bool);
}

TEST(Load, TopLevelKeyOfABurnRecordFile) {
  record::Record rec;
  rec.set("model.fc.weight", TensorData::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}));
  rec.set("optimizer.step", int64_t{7});
  const std::string p = temp("ckpt.bpz");
  record::save(p, rec);
  import::LoadOptions o;
  o.import.top_level_key = "model";
  const record::Record r = import::load(p, o);
  EXPECT_EQ(r.at("fc.weight").tensor().to_vec<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_FALSE(r.contains("optimizer"));
  o.import.top_level_key = "state_dict";
  try {
    import::load(p, o);
    FAIL();
  } catch (const RecordError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("state_dict"), std::string::npos) << m;
    EXPECT_NE(m.find("model, optimizer"), std::string::npos) << m;  // the keys there are
  }
}

// torch.nn's layout: Linear(3, 2), BatchNorm1d(2), LayerNorm(2).
struct Small {
  nn::Linear fc;
  nn::BatchNorm bn;
  nn::LayerNorm ln;
  BURN_MODULE(fc, bn, ln)
};

Small small_module() {
  return Small{nn::LinearConfig{.d_input = 3, .d_output = 2}.init(cpu()),
               nn::BatchNormConfig{.num_features = 2}.init(cpu()), nn::LayerNormConfig{.d_model = 2}.init(cpu())};
}

std::vector<std::pair<std::string, TensorData>> torch_small_state() {
  auto f = [](std::vector<float> v, Shape s) { return TensorData::from_vector(v, s); };
  return {{"fc.weight", f({1, 2, 3, 4, 5, 6}, Shape{2, 3})},  // PyTorch's [out, in]
          {"fc.bias", f({0.5f, -0.5f}, Shape{2})},
          {"bn.weight", f({2, 3}, Shape{2})},
          {"bn.bias", f({0.1f, 0.2f}, Shape{2})},
          {"bn.running_mean", f({0.25f, 0.75f}, Shape{2})},
          {"bn.running_var", f({1.5f, 2.5f}, Shape{2})},
          {"bn.num_batches_tracked", TensorData::from_vector(std::vector<int64_t>{12}, Shape{})},
          {"ln.weight", f({4, 5}, Shape{2})},
          {"ln.bias", f({6, 7}, Shape{2})}};
}

TEST(LoadInto, PyTorchAdapterTransposesLinearAndRenamesNorms) {
  const std::string p = temp("small.safetensors");
  test::write_safetensors(p, torch_small_state());
  Small m = small_module();
  import::ModuleImportOptions o;
  o.adapter = import::Adapter::PyTorch;
  o.strict = true;
  const import::ImportReport r = import::load_into(m, p, o);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.loaded.size(), 8u);
  EXPECT_EQ(r.ignored, std::vector<std::string>{"bn.num_batches_tracked"});
  EXPECT_EQ(m.fc.weight.val().to_vec<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));  // burn's [in, out]
  EXPECT_EQ(m.bn.gamma.val().to_vec<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(m.bn.beta.val().to_vec<float>(), (std::vector<float>{0.1f, 0.2f}));
  EXPECT_EQ(m.bn.running_var.val().to_vec<float>(), (std::vector<float>{1.5f, 2.5f}));
  EXPECT_EQ(m.ln.gamma.val().to_vec<float>(), (std::vector<float>{4, 5}));
  EXPECT_EQ(m.ln.beta->val().to_vec<float>(), (std::vector<float>{6, 7}));
  // The forward pass of torch's Linear: y = x W^T + b with W = [[1,2,3],[4,5,6]].
  const auto y = m.fc.forward(Tensor<2>::from_vector(std::vector<float>{1, 1, 1}, {1, 3}, cpu())).to_vec<float>();
  EXPECT_EQ(y, (std::vector<float>{6.5f, 14.5f}));
}

TEST(LoadInto, WithoutTheAdapterTheReportNamesWhatDoesNotMatch) {
  const std::string p = temp("small2.safetensors");
  test::write_safetensors(p, torch_small_state());
  Small m = small_module();
  const import::ImportReport r = import::load_into(m, p);  // non-strict: loads what matches
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.missing, (std::vector<std::string>{"bn.gamma", "bn.beta", "ln.gamma", "ln.beta"}));
  ASSERT_EQ(r.mismatched.size(), 1u);  // PyTorch's [out, in] = [2, 3] against burn's [in, out] = [3, 2]
  EXPECT_TRUE(r.mismatched[0].starts_with("fc.weight")) << r.mismatched[0];
  EXPECT_NE(std::find(r.unexpected.begin(), r.unexpected.end(), "bn.num_batches_tracked"), r.unexpected.end());
  import::ModuleImportOptions strict;
  strict.strict = true;
  try {
    import::load_into(m, p, strict);
    FAIL();
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("bn.gamma"), std::string::npos) << e.what();
  }
}

// Parameter k of torchvision's state dict (num_batches_tracked skipped), element j in PyTorch's
// layout: examples/models/gen_fixture_resnet.py's formula.
TensorData resnet_param(const std::string& name, const std::vector<int64_t>& shape, int64_t k) {
  const Shape s(shape);
  const int64_t n = s.num_elements();
  std::vector<double> v(static_cast<size_t>(n));
  const bool var = name.ends_with("running_var");
  const bool scale = shape.size() == 1 && name.ends_with(".weight") && !name.starts_with("fc");
  for (int64_t j = 0; j < n; ++j) {
    const double x = std::sin(0.013 * j + 0.7 * k);
    v[j] = var ? 1 + 0.5 * x * x : scale ? 1 + 0.5 * x : 0.05 * x;
  }
  return TensorData::from_vector(v, s);
}

// The test's weights file (f64, 94 MB, so written here rather than committed): torchvision's names,
// shapes and order from resnet18_names.json, values from the formula.
std::string resnet_file() {
  std::ifstream in(fixture("resnet18_names.json"));
  const nlohmann::json names = nlohmann::json::parse(in);
  std::vector<std::pair<std::string, TensorData>> tensors;
  int64_t k = 0;
  for (const auto& e : names) {
    const std::string name = e["name"];
    const auto shape = e["shape"].get<std::vector<int64_t>>();
    if (name.ends_with("num_batches_tracked")) {
      tensors.emplace_back(name, TensorData::from_vector(std::vector<int64_t>{3}, Shape{}));
      continue;
    }
    tensors.emplace_back(name, resnet_param(name, shape, k++));
  }
  const std::string p = temp("resnet18.safetensors");
  test::write_safetensors(p, tensors, {{"format", "pt"}});
  return p;
}

TEST(LoadInto, TorchvisionResNet18GivesPyTorchsLogits) {
  const std::string p = resnet_file();
  // f64 end to end, as the generator computed the logits: the comparison then measures the import,
  // not f32 rounding through 20 layers. load_into casts each tensor to its parameter's dtype.
  models::ResNet net = nn::cast(models::ResNetConfig{.num_classes = 10}.init(cpu()), DType::F64);
  import::ModuleImportOptions o;
  o.adapter = import::Adapter::PyTorch;
  o.strict = true;
  const import::ImportReport r = import::load_into(net, p, o);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.loaded.size(), 102u);  // 62 weights/biases + 40 running stats
  EXPECT_EQ(r.ignored.size(), 20u);  // one num_batches_tracked per BatchNorm
  std::ifstream in(std::string(BURN_EXAMPLES_DIR) + "/models/fixture_resnet18.json");
  const nlohmann::json fx = nlohmann::json::parse(in);
  const int64_t n = 2 * 3 * 64 * 64;
  std::vector<double> x(n);
  for (int64_t j = 0; j < n; ++j) x[j] = std::sin(0.01 * j) + 0.5 * std::cos(0.37 * j);
  const Tensor<4> input(api::from_data(cpu(), TensorData::from_vector(x, Shape{2, 3, 64, 64}), Kind::Float));
  const std::vector<double> got = net.forward(input).into_data().to_f64_vec();
  const std::vector<double> want = fx["logits"]["values"].get<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
  EXPECT_LT(worst, 1e-4);
  std::printf("ResNet-18 import, f64: max |logit - PyTorch's| = %.3g\n", worst);
  // The usual f32 model from the same file (cast on load): f32 rounding through 20 layers.
  models::ResNet net32 = models::ResNetConfig{.num_classes = 10}.init(cpu());
  EXPECT_TRUE(import::load_into(net32, p, o).ok());
  const std::vector<float> got32 = net32.forward(input.cast(DType::F32)).to_vec<float>();
  // The logits are ~200-1200 with these weights, so f32 is judged relative to their scale: ~1e-6 is f32
  // rounding, an import mistake would be O(1).
  double worst32 = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst32 = std::max(worst32, std::abs(got32[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  EXPECT_LT(worst32 / scale, 1e-5);
  std::printf("ResNet-18 import, f32: max |logit - PyTorch's| = %.3g (%.3g of the largest logit)\n", worst32,
              worst32 / scale);
  fs::remove(p);
}

nlohmann::json examples_json(const std::string& name) {
  std::ifstream in(std::string(BURN_EXAMPLES_DIR) + "/models/" + name);
  return nlohmann::json::parse(in);
}

// examples/models/fixture_resnet50.json's reduced ResNet-50 (torchvision's Bottleneck network at a
// width of 8) as a torchvision state dict file: its names, shapes and order, values from the formula
// of resnet_fixture.hpp, f64.
std::string reduced_resnet50_file(const nlohmann::json& fx) {
  std::vector<std::pair<std::string, TensorData>> tensors;
  int64_t k = 0;
  for (const auto& e : fx["state_dict"]) {
    const std::string name = e["name"];
    const auto shape = e["shape"].get<std::vector<int64_t>>();
    if (name.ends_with("num_batches_tracked")) {
      tensors.emplace_back(name, TensorData::from_vector(std::vector<int64_t>{3}, Shape{}));
      continue;
    }
    const Shape s(shape);
    const int64_t fan_in = shape.size() >= 2 ? s.num_elements() / shape[0] : 1;
    tensors.emplace_back(name, TensorData::from_vector(models::fixture::resnet50_param(
                                                           models::fixture::torch_param_kind(name, shape.size()), k++,
                                                           s.num_elements(), fan_in),
                                                       s));
  }
  const std::string p = temp("resnet50_w8.safetensors");
  test::write_safetensors(p, tensors, {{"format", "pt"}});
  return p;
}

TEST(LoadInto, TorchvisionResNet50GivesPyTorchsLogits) {
  const nlohmann::json fx = examples_json("fixture_resnet50.json");
  const std::string p = reduced_resnet50_file(fx);
  models::BottleneckResNet net =
      nn::cast(models::BottleneckResNetConfig{.num_classes = 10, .width = 8}.init(cpu()), DType::F64);
  import::ModuleImportOptions o;
  o.adapter = import::Adapter::PyTorch;
  o.strict = true;
  const import::ImportReport r = import::load_into(net, p, o);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.loaded.size(), fx["params"].get<size_t>());
  EXPECT_EQ(r.ignored.size(), 53u);  // one num_batches_tracked per BatchNorm
  const Tensor<4> x(api::from_data(
      cpu(), TensorData::from_vector(models::fixture::resnet50_images(), Shape{2, 3, 64, 64}), Kind::Float));
  const std::vector<double> want = fx["logits"]["values"].get<std::vector<double>>();
  // f64 as the generator: the import is judged, not rounding; the folded network from the loaded one too.
  const std::vector<double> got = net.forward(x).into_data().to_f64_vec();
  const std::vector<double> folded = net.fold_batch_norms().forward(x).into_data().to_f64_vec();
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(folded.size(), want.size());
  double worst = 0, worst_folded = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - want[i]));
    worst_folded = std::max(worst_folded, std::abs(folded[i] - want[i]));
  }
  EXPECT_LT(worst, 1e-4);
  EXPECT_LT(worst_folded, 1e-4);
  std::printf("reduced ResNet-50 import, f64: max |logit - PyTorch's| = %.3g, folded %.3g\n", worst, worst_folded);
  fs::remove(p);
}

// The full-size network takes torchvision resnet50()'s state dict (names, shapes, order of
// examples/models/resnet50_names.json; zeros: the 100 MB of weights are not the point) strictly.
TEST(LoadInto, TorchvisionResNet50NamesAndShapesLoadStrictly) {
  const nlohmann::json names = examples_json("resnet50_names.json");
  record::Record rec;
  size_t float_entries = 0;
  for (const auto& e : names["state_dict"]) {
    const std::string name = e["name"], dtype = e["dtype"];
    const Shape s(e["shape"].get<std::vector<int64_t>>());
    if (dtype == "int64") {
      rec.set(name, TensorData::from_vector(std::vector<int64_t>(static_cast<size_t>(s.num_elements())), s));
    } else {
      ASSERT_EQ(dtype, "float32") << name;
      rec.set(name, TensorData::from_vector(std::vector<float>(static_cast<size_t>(s.num_elements())), s));
      ++float_entries;
    }
  }
  models::BottleneckResNet net = models::BottleneckResNetConfig{}.init(cpu());
  EXPECT_EQ(net.num_params(), names["num_params"].get<int64_t>());
  import::ModuleImportOptions o;
  o.adapter = import::Adapter::PyTorch;
  o.strict = true;
  const import::ImportReport r = import::load_record_into(net, std::move(rec), o);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.loaded.size(), float_entries);
  EXPECT_EQ(r.loaded.size(), nn::named_params(net).size());
  EXPECT_EQ(r.ignored.size(), 53u);
}

}  // namespace
