// ONNX out: the exportable models (ResNet-18, the nn examples' MLP, ConvNet and text classifier, the
// demo's FashionCnn) traced into ONNX, re-imported through the project's ONNX engine to the module's
// own outputs, matched against ONNX Runtime's outputs on the same models (fixtures written by
// gen_onnx_export_fixtures.py), with a dynamic batch, and refused clearly where an op has no ONNX form.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "burn/onnx/model.hpp"
#include "exportable.hpp"

using namespace burn;

namespace {

const std::string kFixtures = BURN_IMPORT_FIXTURES "/onnx_export/";

// What the fixtures were made with (gen_onnx_export_fixtures.py passes the same to `burn export-onnx`).
models::ExportSpec fixture_spec() {
  models::ExportSpec s;
  s.seed = 1;
  s.batch = 2;
  s.image_size = 64;
  s.random_norms = true;
  return s;
}

std::vector<TensorHandle> run_imported(const std::string& bytes, const std::vector<TensorHandle>& inputs) {
  auto model = burn::onnx::OnnxModel::parse(bytes, "exported.onnx", {Device::get("cpu"), false});
  return model->forward(inputs);
}

::onnx::ModelProto parse(const std::string& bytes) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

// Each output within 1e-4 (integer outputs exactly).
void expect_same(const std::vector<TensorHandle>& got, const std::vector<TensorHandle>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    const TensorData w = api::into_data(want[i]), g = api::into_data(got[i]);
    ASSERT_EQ(g.shape(), w.shape());
    ASSERT_EQ(g.dtype(), w.dtype());
    if (w.dtype() == DType::I64)
      EXPECT_EQ(g.to_vec<int64_t>(), w.to_vec<int64_t>());
    else
      g.assert_approx_eq(w, 1e-4, 1e-5);
  }
}

class Exported : public ::testing::TestWithParam<std::string> {};

TEST_P(Exported, ReimportsToTheModulesOutputs) {
  const auto& entry = models::exportable_model(GetParam());
  const models::ExportedModel m = entry.run(fixture_spec());
  expect_same(run_imported(m.bytes, m.inputs), m.outputs);
  const TensorData want = api::into_data(m.outputs[0]);
  // Not a constant function of nothing: the outputs differ between the batch's rows.
  const auto v = want.to_vec<float>();
  const size_t row = v.size() / 2;
  EXPECT_NE(std::vector<float>(v.begin(), v.begin() + row), std::vector<float>(v.begin() + row, v.end()));

  const ::onnx::ModelProto proto = parse(m.bytes);
  EXPECT_EQ(proto.opset_import(0).version(), 17);
  EXPECT_EQ(proto.graph().input(0).name(), "input_0");
  EXPECT_EQ(proto.graph().output(0).name(), "output_0");
}

// The committed outputs of ONNX Runtime on the file `burn export-onnx` wrote from the same seed.
TEST_P(Exported, MatchesOnnxRuntimeFixture) {
  const std::string path = kFixtures + GetParam() + ".json";
  std::ifstream f(path);
  ASSERT_TRUE(f) << path;
  const auto fx = nlohmann::json::parse(f);
  EXPECT_EQ(fx["checker"], "ok");
  const models::ExportedModel m = models::exportable_model(GetParam()).run(fixture_spec());
  ASSERT_EQ(fx["onnxruntime"]["outputs"].size(), m.outputs.size());
  if (!fx["onnxruntime"].contains("output_0")) {  // too large to keep: what the generator's comparison found
    EXPECT_LE(fx["max_abs_diff_burn_vs_onnxruntime"].get<double>(), 1e-4);
    EXPECT_LE(fx["dynamic_batch_at_3_max_abs_diff"].get<double>(), 1e-4);
    return;
  }
  const auto& out = fx["onnxruntime"]["output_0"];
  std::vector<float> values;
  for (double x : out["values"]) values.push_back(static_cast<float>(x));
  const TensorData ort = TensorData::from_vector(values, Shape(out["shape"].get<std::vector<int64_t>>()));
  api::into_data(m.outputs[0]).assert_approx_eq(ort, 1e-4, 1e-4);
}

TEST_P(Exported, DynamicBatchRunsAtAnotherBatchSize) {
  models::ExportSpec s = fixture_spec();
  s.onnx.dynamic_batch = true;
  const models::ExportedModel at2 = models::exportable_model(GetParam()).run(s);
  const ::onnx::ModelProto proto = parse(at2.bytes);
  EXPECT_EQ(proto.graph().input(0).type().tensor_type().shape().dim(0).dim_param(), "batch");
  EXPECT_EQ(proto.graph().output(0).type().tensor_type().shape().dim(0).dim_param(), "batch");
  s.batch = 3;
  s.onnx.dynamic_batch = false;
  const models::ExportedModel at3 = models::exportable_model(GetParam()).run(s);
  expect_same(run_imported(at2.bytes, at3.inputs), at3.outputs);
}

