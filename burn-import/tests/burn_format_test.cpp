// The `burn` importer against NamedMpk files gen_fixtures_burn.py wrote as Rust Burn's
// NamedMpkFileRecorder does: values, ids, metadata, gzip, loading into burn-nn modules, bad files.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "burn/import/importer.hpp"
#include "burn/import/load.hpp"
#include "burn/nn.hpp"
#include "burn/record/quant.hpp"
#include "burn/tensor/error.hpp"
#include "burn_format.hpp"

namespace {

using namespace burn;
using record::EntryKind;

std::string fixture(const std::string& name) { return std::string(BURN_IMPORT_FIXTURES) + "/burn/" + name; }

nlohmann::json expected() {
  std::ifstream in(fixture("expected.json"));
  return nlohmann::json::parse(in);
}

DType read_as(const std::string& d) {
  if (d == "I16") return DType::I32;
  std::string lower = d;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return parse_dtype(lower);
}

void check_all(record::RecordReader& reader) {
  const auto want = expected();
  for (const auto& [name, t] : want["tensors"].items()) {
    SCOPED_TRACE(name);
    const TensorData d = reader.read_tensor(name);
    EXPECT_EQ(d.dtype(), read_as(t["dtype"].get<std::string>()));
    EXPECT_EQ(d.shape(), Shape(t["shape"].get<std::vector<int64_t>>()));
    EXPECT_EQ(d.to_f64_vec(), t["values"].get<std::vector<double>>());  // exact: the same bits
  }
  for (const auto& [name, id] : want["ids"].items()) {
    EXPECT_EQ(reader.read(std::string(nn::kParamIdsGroup) + "." + name).as_int(), id.get<int64_t>()) << name;
  }
  EXPECT_EQ(reader.read("epoch").as_int(), 7);
  EXPECT_EQ(reader.read("lr").as_float(), 0.5);
  EXPECT_EQ(reader.read("name").as_string(), "tiny");
  EXPECT_EQ(reader.find("norm.momentum"), nullptr);  // constants (nil) are not entries
  EXPECT_EQ(reader.find("layers.1.bias"), nullptr);  // None
  ASSERT_NE(reader.metadata().find("version"), nullptr);
  EXPECT_EQ(*reader.metadata().find("version"), "0.18.0");
  EXPECT_EQ(*reader.metadata().find("float"), "f32");
  EXPECT_EQ(reader.metadata().producer, "burn (Rust) 0.18.0");
}

TEST(BurnMpk, EveryValueIdAndMetadata) {
  auto reader = record::burn_format::open_mpk(fixture("model.mpk"), "import.burn");
  check_all(*reader);
}

TEST(BurnMpk, GzipGivesTheSameRecord) {
  auto reader = import::open(fixture("model.mpk.gz"));  // through the plugin, by extension
  check_all(*reader);
  EXPECT_EQ(*reader->metadata().find("compression"), "gzip");
  EXPECT_EQ(import::load(fixture("model.mpk.gz")).at("linear"), import::load(fixture("model.mpk")).at("linear"));
}

TEST(BurnMpk, SniffedWithoutTheExtension) {
  const auto p = std::filesystem::temp_directory_path() / "burn_import_model.bin";
  std::filesystem::copy_file(fixture("model.mpk"), p, std::filesystem::copy_options::overwrite_existing);
  ASSERT_NE(import::importer_for_file(p.string()), nullptr);
  EXPECT_EQ(import::importer_for_file(p.string())->name(), "burn");
}

// Rust Burn's quantized tensors (QFloat; burn-record/tests/fixtures/burn/qfloat_fixtures.py wrote the files)
// import as burn-record's quantized groups, which remap and select move whole, with their ids.
TEST(BurnMpk, QFloatEntriesImportAsQuantizedGroups) {
  for (const char* name : {"qfloat.mpk", "qfloat.bpk"}) {
    SCOPED_TRACE(name);
    import::LoadOptions o;
    o.remap = {{"^per_block\\.", "blk."}};
    o.select = "^(blk|int4)\\.";
    const record::Record r = import::load(fixture(name), o);
    const record::QuantizedEntry q = record::check_quantized(r.at("blk"), "blk", "test");
    EXPECT_EQ(q.scheme, QuantScheme::per_block(4));
    EXPECT_EQ(q.shape, (Shape{2, 8}));
    EXPECT_EQ(r.at("blk.values").tensor().to_vec<int8_t>(),
              (std::vector<int8_t>{-128, -1, 0, 1, 2, 3, 126, 127, 5, -5, 10, -10, 100, -100, 7, -7}));
    EXPECT_EQ(r.at("blk.scales").tensor().to_vec<float>(), (std::vector<float>{0.5f, 0.25f, 0.03125f, 2.0f}));
    EXPECT_TRUE(r.contains("_param_ids.blk.values"));
    EXPECT_EQ(record::check_quantized(r.at("int4"), "int4", "test").scheme, QuantScheme::per_block(8, QuantValue::Q4));
    EXPECT_FALSE(r.contains("per_tensor"));
  }
}

// Rust Burn's layouts are burn-nn's (Linear [in, out], gamma/beta): no adapter, ids kept.
struct Tiny {
  nn::Linear linear;
  nn::BatchNorm norm;
  std::vector<nn::Linear> layers;
  BURN_MODULE(linear, norm, layers)
};

TEST(BurnMpk, LoadsIntoBurnNnModulesWithTheirIds) {
  const Device cpu = Device::get("cpu");
  Tiny m{nn::LinearConfig{.d_input = 3, .d_output = 2}.init(cpu),
         nn::BatchNormConfig{.num_features = 2}.init(cpu),
         {nn::LinearConfig{.d_input = 2, .d_output = 2}.init(cpu),
          nn::LinearConfig{.d_input = 2, .d_output = 1, .bias = false}.init(cpu)}};
  import::ModuleImportOptions o;
  o.load.select = "^(linear|norm|layers)\\.";  // the module's part of the record (ids follow)
  const import::ImportReport r = import::load_into(m, fixture("model.mpk"), o);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.loaded.size(), 9u);
  const auto want = expected();
  EXPECT_EQ(m.linear.weight.val().into_data().to_f64_vec(),
            want["tensors"]["linear.weight"]["values"].get<std::vector<double>>());
  EXPECT_EQ(m.norm.running_var.val().into_data().to_f64_vec(),
            want["tensors"]["norm.running_var"]["values"].get<std::vector<double>>());
  EXPECT_EQ(static_cast<int64_t>(m.layers[1].weight.id()), want["ids"]["layers.1.weight"].get<int64_t>());
}

