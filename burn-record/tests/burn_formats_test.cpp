// Rust Burn's formats written by burn-record (namedmpk, namedmpkgz, burnpack): the committed fixtures
// (checked by MessagePack and CBOR readers written from the specifications, check_with_numpy.py) are
// what the writers write; every dtype round-trips bit for bit through burn's own readers, with the
// ParamIds kept or generated, metadata and non-tensor values kept; what a format cannot hold and
// paths that cannot be written are refused with the entry or the folder named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "burn/record/quant.hpp"
#include "burn/record/recorder.hpp"
#include "burn_format.hpp"
#include "burn_sample.hpp"
#include "file_bytes.hpp"
#include "qfloat.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

class BurnFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-record-burn-formats-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Every tensor of `want` is in `got` bit for bit (dtype, shape, bytes) with the ParamId it was given.
void expect_tensors_and_ids(const Record& want, const Record& got) {
  for (const FlatEntry& e : want.flatten()) {
    if (e.value->kind() != EntryKind::Tensor) continue;
    SCOPED_TRACE(e.path);
    ASSERT_TRUE(got.contains(e.path));
    const TensorData& a = e.value->tensor();
    const TensorData& b = got.at(e.path).tensor();
    EXPECT_EQ(a.dtype(), b.dtype());
    EXPECT_EQ(a.shape(), b.shape());
    EXPECT_TRUE(a.bytes().size() == b.bytes().size() &&
                std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin()));
    const std::string id = std::string(burn_format::kParamIds) + "." + e.path;
    const int64_t expected =
        want.contains(id) ? want.at(id).as_int() : static_cast<int64_t>(burn_format::param_id_for(e.path));
    EXPECT_EQ(got.at(id).as_int(), expected);
  }
}

TEST_F(BurnFormats, TheCommittedFixturesAreWhatTheWritersWrite) {
  // check_with_numpy.py read the committed files with readers independent of burn; the writers must
  // still produce them byte for byte (regenerate all with that script when the layout changes on purpose).
  test::write_burn_samples(dir_.string());
  for (const char* name : {"sample.mpk", "sample.mpk.gz", "sample.bpk"}) {
    const std::string committed = test::read_bytes(std::string(BURN_RECORD_FIXTURES) + "/burn/" + name);
    ASSERT_FALSE(committed.empty()) << name;
    EXPECT_TRUE(test::read_bytes(file(name)) == committed)
        << name << ": the writer's output changed: run burn-record/tests/fixtures/burn/check_with_numpy.py";
  }
}

TEST_F(BurnFormats, NamedMpkRoundTripsEveryDTypeValueAndMetadata) {
  const Record want = test::burn_mpk_sample();
  for (const char* name : {"m.mpk", "m.mpk.gz"}) {
    SCOPED_TRACE(name);
    save(file(name), want);
    const std::string bytes = test::read_bytes(file(name));
    const bool gz = std::string(name).ends_with(".gz");
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(static_cast<uint8_t>(bytes[0]) == 0x1f && static_cast<uint8_t>(bytes[1]) == 0x8b, gz);
    const Record got = load(file(name));
    expect_tensors_and_ids(want, got);
    for (const FlatEntry& e : want.flatten()) {  // ints, floats, bools, strings as they were
      const EntryKind k = e.value->kind();
      if (k == EntryKind::Tensor || k == EntryKind::Group) continue;
      ASSERT_TRUE(got.contains(e.path)) << e.path;
      EXPECT_TRUE(got.at(e.path) == *e.value) << e.path;
    }
    EXPECT_FALSE(got.contains("empty_group"));  // an empty map reads back as nothing (documented)
    const Metadata& m = got.metadata();
    EXPECT_EQ(m.producer, "burn-record tests");
    EXPECT_EQ(m.burn_version, BURN_RECORD_VERSION);
    EXPECT_EQ(m.dtype_policy, "keep");
    EXPECT_EQ(m.format_version, kRecordFormatVersion);
    ASSERT_NE(m.find("epoch"), nullptr);
    EXPECT_EQ(*m.find("epoch"), "3");
    ASSERT_NE(m.find("note"), nullptr);
    EXPECT_EQ(*m.find("note"), "free text: ünïcode");
    ASSERT_NE(m.find("version"), nullptr);  // Rust Burn's BurnMetadata fields
    EXPECT_EQ(*m.find("settings"), "FullPrecisionSettings { }");
    EXPECT_EQ(m.find("compression") != nullptr, gz);  // the reader's note, never written
  }
}