INSTANTIATE_TEST_SUITE_P(OnnxExport, Exported,
                         ::testing::Values("mlp", "convnet", "text-classifier", "resnet18", "fashion-cnn", "op-sweep"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(OnnxExport, InitializersAreTheParametersByModulePath) {
  const models::ExportedModel m = models::export_resnet18(fixture_spec());
  std::set<std::string> names;
  const ::onnx::ModelProto proto = parse(m.bytes);
  for (const auto& t : proto.graph().initializer()) names.insert(t.name());
  for (const char* p : {"conv1.weight", "bn1.running_mean", "layer2.0.downsample.0.weight", "fc.weight", "fc.bias"})
    EXPECT_TRUE(names.count(p)) << p;
}

// The op sweep (re-imported and run in ONNX Runtime with the models above) covers each family's emitters.
TEST(OnnxExport, TheOpSweepReachesEveryFamily) {
  const models::ExportedModel m = models::export_op_sweep(fixture_spec());
  const std::string& bytes = m.bytes;
  const auto dir = std::filesystem::temp_directory_path() / "burn_onnx_export_sweep";
  std::filesystem::create_directories(dir);
  import::write_onnx_file(bytes, (dir / "sweep.onnx").string());  // passes libonnx's checker
  std::filesystem::remove_all(dir);
  std::set<std::string> types;
  const ::onnx::ModelProto proto = parse(bytes);
  for (const auto& n : proto.graph().node()) types.insert(n.op_type());
  for (const char* t : {"Conv",           "ConvTranspose", "MaxPool",    "AveragePool", "LayerNormalization",
                        "GatherElements", "Gather",        "Tile",       "Where",       "Softmax",
                        "LogSoftmax",     "ReduceSum",     "ReduceMean", "ReduceMax",   "ReduceMin",
                        "ArgMax",         "Slice",         "Transpose",  "Erf",         "Tanh",
                        "Clip",           "HardSigmoid",   "Elu",        "LeakyRelu",   "Softplus",
                        "Selu",           "Round",         "Sign",       "Not",         "Cast",
                        "Concat",         "Expand",        "MatMul"})
    EXPECT_TRUE(types.count(t)) << t;
}

// A module whose forward runs an op with no ONNX form (cummax) on a parameter of a sub-module.
struct Inner {
  nn::Param<Tensor<2>> w;
  BURN_MODULE(w)
};
struct WithCummax {
  Inner block;
  BURN_MODULE(block)
  Tensor<2> forward(const Tensor<2>& x) const { return x.matmul(block.w.val().cummax(0)); }
};

TEST(OnnxExport, AnOpWithoutOnnxFormIsRefusedByName) {
  const Device cpu = Device::get("cpu");
  WithCummax m{Inner{nn::Param<Tensor<2>>(Tensor<2>::ones({3, 3}, cpu))}};
  const Tensor<2> x = Tensor<2>::ones({2, 3}, cpu);
  try {
    import::export_onnx_bytes(m, {x.handle()}, [](const WithCummax& mod, const std::vector<TensorHandle>& in) {
      return std::vector<TensorHandle>{mod.forward(Tensor<2>(in[0])).handle()};
  });
  FAIL() << "exported an op with no ONNX form";
}
catch (const Unsupported& e) {
  const std::string what = e.what();
  EXPECT_NE(what.find("cummax has no ONNX form"), std::string::npos) << what;
  EXPECT_NE(what.find("module 'block'"), std::string::npos) << what;
}
}  // namespace

// A forward that makes a tensor of the example's batch size from nothing cannot follow a dynamic batch.
struct AddsZeros {
  nn::Param<Tensor<1>> b;
  BURN_MODULE(b)
};

TEST(OnnxExport, DynamicBatchRefusesAConstantOfTheBatchSize) {
  const Device cpu = Device::get("cpu");
  AddsZeros m{nn::Param<Tensor<1>>(Tensor<1>::ones({3}, cpu))};
  auto forward = [](const AddsZeros& mod, const std::vector<TensorHandle>& in) {
    const Tensor<2> x(in[0]);
    const Tensor<2> fixed = Tensor<2>::full(Shape{x.shape()[0], 3}, 2.0f, x.device());  // [batch, 3], not from x
    return std::vector<TensorHandle>{(x + fixed + mod.b.val().unsqueeze<2>()).handle()};
  };
  const Tensor<2> x = Tensor<2>::ones({4, 3}, cpu);
  EXPECT_NO_THROW(import::export_onnx_bytes(m, {x.handle()}, forward));  // a fixed batch is fine
  try {
    import::export_onnx_bytes(m, {x.handle()}, forward, {.dynamic_batch = true});
    FAIL() << "exported a graph pinned to the example batch as dynamic";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("constant of shape [4, 3]"), std::string::npos) << e.what();
  }
}

TEST(OnnxExport, WritesAtomicallyAndRefusesAnInvalidModel) {
  const auto dir = std::filesystem::temp_directory_path() / "burn_onnx_export_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "mlp.onnx").string();
  const models::ExportedModel m = models::export_mlp(fixture_spec());
  import::write_onnx_file(m.bytes, path);
  const auto back = burn::onnx::OnnxModel::load(path, {Device::get("cpu"), false})->forward(m.inputs);
  api::into_data(back[0]).assert_approx_eq(api::into_data(m.outputs[0]), 1e-4, 1e-5);

  // A node reading an undefined value: refused before anything is written, the old file kept.
  ::onnx::ModelProto bad = parse(m.bytes);
  bad.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  try {
    import::write_onnx_file(bad.SerializeAsString(), path);
    FAIL() << "wrote an invalid model";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("nowhere"), std::string::npos) << e.what();
  }
  std::ifstream f(path, std::ios::binary);
  std::string kept((std::istreambuf_iterator<char>(f)), {});
  EXPECT_EQ(kept, m.bytes);
  std::filesystem::remove_all(dir);
}

}  // namespace