// Burnpack: the same tensors (a subset), ids from param_id, metadata; aligned and first-version layouts.
TEST(Burnpack, TensorsIdsAndMetadata) {
  const auto want = expected();
  for (const char* file : {"model.bpk", "unaligned.bpk"}) {
    SCOPED_TRACE(file);
    auto reader = import::open(fixture(file));
    for (const char* name :
         {"linear.weight", "linear.bias", "norm.gamma", "half", "small_ints", "mask", "scalar", "empty"}) {
      const auto& t = want["tensors"][name];
      const TensorData d = reader->read_tensor(name);
      EXPECT_EQ(d.dtype(), read_as(t["dtype"].get<std::string>())) << name;
      EXPECT_EQ(d.shape(), Shape(t["shape"].get<std::vector<int64_t>>())) << name;
      EXPECT_EQ(d.to_f64_vec(), t["values"].get<std::vector<double>>()) << name;
    }
    EXPECT_EQ(reader->read("_param_ids.norm.gamma").as_int(), want["ids"]["norm.gamma"].get<int64_t>());
    EXPECT_EQ(reader->find("_param_ids.half"), nullptr);  // no param_id
    EXPECT_EQ(reader->metadata().producer, "burnpack");
    EXPECT_EQ(*reader->metadata().find("producer"), "gen_fixtures_burn.py");
  }
}