TEST_F(BurnFormats, BurnpackRoundTripsEveryDTypeIdsAndMetadata) {
  const Record want = test::burn_bpk_sample();
  save(file("m.bpk"), want);
  const std::string bytes = test::read_bytes(file("m.bpk"));
  EXPECT_EQ(bytes.substr(0, 6), std::string("NRUB\x01\x00", 6));
  const Record got = load(file("m.bpk"));
  expect_tensors_and_ids(want, got);
  EXPECT_EQ(got.tensor_count(), want.tensor_count());
  EXPECT_EQ(got.metadata().producer, "burn-record tests");
  EXPECT_EQ(got.metadata().burn_version, BURN_RECORD_VERSION);
  ASSERT_NE(got.metadata().find("note"), nullptr);
  EXPECT_EQ(*got.metadata().find("note"), "free text: ünïcode");
  // Each tensor starts at a multiple of 256 of the data section, which starts at one of the file.
  const uint32_t meta = static_cast<uint8_t>(bytes[6]) | static_cast<uint8_t>(bytes[7]) << 8 |
                        static_cast<uint8_t>(bytes[8]) << 16 |
                        static_cast<uint32_t>(static_cast<uint8_t>(bytes[9])) << 24;
  const size_t start = (10 + meta + 255) / 256 * 256;
  ASSERT_GT(bytes.size(), start);
  // Zeros up to the data; the first tensor by name (blocks.0.attn.q.bias, f64 0.1) starts with a non-zero byte.
  EXPECT_EQ(bytes.find_first_not_of('\0', 10 + meta), start);
}

TEST_F(BurnFormats, ConvertingFromOneToTheOtherKeepsTheIds) {
  save(file("a.bpk"), test::burn_bpk_sample());
  save(file("b.mpk"), load(file("a.bpk")));
  save(file("c.bpk"), load(file("b.mpk")));
  expect_tensors_and_ids(test::burn_bpk_sample(), load(file("c.bpk")));
  EXPECT_EQ(load(file("c.bpk")).at("_param_ids.blocks.0.attn.q.weight").as_int(), 1007);
}

TEST_F(BurnFormats, IdsUseAllSixtyFourBits) {
  // burn-nn's ParamIds are random u64s; the record's Int holds their bits.
  Record r;
  r.set("w", TensorData::from_vector<float>({1}, {1}));
  r.set("v", TensorData::from_vector<float>({2}, {1}));
  r.set("_param_ids.w", Value(int64_t{-5}));                          // 2^64 - 5
  r.set("_param_ids.v", Value(std::numeric_limits<int64_t>::min()));  // 2^63
  for (const char* name : {"i.mpk", "i.bpk"}) {
    save(file(name), r);
    const Record got = load(file(name));
    EXPECT_EQ(got.at("_param_ids.w").as_int(), -5) << name;
    EXPECT_EQ(got.at("_param_ids.v").as_int(), std::numeric_limits<int64_t>::min()) << name;
  }
  EXPECT_NE(test::read_bytes(file("i.mpk")).find("18446744073709551611"), std::string::npos);  // decimal u64
}

