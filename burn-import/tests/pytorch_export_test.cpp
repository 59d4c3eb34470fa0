// The .pt writer (the `pytorch` recorder) and the PyTorch export adapter: the files check_pytorch_export.py
// loaded with torch.load(weights_only=True) and into torchvision's resnet18 are what the writer writes
// today; each reads back through the pytorch importer bit for bit; the adapter's names and layouts.
#include <gtest/gtest.h>
#include <unistd.h>

#include "burn/import/importer.hpp"
#include "burn/tensor/error.hpp"
#include "pytorch_export_fixtures.hpp"
#include "writer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using record::EntryKind;

class PyTorchExport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-import-pt-export-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

nlohmann::json checked() {
  std::ifstream in(std::string(BURN_IMPORT_FIXTURES) + "/pytorch/export_check.json");
  return nlohmann::json::parse(in);
}

// The record as the pytorch importer reads it back.
record::Record read_back(const std::string& path) { return import::open(path)->read_all(); }

TEST_F(PyTorchExport, TheFilesPyTorchLoadedAreWhatTheWriterWrites) {
  import::test::write_export_fixtures(dir_);
  const nlohmann::json want = checked();
  for (const char* name : {"sample.pt", "resnet18.pt"}) {
    const auto [size, crc] = import::test::size_and_crc(file(name));
    EXPECT_EQ(size, want[name]["bytes"].get<uint64_t>()) << name << ": rerun burn-import/tests/check_pytorch_export.py";
    EXPECT_EQ(crc, want[name]["crc32"].get<uint32_t>()) << name << ": rerun burn-import/tests/check_pytorch_export.py";
  }
  // What torch did with them (recorded by the script): loaded with weights_only=True, and ResNet-18
  // into torchvision's resnet18 with strict=True, logits within 1e-4 of burn's.
  EXPECT_EQ(want["resnet18.pt"]["load_state_dict"], "strict=True: all keys matched");
  EXPECT_LT(want["resnet18.pt"]["max_abs_logit_difference"].get<double>(), 1e-4);
}

TEST_F(PyTorchExport, EveryKindAndDTypeReadsBackBitForBit) {
  record::Record r = record::test::sample_record();  // with its float scalar (BINFLOAT) too
  record::save(file("all.pt"), r);
  EXPECT_EQ(record::test::first_difference(read_back(file("all.pt")), r), "");
  EXPECT_EQ(record::recorder_for_path(file("x.PTH"))->name(), "pytorch");
}

TEST_F(PyTorchExport, ResNet18ReadsBackBitForBitInPyTorchsNamesAndLayouts) {
  models::ResNet net = import::test::export_resnet();
  const record::Record want = import::export_record(net, import::Adapter::PyTorch);
  import::save_module(net, file("resnet18.pt"), {.adapter = import::Adapter::PyTorch});
  const record::Record back = read_back(file("resnet18.pt"));
  EXPECT_EQ(record::test::first_difference(back, want), "");
  // torchvision's state dict: 102 parameters and running stats, 20 counters, no ids.
  size_t tensors = 0, counters = 0;
  for (const auto& e : back.flatten()) {
    tensors += e.value->kind() == EntryKind::Tensor;
    counters += e.path.ends_with("num_batches_tracked");
  }
  EXPECT_EQ(tensors, 122u);
  EXPECT_EQ(counters, 20u);
  EXPECT_FALSE(back.contains("_param_ids"));
  EXPECT_EQ(back.at("fc.weight").tensor().shape(), (Shape{10, 512}));  // burn's [512, 10] transposed
  const TensorData burn_fc = net.fc.weight.val().into_data();
  EXPECT_EQ(back.at("fc.weight").tensor().to_f64_vec()[1], burn_fc.to_f64_vec()[10]);  // [0][1] is burn's [1][0]
  EXPECT_TRUE(back.at("layer1.0.bn1.weight").tensor() == net.layer1[0].bn1.gamma.val().into_data());
  EXPECT_TRUE(back.at("layer1.0.bn1.bias").tensor() == net.layer1[0].bn1.beta.val().into_data());
  EXPECT_EQ(back.at("bn1.num_batches_tracked").tensor().dtype(), DType::I64);
  // The import adapter takes the file back into a module: the same parameters, strict.
  models::ResNet again = nn::cast(models::ResNetConfig{.num_classes = 10}.init(Device::get("cpu")), DType::F64);
  import::ModuleImportOptions o;
  o.adapter = import::Adapter::PyTorch;
  o.strict = true;
  const import::ImportReport rep = import::load_into(again, file("resnet18.pt"), o);
  EXPECT_TRUE(rep.ok()) << rep.to_string();
  EXPECT_EQ(rep.ignored.size(), 20u);
  const auto pa = nn::named_params(net), pb = nn::named_params(again);
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(api::into_data(pa[i].param->handle()) == api::into_data(pb[i].param->handle())) << pa[i].path;
  }
}

TEST_F(PyTorchExport, ModelSaveWritesPtAndLoadsBackWithItsIds) {
  const Device cpu = Device::get("cpu");
  nn::Linear a = nn::LinearConfig{3, 4}.init(cpu);
  a.save(file("m.pt"));  // burn's own names and ids, through the extension's recorder
  nn::Linear b = nn::LinearConfig{3, 4}.init(cpu);
  const nn::LoadReport r = b.load(file("m.pt"));
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_TRUE(a.weight.val().into_data() == b.weight.val().into_data());
  EXPECT_TRUE(a.bias->val().into_data() == b.bias->val().into_data());
  EXPECT_EQ(a.weight.id(), b.weight.id());
}

TEST_F(PyTorchExport, TheSameRecordGivesTheSameBytes) {
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  record::save(file("a.pt"), import::test::export_sample());
  record::save(file("b.pt"), import::test::export_sample());
  EXPECT_EQ(import::test::size_and_crc(file("a.pt")), import::test::size_and_crc(file("b.pt")));
}

TEST_F(PyTorchExport, WhatAPickleCannotHoldIsRefusedOnSaveAndNothingIsLeft) {
  record::Record r;
  r.set("w", record::Value(std::string("\xff")));
  try {
    record::save(file("bad.pt"), r);
    FAIL();
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("entry 'w': the string is not valid UTF-8"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(PyTorchExport, ThePickleCallsOnlyTorchsRebuildFunctions) {
  record::Record r;
  r.set("w", TensorData::from_vector<float>({1, 2}, {2}));
  const std::string p = import::pytorch::state_dict_pickle(r);
  EXPECT_EQ(p.substr(0, 2), "\x80\x02");  // protocol 2
  std::vector<std::string> globals;
  for (size_t i = p.find('c'); i != std::string::npos; i = p.find('c', i + 1)) {
    const size_t nl = p.find('\n', i);
    const size_t nl2 = nl == std::string::npos ? nl : p.find('\n', nl + 1);
    if (nl2 == std::string::npos) break;
    const std::string g = p.substr(i + 1, nl - i - 1) + "." + p.substr(nl + 1, nl2 - nl - 1);
    if (g == "collections.OrderedDict" || g == "torch._utils._rebuild_tensor_v2" || g == "torch.FloatStorage") {
      globals.push_back(g);
      i = nl2;
    }
  }
  EXPECT_EQ(globals, (std::vector<std::string>{"collections.OrderedDict", "torch._utils._rebuild_tensor_v2",
                                               "torch.FloatStorage", "collections.OrderedDict"}));
}

}  // namespace