// An aligned file cut short by exactly its metadata padding ends where the first writers' layout
// would: its tensors are not packed as those writers packed them, so it is refused as truncated,
// not read with every offset shifted by the padding.
TEST(Burnpack, AlignedFileCutByItsPaddingIsTruncatedNotReadShifted) {
  std::ifstream in(fixture("model.bpk"), std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), {});
  const uint32_t meta = static_cast<uint8_t>(whole[6]) | static_cast<uint8_t>(whole[7]) << 8 |
                        static_cast<uint8_t>(whole[8]) << 16 |
                        static_cast<uint32_t>(static_cast<uint8_t>(whole[9])) << 24;
  const size_t padding = (10 + meta + 255) / 256 * 256 - (10 + meta);
  ASSERT_GT(padding, 0u);
  const std::string cut = testing::TempDir() + "cut_by_padding.bpk";
  std::ofstream(cut, std::ios::binary).write(whole.data(), static_cast<std::streamsize>(whole.size() - padding));
  try {
    import::open(cut)->read_all();
    FAIL() << "a file " << padding << " bytes short was read";
  } catch (const RecordError& e) {
    EXPECT_EQ(std::string(e.what()), "[import.burnpack] " + cut + ": the tensors end at byte " +
                                         std::to_string(whole.size() - 10 - meta - padding) +
                                         " of the data section, past the end of the " +
                                         std::to_string(whole.size() - padding) + "-byte file (truncated?)");
  }
  std::remove(cut.c_str());
}

TEST(BurnMpk, ParameterIdsFollowRemapping) {
  import::LoadOptions o;
  o.remap = {{"^layers\\.([0-9]+)\\.", "blocks.$1."}};
  o.select = "^blocks\\.";
  const record::Record r = import::load(fixture("model.mpk"), o);
  EXPECT_TRUE(r.contains("blocks.1.weight"));
  EXPECT_EQ(r.at("_param_ids.blocks.1.weight").as_int(), expected()["ids"]["layers.1.weight"].get<int64_t>());
  EXPECT_FALSE(r.contains("linear"));
  EXPECT_FALSE(r.contains("_param_ids.linear"));
}

struct Bad {
  const char* file;
  const char* message;
};

// gtest describes a test by its file rather than by the struct's bytes.
void PrintTo(const Bad& b, std::ostream* os) { *os << b.file; }

class BurnMpkBad : public ::testing::TestWithParam<Bad> {};

TEST_P(BurnMpkBad, IsAnErrorNamingTheFileAndTheProblem) {
  const Bad b = GetParam();
  try {
    (void)import::load(fixture(b.file));
    FAIL() << "expected an error for " << b.file;
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(b.file), std::string::npos) << m;
    EXPECT_NE(m.find(b.message), std::string::npos) << m;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, BurnMpkBad,
                         ::testing::Values(Bad{"truncated.mpk", "ends early"}, Bad{"truncated.mpk.gz", "gzip data"},
                                           Bad{"bad_dtype.mpk", "unknown dtype 'Q9'"},
                                           Bad{"size_mismatch.mpk", "holds 12 bytes, 2 F32 elements need 8"},
                                           Bad{"shape_overflow.mpk", "more elements than fit in 64 bits"},
                                           Bad{"deep.mpk", "nesting deeper than 128"},
                                           Bad{"huge_array.mpk", "ends early"}, Bad{"no_item.mpk", "has no 'item'"},
                                           Bad{"old_format.mpk", "before 0.14"},
                                           Bad{"truncated.bpk", "past the end of the"},
                                           Bad{"bad_magic.bpk", "bad magic: not a burnpack file"},
                                           Bad{"metadata_too_long.bpk", "does not fit the file"},
                                           Bad{"huge_map.bpk", "claims 4294967295 items in 0 bytes"},
                                           Bad{"overlap.bpk", "two tensors overlap at data offset 4"}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           for (auto& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

}  // namespace