TEST_F(BurnFormats, NamedMpkKeepsScalarsBitForBit) {
  Record r;
  uint64_t nan_bits = 0x7ff4000000000123ull;  // a NaN with a payload
  double nan;
  std::memcpy(&nan, &nan_bits, sizeof nan);
  r.set("f.nan", Value(nan));
  r.set("f.neg_zero", Value(-0.0));
  r.set("f.inf", Value(-std::numeric_limits<double>::infinity()));
  r.set("f.tiny", Value(5e-324));
  r.set("f.integral", Value(2.0));  // a float, not the Int 2
  r.set("i.min", Value(std::numeric_limits<int64_t>::min()));
  r.set("i.max", Value(std::numeric_limits<int64_t>::max()));
  r.set("s.nul", Value(std::string("a\0b", 3)));
  r.set("list.0", Value(int64_t{1}));  // named 0..n-1: an array, read back by index
  r.set("list.1", Value(std::string("two")));
  for (const char* name : {"s.mpk", "s.mpk.gz"}) {
    save(file(name), r);
    const Record got = load(file(name));
    for (const FlatEntry& e : r.flatten()) {
      if (e.value->kind() == EntryKind::Group) continue;
      ASSERT_TRUE(got.contains(e.path)) << name << " " << e.path;
      EXPECT_TRUE(got.at(e.path) == *e.value) << name << " " << e.path;  // bitwise for floats
    }
  }
}

