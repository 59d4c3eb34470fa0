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

// What the fixtures were made with (gen_onnx_export_fixtures.py passes the same to `burn export-onnx`,
// which writes a model at its own opset unless told).
models::ExportSpec fixture_spec(const std::string& model = "mlp") {
  models::ExportSpec s;
  s.seed = 1;
  s.batch = 2;
  s.image_size = 64;
  s.random_norms = true;
  s.onnx.opset = models::exportable_model(model).opset;
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
  const models::ExportedModel m = entry.run(fixture_spec(GetParam()));
  expect_same(run_imported(m.bytes, m.inputs), m.outputs);
  const TensorData want = api::into_data(m.outputs[0]);
  // Not a constant function of nothing: the outputs differ between the batch's rows.
  const auto v = want.to_vec<float>();
  const size_t row = v.size() / 2;
  EXPECT_NE(std::vector<float>(v.begin(), v.begin() + row), std::vector<float>(v.begin() + row, v.end()));

  const ::onnx::ModelProto proto = parse(m.bytes);
  EXPECT_EQ(proto.opset_import(0).version(), entry.opset);
  EXPECT_EQ(proto.graph().input(0).name(), "input_0");
  EXPECT_EQ(proto.graph().output(0).name(), "output_0");
}

// The committed outputs of ONNX Runtime on the file `burn export-onnx` wrote from the same seed.
TEST_P(Exported, MatchesOnnxRuntimeFixture) {
  const std::string path = kFixtures + GetParam() + ".json";
  std::ifstream f(path);
  ASSERT_TRUE(f) << path;
  const auto fx = nlohmann::json::parse(f);
  const auto& entry = models::exportable_model(GetParam());
  // Debian's onnx (1.12) checks opsets to 17; a newer model is checked by ONNX Runtime and the engine.
  if (entry.opset <= 17) EXPECT_EQ(fx["checker"], "ok");
  const models::ExportedModel m = entry.run(fixture_spec(GetParam()));
  ASSERT_EQ(fx["onnxruntime"]["outputs"].size(), m.outputs.size());
  if (fx.contains("newer_opsets_max_abs_diff"))  // the sweeps written at opsets 18 to 22, run in ONNX Runtime
    for (const auto& [opset, diff] : fx["newer_opsets_max_abs_diff"].items())
      EXPECT_LE(diff.get<double>(), 1e-4) << "opset " << opset;
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
  models::ExportSpec s = fixture_spec(GetParam());
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
                         ::testing::Values("mlp", "convnet", "text-classifier", "resnet18", "fashion-cnn", "op-sweep",
                                           "op-sweep-2", "op-sweep-19"),
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

std::set<std::string> node_types(const std::string& bytes) {
  std::set<std::string> types;
  const ::onnx::ModelProto proto = parse(bytes);
  for (const auto& n : proto.graph().node()) types.insert(n.op_type());
  return types;
}

// The op sweeps (re-imported and run in ONNX Runtime with the models above) cover each family's emitters.
TEST(OnnxExport, TheOpSweepReachesEveryFamily) {
  const models::ExportedModel m = models::export_op_sweep(fixture_spec());
  const std::string& bytes = m.bytes;
  const auto dir = std::filesystem::temp_directory_path() / "burn_onnx_export_sweep";
  std::filesystem::create_directories(dir);
  import::write_onnx_file(bytes, (dir / "sweep.onnx").string());  // passes libonnx's checker
  std::filesystem::remove_all(dir);
  const std::set<std::string> types = node_types(bytes);
  for (const char* t : {"Conv",           "ConvTranspose", "MaxPool",    "AveragePool", "LayerNormalization",
                        "GatherElements", "Gather",        "Tile",       "Where",       "Softmax",
                        "LogSoftmax",     "ReduceSum",     "ReduceMean", "ReduceMax",   "ReduceMin",
                        "ArgMax",         "Slice",         "Transpose",  "Erf",         "Tanh",
                        "Clip",           "HardSigmoid",   "Elu",        "LeakyRelu",   "Softplus",
                        "Selu",           "Round",         "Sign",       "Not",         "Cast",
                        "Concat",         "Expand",        "MatMul"})
    EXPECT_TRUE(types.count(t)) << t;
}

// Opset 17 has no GroupNormalization: torch.onnx's decomposition (around InstanceNormalization) instead.
TEST(OnnxExport, TheSecondSweepWritesItsOpsAtOpset17) {
  const models::ExportedModel m = models::export_op_sweep_2(fixture_spec("op-sweep-2"));
  const auto dir = std::filesystem::temp_directory_path() / "burn_onnx_export_sweep2";
  std::filesystem::create_directories(dir);
  import::write_onnx_file(m.bytes, (dir / "sweep2.onnx").string());  // passes libonnx's checker
  std::filesystem::remove_all(dir);
  const std::set<std::string> types = node_types(m.bytes);
  for (const char* t : {"InstanceNormalization", "Resize", "CumSum", "TopK", "Where", "Softmax"})
    EXPECT_TRUE(types.count(t)) << t;
  EXPECT_FALSE(types.count("GroupNormalization"));
}

// From opset 18 the reductions take their axes as an input and group norm is GroupNormalization (its
// per-channel scale and bias from 21); each sweep re-imports to the module's outputs at these opsets.
TEST(OnnxExport, NewerOpsetsReimportToTheModulesOutputs) {
  for (const char* model : {"op-sweep", "op-sweep-2", "op-sweep-19"})
    for (int opset : {18, 19, 21, 22}) {
      if (opset < models::exportable_model(model).opset) continue;
      SCOPED_TRACE(std::string(model) + " at opset " + std::to_string(opset));
      models::ExportSpec s = fixture_spec(model);
      s.onnx.opset = opset;
      const models::ExportedModel m = models::exportable_model(model).run(s);
      const ::onnx::ModelProto proto = parse(m.bytes);
      EXPECT_EQ(proto.opset_import(0).version(), opset);
      EXPECT_EQ(proto.ir_version(), opset <= 18 ? 8 : opset <= 20 ? 9 : 10);
      bool scale_is_weight = false;  // burn's per-channel weight is the node's scale from opset 21 on
      for (const auto& n : proto.graph().node()) {
        for (const auto& a : n.attribute())
          EXPECT_FALSE(n.op_type().rfind("Reduce", 0) == 0 && a.name() == "axes") << n.name() << ": axes attribute";
        if (n.op_type() == "GroupNormalization" && n.input(1) == "gn_w") scale_is_weight = true;
      }
      if (std::string(model) != "op-sweep") {
        EXPECT_TRUE(node_types(m.bytes).count("GroupNormalization"));
        EXPECT_EQ(scale_is_weight, opset >= 21);
      }
      expect_same(run_imported(m.bytes, m.inputs), m.outputs);
      // libonnx (1.12) knows opset 17: write_onnx_file checks the rest of the file and writes it.
      const auto dir = std::filesystem::temp_directory_path() / "burn_onnx_export_newer";
      std::filesystem::create_directories(dir);
      import::write_onnx_file(m.bytes, (dir / "m.onnx").string());
      std::filesystem::remove_all(dir);
    }
}

// DeformConv is new in opset 19: below, the export names the op and the opset it needs; an opset the
// exporter does not write is refused with the range.
TEST(OnnxExport, DeformConvNeedsOpset19) {
  models::ExportSpec s = fixture_spec("op-sweep-19");
  s.onnx.opset = 18;
  try {
    models::export_op_sweep_19(s);
    FAIL() << "exported deform_conv2d at opset 18";
  } catch (const Unsupported& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deform_conv2d"), std::string::npos) << what;
    EXPECT_NE(what.find("needs opset 19"), std::string::npos) << what;
  }
  s.onnx.opset = 23;
  EXPECT_THROW(models::export_op_sweep_19(s), ValueError);
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
