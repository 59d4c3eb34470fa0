// The safetensors importer against files gen_fixtures_safetensors.py wrote from the specification:
// every dtype, 0-d and empty tensors, metadata, nested names, lazy reads and every corrupt case.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "burn/import/importer.hpp"
#include "burn/import/load.hpp"
#include "burn/tensor/error.hpp"
#include "safetensors_format.hpp"

namespace {

namespace fs = std::filesystem;
using burn::record::EntryKind;

std::string fixture(const std::string& name) { return std::string(BURN_IMPORT_FIXTURES) + "/safetensors/" + name; }

nlohmann::json expected() {
  std::ifstream in(fixture("expected.json"));
  return nlohmann::json::parse(in);
}

// The burn dtype a safetensors dtype is read as.
burn::DType read_as(const std::string& d) {
  if (d == "I16") return burn::DType::I32;
  if (d == "BOOL") return burn::DType::Bool;
  std::string lower = d;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return burn::parse_dtype(lower);
}

TEST(Safetensors, EveryDTypeWithItsValues) {
  const auto want = expected();
  auto reader = burn::record::safetensors::open_file(fixture("all_dtypes.safetensors"));
  size_t tensors = 0;
  for (const auto& e : reader->entries()) tensors += e.kind == EntryKind::Tensor;
  EXPECT_EQ(tensors, want["tensors"].size());
  for (const auto& [name, t] : want["tensors"].items()) {
    SCOPED_TRACE(name);
    const burn::TensorData d = reader->read_tensor(name);
    EXPECT_EQ(d.dtype(), read_as(t["dtype"].get<std::string>()));
    EXPECT_EQ(d.shape(), burn::Shape(t["shape"].get<std::vector<int64_t>>()));
    const auto values = t["values"].get<std::vector<double>>();
    ASSERT_EQ(static_cast<size_t>(d.num_elements()), values.size());
    const auto got = d.to_f64_vec();
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(got[i], values[i]) << i;  // exact: same bits
  }
}

TEST(Safetensors, ZeroDimAndEmptyTensors) {
  auto reader = burn::record::safetensors::open_file(fixture("all_dtypes.safetensors"));
  const auto scalar = reader->read_tensor("scalar");
  EXPECT_EQ(scalar.shape().rank(), 0u);
  EXPECT_EQ(scalar.to_f64_vec(), std::vector<double>{3.5});
  const auto empty = reader->read_tensor("empty");
  EXPECT_EQ(empty.shape(), (burn::Shape{0, 3}));
  EXPECT_EQ(empty.num_elements(), 0);
}

TEST(Safetensors, DottedNamesAreGroupsAndMetadataIsKept) {
  auto reader = burn::record::safetensors::open_file(fixture("all_dtypes.safetensors"));
  const auto* g = reader->find("layer.0");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->kind, EntryKind::Group);
  ASSERT_NE(reader->find("layer"), nullptr);
  const auto layer0 = reader->read("layer.0");
  EXPECT_EQ(layer0.group().size(), 2u);
  EXPECT_EQ(reader->metadata().producer, "safetensors");
  ASSERT_NE(reader->metadata().find("format"), nullptr);
  EXPECT_EQ(*reader->metadata().find("format"), "pt");
  // Pre-order: every group before its children.
  std::set<std::string> seen;
  for (const auto& e : reader->entries()) {
    const auto dot = e.path.rfind('.');
    if (dot != std::string::npos) EXPECT_TRUE(seen.count(e.path.substr(0, dot))) << e.path;
    seen.insert(e.path);
  }
  // The index knows sizes without reading: bf16 [5] is 10 bytes, i16 [3] widened to i32 is 12.
  EXPECT_EQ(reader->find("layer.1.bhalf")->bytes, 10u);
  EXPECT_EQ(reader->find("ints.i16")->bytes, 12u);
}

