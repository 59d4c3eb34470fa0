// The safetensors recorder: the committed fixture (checked by a NumPy reader written from the
// specification) is what the writer writes today; metadata and non-tensor values round-trip; damaged,
// truncated and crafted files are refused naming the file; what the format cannot hold is refused on save.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "burn/record/recorder.hpp"
#include "file_bytes.hpp"
#include "load_error.hpp"
#include "safetensors_sample.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

class Safetensors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-record-safetensors-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

using burn::record::test::error_of;

// A file of the given header JSON (padded to 8 bytes) and data buffer.
std::string craft(const std::string& header, const std::string& data = "") {
  std::string h = header;
  h.append((8 - h.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((static_cast<uint64_t>(h.size()) >> (8 * i)) & 0xff);
  return out + h + data;
}

TEST_F(Safetensors, TheCommittedFixtureIsWhatTheWriterWrites) {
  // check_with_numpy.py read the committed file with a reader independent of burn; the writer must
  // still produce it byte for byte (regenerate both with that script when the layout changes on purpose).
  test::write_safetensors_sample(file("sample.safetensors"));
  const std::string committed = test::read_bytes(std::string(BURN_RECORD_FIXTURES) + "/safetensors/sample.safetensors");
  ASSERT_FALSE(committed.empty());
  EXPECT_TRUE(test::read_bytes(file("sample.safetensors")) == committed)
      << "the writer's output changed: run burn-record/tests/fixtures/safetensors/check_with_numpy.py";
}

TEST_F(Safetensors, TheFileIsTheSpecificationsLayout) {
  Record r;
  r.set("b.w", TensorData::from_vector<float>({1, 2, 3}, {3}));
  r.set("a", TensorData::from_vector<int8_t>({-1}, {1}));
  r.set("n", Value(int64_t{7}));
  r.metadata().set("format", "pt");
  save(file("m.safetensors"), r);
  const std::string bytes = test::read_bytes(file("m.safetensors"));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ(n % 8, 0u);
  ASSERT_EQ(bytes.size(), 8 + n + 13);
  const auto h = nlohmann::json::parse(bytes.substr(8, n));
  EXPECT_EQ(h["b.w"]["dtype"], "F32");
  EXPECT_EQ(h["b.w"]["data_offsets"], nlohmann::json({0, 12}));
  EXPECT_EQ(h["a"]["data_offsets"], nlohmann::json({12, 13}));
  EXPECT_EQ(h["__metadata__"]["format"], "pt");
  EXPECT_EQ(h["__metadata__"]["burn.values"], "[[\"n\",\"int\",7,2]]");
  float w[3];
  std::memcpy(w, bytes.data() + 8 + n, 12);
  EXPECT_EQ(w[2], 3.0f);
}

TEST_F(Safetensors, ValuesKeepTheirPlaceAmongTheTensors) {
  Record r;
  r.set("a", Value(int64_t{-9007199254740993}));
  r.set("t.x", TensorData::from_vector<int32_t>({1}, {1}));
  r.set("t.empty", Value());
  r.set("t.y", Value(-0.0));
  r.set("t.z", TensorData::from_vector<int32_t>({2}, {1}));
  r.set("nan", Value(std::nan("")));
  r.set("s", Value(std::string("")));
  save(file("v.safetensors"), r);
  const Record back = load(file("v.safetensors"));
  EXPECT_EQ(test::first_difference(back, r), "");
  EXPECT_TRUE(std::signbit(back.at("t.y").as_float()));
  EXPECT_TRUE(std::isnan(back.at("nan").as_float()));
}

TEST_F(Safetensors, WhatTheFormatCannotHoldIsRefusedOnSaveAndNothingIsWritten) {
  Record r;
  r.set("w", TensorData::from_vector<float>({1}, {1}));
  r.metadata().set("burn.producer", "x");
  EXPECT_NE(error_of([&] { save(file("reserved.safetensors"), r); }).find("metadata key 'burn.producer' is reserved"),
            std::string::npos);
  Record bad;
  bad.set("w", Value(std::string("\xff\xfe")));
  EXPECT_NE(error_of([&] { save(file("utf8.safetensors"), bad); }).find("entry 'w': the string is not valid UTF-8"),
            std::string::npos);
  Record name;
  name.set("__metadata__", TensorData::from_vector<float>({1}, {1}));
  EXPECT_NE(error_of([&] { save(file("name.safetensors"), name); }).find("reserved by safetensors"), std::string::npos);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 0u);  // no target, no temporary file left
}

TEST_F(Safetensors, EveryTruncationIsRefusedNamingTheFile) {
  const std::string path = file("cut.safetensors");
  test::write_safetensors_sample(path);
  const std::string whole = test::read_bytes(path);
  for (size_t len = 0; len < whole.size(); ++len) {
    test::write_bytes(path, whole.substr(0, len));
    const std::string e = error_of([&] { (void)load(path); });
    ASSERT_NE(e.find(path), std::string::npos) << "cut at " << len << ": " << e;
  }
}

TEST_F(Safetensors, FlippedBitsAreRefusedOrLoadNeverAnotherError) {
  const std::string path = file("flip.safetensors");
  test::write_safetensors_sample(path);
  const std::string whole = test::read_bytes(path);
  std::mt19937 g(32);
  int refused = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string b = whole;
    const size_t at = g() % b.size();
    b[at] = static_cast<char>(b[at] ^ (1 << (g() % 8)));
    test::write_bytes(path, b);
    try {
      (void)load(path);
    } catch (const Error& e) {  // RecordError, or Unsupported for a dtype burn lacks (U64, F8)
      ASSERT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(refused, 100);
}

struct Crafted {
  const char* name;
  std::string bytes;
  const char* message;
};

TEST_F(Safetensors, CraftedMetadataIsRefusedNamingTheEntry) {
  auto values = [](const std::string& v) {
    return craft("{\"__metadata__\":{\"burn.values\":" + nlohmann::json(v).dump() + "}}");
  };
  const std::vector<Crafted> cases = {
      {"not_json", values("[[\"a\",\"int\",1,0]"), "burn.values is not valid JSON"},
      {"not_array", values("{}"), "burn.values is a JSON object, not an array"},
      {"short_item", values("[[\"a\",\"int\",1]]"), "not [path, kind, value, position]"},
      {"negative_position", values("[[\"a\",\"int\",1,-1]]"), "not [path, kind, value, position]"},
      {"position_past_tensors", values("[[\"a\",\"int\",1,1]]"), "entry 'a': position 1 is not between"},
      {"position_back",
       craft("{\"t\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},\"__metadata__\":{\"burn."
             "values\":\"[[\\\"a\\\",\\\"int\\\",1,1],[\\\"b\\\",\\\"int\\\",1,0]]\"}}",
             "x"),
       "entry 'b': position 0 is not between the previous value's (1)"},
      {"int_too_big", values("[[\"a\",\"int\",9223372036854775808,0]]"), "entry 'a': the int value is a JSON number"},
      {"float_text", values("[[\"a\",\"float\",\"1.5x\",0]]"), "entry 'a': float value '1.5x' is not a number"},
      {"float_number", values("[[\"a\",\"float\",1.5,0]]"), "not a string"},
      {"bool", values("[[\"a\",\"bool\",1,0]]"), "not true or false"},
      {"group", values("[[\"a\",\"group\",1,0]]"), "not null"},
      {"kind", values("[[\"a\",\"tuple\",1,0]]"), "unknown kind 'tuple'"},
      {"bad_name", values("[[\"a..b\",\"int\",1,0]]"), "bad entry name"},
      {"twice", values("[[\"a\",\"int\",1,0],[\"a\",\"int\",2,0]]"), "entry 'a': appears twice"},
      {"clash", values("[[\"a\",\"int\",1,0],[\"a.b\",\"int\",2,0]]"), "'a' is both a value and a group"},
      {"version", craft("{\"__metadata__\":{\"burn.format_version\":\"1x\"}}"), "is not a 32-bit unsigned number"},
  };
  for (const Crafted& c : cases) {
    const std::string path = file(std::string(c.name) + ".safetensors");
    test::write_bytes(path, c.bytes);
    const std::string e = error_of([&] { (void)load(path); });
    EXPECT_NE(e.find(path), std::string::npos) << c.name << ": " << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << c.name << ": " << e;
  }
}

TEST_F(Safetensors, FilesOfOtherWritersReadWithTheirMetadata) {
  // A file as Hugging Face's library writes it: no burn keys, unordered metadata, 16-bit ints.
  const std::string data = std::string("\x01\x00\xff\xff", 4);
  test::write_bytes(file("hf.safetensors"),
                    craft("{\"__metadata__\":{\"format\":\"pt\"},\"x\":{\"dtype\":\"I16\",\"shape\":[2],"
                          "\"data_offsets\":[0,4]}}",
                          data));
  const Record r = load(file("hf.safetensors"));
  EXPECT_EQ(r.metadata().producer, "safetensors");
  ASSERT_NE(r.metadata().find("format"), nullptr);
  EXPECT_EQ(*r.metadata().find("format"), "pt");
  EXPECT_EQ(r.at("x").tensor().to_vec<int32_t>(), (std::vector<int32_t>{1, -1}));
}

}  // namespace