TEST_F(BurnFormats, GeneratedIdsAreStable) {
  // FNV-1a 64 of the path: the same on every run and machine.
  EXPECT_EQ(burn_format::param_id_for(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(burn_format::param_id_for("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_NE(burn_format::param_id_for("fc1.weight"), burn_format::param_id_for("fc1.bias"));
}

TEST_F(BurnFormats, WhatTheFormatsCannotHoldIsRefusedNamingTheEntry) {
  std::string e = error_of([&] { save(file("x.bpk"), test::burn_mpk_sample()); });
  EXPECT_NE(e.find("x.bpk"), std::string::npos) << e;
  EXPECT_NE(e.find("entry 'optim."), std::string::npos) << e;
  EXPECT_NE(e.find("holds only tensors"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(file("x.bpk")));
  Record reserved;
  reserved.metadata().set("burn.producer", "x");
  e = error_of([&] { save(file("r.mpk"), reserved); });
  EXPECT_NE(e.find("metadata key 'burn.producer' is reserved"), std::string::npos) << e;
}

TEST_F(BurnFormats, PathsThatCannotBeWrittenAreClearErrors) {
  const Record r = test::burn_bpk_sample();
  for (const char* ext : {".mpk", ".mpk.gz", ".bpk"}) {
    const std::string missing = file("no/such/folder/m") + ext;
    std::string e = error_of([&] { save(missing, r); });
    EXPECT_NE(e.find("cannot create a temporary file in"), std::string::npos) << e;
    EXPECT_NE(e.find("no/such/folder"), std::string::npos) << e;
    fs::create_directories(file(std::string("dir") + ext));  // the target is a folder
    e = error_of([&] { save(file(std::string("dir") + ext), r); });
    EXPECT_FALSE(e.empty());
    EXPECT_TRUE(fs::is_directory(file(std::string("dir") + ext)));
    e = error_of([&] { load(file(std::string("absent") + ext)); });
    EXPECT_NE(e.find(std::string("absent") + ext), std::string::npos) << e;
  }
}

TEST_F(BurnFormats, DamagedFilesAreRefusedNamingTheFile) {
  save(file("d.mpk"), test::burn_mpk_sample());
  save(file("d.mpk.gz"), test::burn_mpk_sample());
  save(file("d.bpk"), test::burn_bpk_sample());
  for (const char* name : {"d.mpk", "d.mpk.gz", "d.bpk"}) {
    const std::string bytes = test::read_bytes(file(name));
    test::write_bytes(file(name), bytes.substr(0, bytes.size() - 7));
    const std::string e = error_of([&] { load(file(name)); });
    EXPECT_NE(e.find(name), std::string::npos) << name << ": " << e;
  }
}

// Rust Burn's quantized tensors (fixtures/burn/qfloat_fixtures.py writes them from Burn 0.21's layout and the
// values they hold): each imports as burn-record's quantized group with its int values, scales and id exact.
std::map<std::string, std::vector<double>> qfloat_expected() {
  std::ifstream in(std::string(BURN_RECORD_FIXTURES) + "/burn/qfloat.expected.txt");
  std::map<std::string, std::vector<double>> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string name, what;
    ls >> name >> what;
    std::vector<double>& v = out[name + " " + what];
    for (double x; ls >> x;) v.push_back(x);
  }
  return out;
}

TEST_F(BurnFormats, RustBurnQFloatEntriesImportAsQuantizedGroups) {
  const auto expected = qfloat_expected();
  ASSERT_EQ(expected.size(), 18u);
  for (const char* name : {"qfloat.mpk", "qfloat.bpk"}) {
    SCOPED_TRACE(name);
    const Record r = load(std::string(BURN_RECORD_FIXTURES) + "/burn/" + name);
    for (const char* entry : {"per_tensor", "per_block", "per_block_f16", "int4", "burn_0_19", "cpu_f16_param"}) {
      SCOPED_TRACE(entry);
      const Value& v = r.at(entry);
      ASSERT_TRUE(is_quantized(v));
      const QuantizedEntry q = check_quantized(v, entry, "test");
      const std::vector<double>& want_q = expected.at(std::string(entry) + " q");
      const std::vector<double>& want_s = expected.at(std::string(entry) + " scales");
      const std::vector<double>& want_x = expected.at(std::string(entry) + " dequantized");
      ASSERT_EQ(q.shape.num_elements(), static_cast<int64_t>(want_q.size()));
      const bool block = want_s.size() > 1;
      EXPECT_EQ(q.scheme.level, block ? QuantLevel::Block : QuantLevel::Tensor);
      EXPECT_EQ(q.scheme.mode, QuantMode::Symmetric);
      EXPECT_EQ(q.scheme.value, std::string(entry) == "int4" ? QuantValue::Q4 : QuantValue::Q8);
      // F16 scales stay F16; Burn's CPU backends write f32 scales under an F16 param.
      EXPECT_EQ(q.scheme.scale_dtype, std::string(entry) == "per_block_f16" ? DType::F16 : DType::F32);
      std::vector<int64_t> ints;
      const TensorData& values = v.group().at("values").tensor();
      if (q.scheme.value == QuantValue::Q4) {
        for (uint8_t b : values.to_vec<uint8_t>())
          for (int nib : {b & 15, b >> 4}) ints.push_back(nib >= 8 ? nib - 16 : nib);
        ints.resize(want_q.size());
      } else {
        for (int8_t x : values.to_vec<int8_t>()) ints.push_back(x);
      }
      const std::vector<double> scales = v.group().at("scales").tensor().convert(DType::F64).to_vec<double>();
      ASSERT_EQ(scales, want_s);
      const int64_t per = q.shape.num_elements() / static_cast<int64_t>(scales.size());
      for (size_t k = 0; k < want_q.size(); ++k) {
        EXPECT_EQ(ints[k], static_cast<int64_t>(want_q[k])) << k;
        const float x = static_cast<float>(ints[k]) * static_cast<float>(scales[k / static_cast<size_t>(per)]);
        EXPECT_EQ(x, static_cast<float>(want_x[k])) << k;
      }
      ASSERT_TRUE(r.contains(std::string(burn_format::kParamIds) + "." + entry + ".values"));
    }
    // A plain tensor next to them reads as before.
    EXPECT_EQ(r.at("bias").tensor().to_vec<float>(), (std::vector<float>{0.5f, -1.5f, 2.0f}));
  }
  // NamedMpk ids in the file's order, from 1000.
  const Record m = load(std::string(BURN_RECORD_FIXTURES) + "/burn/qfloat.mpk");
  EXPECT_EQ(m.at(std::string(burn_format::kParamIds) + ".per_block.values").as_int(), 1001);
}

TEST_F(BurnFormats, DamagedOrForeignQFloatEntriesAreRefusedNamingTheEntry) {
  const std::string dir = std::string(BURN_RECORD_FIXTURES) + "/burn/";
  std::string e = error_of([&] { load(dir + "qfloat_truncated.mpk"); });
  EXPECT_NE(e.find("entry 'w'"), std::string::npos) << e;
  EXPECT_NE(e.find("holds 8 bytes; 6 values and 1 scales"), std::string::npos) << e;
  e = error_of([&] { load(dir + "qfloat_scales.bpk"); });
  EXPECT_NE(e.find("entry 'w'"), std::string::npos) << e;
  EXPECT_NE(e.find("holds 28 bytes; 16 values and 4 scales"), std::string::npos) << e;
  e = error_of([&] { load(dir + "qfloat_float8.mpk"); });
  EXPECT_NE(e.find("entry 'w'"), std::string::npos) << e;
  EXPECT_NE(e.find("value type E4M3"), std::string::npos) << e;
  EXPECT_THROW(load(dir + "qfloat_float8.mpk"), Unsupported);
  e = error_of([&] { load(dir + "qfloat_newer.bpk"); });
  EXPECT_NE(e.find("entry 'w'"), std::string::npos) << e;
  EXPECT_NE(e.find("another Burn version"), std::string::npos) << e;
  EXPECT_THROW(load(dir + "qfloat_newer.bpk"), Unsupported);
}

// qfloat_layout on schemes built here (what a file would hold): each field's corruption is a RecordError, what
// burn has no counterpart for is Unsupported, both naming the entry; sizes are checked with overflow in mind.
burn_format::SerdeValue sv(std::string s) {
  burn_format::SerdeValue v;
  v.type = burn_format::SerdeValue::Str;
  v.s = std::move(s);
  return v;
}
burn_format::SerdeValue sv(uint64_t u) {
  burn_format::SerdeValue v;
  v.type = burn_format::SerdeValue::UInt;
  v.u = u;
  return v;
}
burn_format::SerdeValue sv_map(std::vector<std::pair<std::string, burn_format::SerdeValue>> kv) {
  burn_format::SerdeValue v;
  v.type = burn_format::SerdeValue::Map;
  for (auto& [k, x] : kv) {
    v.items.push_back(sv(k));
    v.items.push_back(std::move(x));
  }
  return v;
}
burn_format::SerdeValue sv_array(std::vector<burn_format::SerdeValue> items) {
  burn_format::SerdeValue v;
  v.type = burn_format::SerdeValue::Array;
  v.items = std::move(items);
  return v;
}
burn_format::SerdeValue block(std::vector<uint64_t> dims) {
  std::vector<burn_format::SerdeValue> storage;
  for (size_t k = 0; k < 5; ++k) storage.push_back(sv(k < dims.size() ? dims[k] : 1));
  return sv_map({{"Block", sv_map({{"storage", sv_array(storage)}, {"len", sv(uint64_t(dims.size()))}})}});
}
burn_format::SerdeValue qscheme(const std::string& value = "Q8S", const std::string& param = "F32",
                                burn_format::SerdeValue store = sv_map({{"PackedU32", sv(uint64_t(0))}}),
                                burn_format::SerdeValue level = sv("Tensor")) {
  return sv_map({{"value", sv(value)},
                 {"param", sv(param)},
                 {"store", std::move(store)},
                 {"level", std::move(level)},
                 {"mode", sv("Symmetric")}});
}

TEST_F(BurnFormats, QFloatSchemesAreCheckedFieldByField) {
  auto layout_error = [](const burn_format::SerdeValue& s, std::vector<uint64_t> dims, uint64_t bytes,
                         bool* unsupported) -> std::string {
    *unsupported = false;
    try {
      (void)burn_format::qfloat_layout(s, dims, bytes, "f.mpk", "m.w", "namedmpk");
    } catch (const Unsupported& e) {
      *unsupported = true;
      return e.what();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  struct Case {
    burn_format::SerdeValue scheme;
    std::vector<uint64_t> dims;
    uint64_t bytes;
    bool unsupported;
    const char* message;
  };
  const std::vector<Case> cases{
      {qscheme("E4M3"), {4}, 8, true, "value type E4M3"},
      {qscheme("Q2S"), {4}, 8, true, "value type Q2S"},
      {qscheme("Q8S", "UE8M0"), {4}, 5, true, "scale type UE8M0"},
      {qscheme("Q9S"), {4}, 8, true, "value 'Q9S' (not a variant of Burn 0.19 to 0.21)"},
      {qscheme("Q8S", "F32", sv_map({{"PackedU32", sv(uint64_t(1))}})), {2, 4}, 12, true, "packed along dim 1"},
      {qscheme("Q8S", "F32", sv_map({{"PackedNative", sv(uint64_t(0))}})), {4}, 8, true, "store PackedNative"},
      {qscheme("Q4S", "F32", sv("Native")), {8}, 8, true, "int4 values stored natively"},
      {qscheme("Q8S", "F32", sv("Native"), block({2, 4})), {4, 8}, 32 + 16, true, "blocks over more than the last dim"},
      {qscheme("Q8S", "F32", sv("Native"), block({3})), {2, 8}, 16 + 24, true, "does not divide the last dim 8"},
      {qscheme("Q8S", "F32", sv("Native"), block({0})), {8}, 8 + 4, false, "block dim 0 is not in [1, 255]"},
      {qscheme(), {}, 8, true, "of rank 0"},
      {qscheme(), {2, 0}, 4, true, "with no elements"},
      {qscheme(), {uint64_t(1) << 62, 8}, 8, false, "more elements than fit in 64 bits"},
      {qscheme(), {uint64_t(1) << 62}, 8, false, "holds 8 bytes; 4611686018427387904 values and 1 scales"},
      {qscheme("Q8S", "F32", sv("Native"), block({1})), {uint64_t(1) << 62}, 8, false, "sizes overflow"},
      {sv_map({{"value", sv("Q8S")}, {"store", sv("Native")}, {"mode", sv("Symmetric")}}),
       {4},
       8,
       true,
       "another Burn version"},
      {sv("Q8S"), {4}, 8, false, "scheme is neither a map nor an array"},
      {qscheme("Q8S", "F32", sv("Native"), sv_map({{"Block", sv(uint64_t(4))}})),
       {8},
       12,
       false,
       "block size is neither a map nor an array"},
  };
  for (const Case& c : cases) {
    bool unsupported = false;
    const std::string e = layout_error(c.scheme, c.dims, c.bytes, &unsupported);
    SCOPED_TRACE(c.message);
    EXPECT_NE(e.find("f.mpk"), std::string::npos) << e;
    EXPECT_NE(e.find("entry 'm.w'"), std::string::npos) << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << e;
    EXPECT_EQ(unsupported, c.unsupported) << e;
  }
  // What reads: Burn 0.19's U32 store, a struct as an array, variants by index, f32 scales under an f16 param.
  const auto q = burn_format::qfloat_layout(qscheme("Q8S", "F32", sv("U32")), {5}, 12, "f", "e", "op");
  EXPECT_EQ(q.parts[2].offset, 8u);
  const auto nil = burn_format::qfloat_layout(qscheme("Q8S", "F32", sv_map({{"Native", {}}})), {5}, 12, "f", "e", "op");
  EXPECT_EQ(nil.parts[1].bytes, 5u);
  const auto a = burn_format::qfloat_layout(
      sv_array({sv(uint64_t(6)), sv(uint64_t(1)), sv("Native"), sv(uint64_t(0)), sv(uint64_t(0))}), {3}, 6, "f", "e",
      "op");
  EXPECT_EQ(a.parts[2].dtype, DType::F16);
  const auto f =
      burn_format::qfloat_layout(qscheme("Q8S", "BF16", sv("Native"), block({2})), {4}, 4 + 8, "f", "e", "op");
  EXPECT_EQ(f.parts[2].dtype, DType::F32);
  EXPECT_EQ(f.parts[2].shape, (Shape{2}));
  EXPECT_EQ(f.parts[0].header, (std::vector<int64_t>{1, 0, 0, 2, 0, 2, 0, 4}));
}

}  // namespace