TEST(Safetensors, ReadsLazilyOneTensorAtATime) {
  // A copy whose tail (the data of the last tensors) is zeroed after opening: the tensors before it
  // still read, which they could not if open() had read everything.
  const fs::path p = fs::temp_directory_path() / "burn_import_lazy.safetensors";
  fs::copy_file(fixture("all_dtypes.safetensors"), p, fs::copy_options::overwrite_existing);
  auto reader = burn::record::safetensors::open_file(p.string());
  const auto want = expected();
  {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0, std::ios::end);
    const auto size = static_cast<int64_t>(f.tellp());
    f.seekp(size - 4);
    f.write("\0\0\0\0", 4);
  }
  const auto w = reader->read_tensor("layer.0.weight").to_f64_vec();
  EXPECT_EQ(w, want["tensors"]["layer.0.weight"]["values"].get<std::vector<double>>());
}

TEST(Safetensors, ThroughThePluginByExtension) {
  auto reader = burn::import::open(fixture("small.safetensors"));
  EXPECT_EQ(reader->metadata().producer, "safetensors");
  EXPECT_EQ(reader->read_tensor("encoder.linear.bias").to_vec<float>(), (std::vector<float>{0.5f, -1.5f}));
  burn::import::ImportOptions o;
  o.top_level_key = "encoder";
  auto sub = burn::import::open(fixture("small.safetensors"), o);
  EXPECT_EQ(sub->read_tensor("linear.weight").shape(), (burn::Shape{2, 3}));
  EXPECT_EQ(sub->find("encoder.linear.weight"), nullptr);
}

TEST(Safetensors, SniffedWithoutTheExtension) {
  const fs::path p = fs::temp_directory_path() / "burn_import_sniff.bin";
  fs::copy_file(fixture("small.safetensors"), p, fs::copy_options::overwrite_existing);
  const auto i = burn::import::importer_for_file(p.string());
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->name(), "safetensors");
}

struct Corrupt {
  const char* file;
  const char* message;  // a part of the error
};

// gtest describes a test by its file rather than by the struct's bytes.
void PrintTo(const Corrupt& c, std::ostream* os) { *os << c.file; }

class SafetensorsCorrupt : public ::testing::TestWithParam<Corrupt> {};

TEST_P(SafetensorsCorrupt, IsARecordErrorNamingTheFileAndTheProblem) {
  const Corrupt c = GetParam();
  try {
    auto reader = burn::record::safetensors::open_file(fixture(c.file));
    (void)reader->read_all();
    FAIL() << "expected an error for " << c.file;
  } catch (const burn::RecordError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(c.file), std::string::npos) << m;
    EXPECT_NE(m.find(c.message), std::string::npos) << m;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, SafetensorsCorrupt,
    ::testing::Values(Corrupt{"truncated.safetensors", "are not inside the data buffer of 157 bytes"},
                      Corrupt{"truncated_header.safetensors", "the header length says"},
                      Corrupt{"short.safetensors", "shorter than the 8-byte header length"},
                      Corrupt{"header_too_long.safetensors", "the header length says"},
                      Corrupt{"overlap.safetensors", "overlap"}, Corrupt{"bad_dtype.safetensors", "unknown dtype 'Q7'"},
                      Corrupt{"offsets_out_of_range.safetensors", "are not inside the data buffer"},
                      Corrupt{"huge_claim.safetensors", "not inside the data buffer of 16 bytes"},
                      Corrupt{"shape_overflow.safetensors", "more elements than fit in 64 bits"},
                      Corrupt{"negative_dim.safetensors", "dim -1 is negative"},
                      Corrupt{"size_mismatch.safetensors", "needs 8"},
                      Corrupt{"not_json.safetensors", "not valid JSON"},
                      Corrupt{"name_clash.safetensors", "both a value and a group"},
                      Corrupt{"bad_bool.safetensors", "bool tensor holds byte 7"},
                      Corrupt{"appended.safetensors", "the tensors cover 162 bytes of the 166-byte data buffer"},
                      Corrupt{"hole.safetensors", "hole [4, 8)"}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(Safetensors, MissingFileNamesIt) {
  try {
    burn::record::safetensors::open_file("/nonexistent/x.safetensors");
    FAIL();
  } catch (const burn::RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.safetensors"), std::string::npos) << e.what();
  }
}

}  // namespace
