// Reading damaged and hostile files: empty, truncated, bit-flipped, wrong-format and crafted files
// (an index claiming 2^62 bytes, overlapping entries, negative dims, a name 1 MB long, ...) raise a
// RecordError that names the file, the entry and the problem; never a crash, never a wrong record.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "burn/record/recorder.hpp"
#include "file_bytes.hpp"
#include "load_error.hpp"
#include "recorder_fixture.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

class Validation : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-validation-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

using test::load_error;

// ---- crafting .bpz files byte by byte, from the spec in the README ----

void put_u32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>(v >> (8 * i));
}
void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s += static_cast<char>(v >> (8 * i));
}
void put_str(std::string& s, const std::string& v) {
  put_u32(s, static_cast<uint32_t>(v.size()));
  s += v;
}

struct Crafted {
  std::string path;
  uint8_t kind = 1, dtype = 0, codec = 0;
  std::vector<uint64_t> dims;
  uint64_t size = 0, offset = 64;
  std::vector<uint32_t> chunks;         // stored sizes; hashes computed from the data section when in range
  std::optional<uint32_t> name_length;  // a lie about the name's length
};

// A complete file: header, `data` at offset 64, then the index of `entries`, hashes all correct.
std::string craft(const std::vector<Crafted>& entries, const std::string& data) {
  std::string index;
  put_u32(index, 1);
  put_str(index, "0.1.0");
  put_str(index, "crafted");
  put_str(index, "keep");
  put_u32(index, 0);
  put_u32(index, 1u << 20);
  put_u32(index, static_cast<uint32_t>(entries.size()));
  for (const auto& e : entries) {
    if (e.name_length) {
      put_u32(index, *e.name_length);
      index += e.path;
    } else {
      put_str(index, e.path);
    }
    index += static_cast<char>(e.kind);
    index += static_cast<char>(e.dtype);
    index += static_cast<char>(e.codec);
    index += static_cast<char>(e.dims.size());
    for (uint64_t d : e.dims) put_u64(index, d);
    put_u64(index, e.size);
    put_u64(index, e.offset);
    put_u32(index, static_cast<uint32_t>(e.chunks.size()));
    uint64_t at = e.offset;
    for (uint32_t c : e.chunks) {
      put_u32(index, c);
      const bool inside = at >= 64 && at - 64 + c <= data.size();
      put_u64(index, inside ? XXH3_64bits(data.data() + (at - 64), c) : 0);
      at += c;
    }
  }
  std::string header(
      "\x89"
      "BPZ\r\n\x1a\n",
      8);
  put_u32(header, 1);
  put_u32(header, 0);
  put_u64(header, 64 + data.size());
  put_u64(header, index.size());
  put_u64(header, XXH3_64bits(index.data(), index.size()));
  put_u64(header, 64 + data.size() + index.size());
  put_u64(header, 0);
  put_u64(header, XXH3_64bits(header.data(), header.size()));
  return header + data + index;
}

// Four f32 values, stored raw: the smallest valid tensor entry.
Crafted f32_entry(std::string path, uint64_t offset = 64) {
  Crafted e;
  e.path = std::move(path);
  e.dims = {4};
  e.size = 16;
  e.offset = offset;
  e.chunks = {16};
  return e;
}

const std::string kFourFloats = std::string(16, '\0');

TEST_F(Validation, CraftedFileOfTheSpecLoads) {
  // The crafting above follows the README; a file it makes must load, or the tests below prove nothing.
  Crafted g;
  g.path = "m";
  g.kind = 0;
  g.offset = 0;
  test::write_bytes(file("ok.bpz"), craft({g, f32_entry("m.w")}, kFourFloats));
  Record r;
  ASSERT_EQ(load_error(file("ok.bpz"), "zstd", &r), "");
  EXPECT_EQ(r.at("m.w").tensor().to_vec<float>(), std::vector<float>(4, 0.f));
  EXPECT_EQ(r.metadata().producer, "crafted");
}

TEST_F(Validation, ZstdCraftedIndexesAreRefusedNamingTheEntry) {
  const std::string f = file("bad.bpz");
  auto expect = [&](const std::vector<Crafted>& entries, const std::string& data, const std::string& want) {
    test::write_bytes(f, craft(entries, data));
    const std::string e = load_error(f, "zstd");
    EXPECT_EQ(e.rfind("[zstd] " + f + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(want), std::string::npos) << "got: " << e << "\nwant: " << want;
  };
  {  // an entry claiming 2^62 bytes
    Crafted e = f32_entry("w");
    e.dims = {1ull << 60};
    e.size = 1ull << 62;
    expect({e}, kFourFloats, "entry 'w': 1 chunks for 4611686018427387904 bytes (expected 4398046511104)");
  }
  {  // data placed 2^62 bytes into a small file
    Crafted e = f32_entry("w", 1ull << 62);
    expect({e}, kFourFloats, "entry 'w': data at [4611686018427387904, +16) lies outside the data section [64, 80)");
  }
  {  // the size disagrees with the shape
    Crafted e = f32_entry("w");
    e.dims = {5};
    expect({e}, kFourFloats, "entry 'w': size 16 bytes, but shape [5] of f32 needs 20");
  }
  // two entries over the same bytes
  expect({f32_entry("a"), f32_entry("b")}, kFourFloats, "entry 'b': its data overlaps the data of 'a'");
  {  // a negative dim
    Crafted e = f32_entry("w");
    e.dims = {static_cast<uint64_t>(-3)};
    expect({e}, kFourFloats, "entry 'w': negative dim -3");
  }
  {  // dims whose byte size overflows 64 bits
    Crafted e = f32_entry("w");
    e.dims = {1ull << 40, 1ull << 40};
    expect({e}, kFourFloats, "entry 'w': the byte size of its shape overflows");
  }
  {  // a name that says it is 1 MB long
    Crafted e = f32_entry("w");
    e.name_length = 1u << 20;
    expect({e}, kFourFloats, "an entry name of 1048576 bytes exceeds the limit of 4096");
  }
  {  // a name that is 1 MB long, within a large enough index
    Crafted e = f32_entry(std::string(1u << 20, 'n'));
    expect({e}, kFourFloats, "an entry name of 1048576 bytes exceeds the limit of 4096");
  }
  {
    Crafted e = f32_entry("w");
    e.dtype = 77;
    expect({e}, kFourFloats, "entry 'w': unknown dtype code 77");
  }
  {
    Crafted e = f32_entry("w");
    e.kind = 9;
    expect({e}, kFourFloats, "entry 'w': unknown entry kind 9");
  }
  {
    Crafted e = f32_entry("w");
    e.codec = 7;
    expect({e}, kFourFloats, "entry 'w': unknown codec 7");
  }
  {
    Crafted e = f32_entry("w");
    e.dims = std::vector<uint64_t>(40, 1);
    expect({e}, kFourFloats, "entry 'w': rank 40 exceeds 32");
  }
  expect({f32_entry("a.w")}, kFourFloats, "entry 'a.w': its parent 'a' is not a group listed before it");
  {
    Crafted a = f32_entry("w"), b = f32_entry("w", 80);
    expect({a, b}, kFourFloats + kFourFloats, "entry 'w': the name appears twice");
  }
  expect({f32_entry("bad..name")}, kFourFloats,
         "entry 'bad..name': invalid name: entry name 'bad..name' has an empty segment");
  {  // a raw chunk whose stored size is not its raw size
    Crafted e = f32_entry("w");
    e.chunks = {12};
    expect({e}, kFourFloats, "entry 'w': chunk 0 stores 12 bytes for 16 raw bytes");
  }
  {  // an int scalar of 4 bytes
    Crafted e;
    e.path = "step";
    e.kind = 2;
    e.size = 4;
    e.chunks = {4};
    expect({e}, std::string(4, '\0'), "entry 'step': a number of 4 bytes (8 expected)");
  }
  {  // a bool holding 7
    Crafted e;
    e.path = "flag";
    e.kind = 4;
    e.size = 1;
    e.chunks = {1};
    expect({e}, std::string(1, '\x07'), "entry 'flag': bool holds byte 7 (only 0 and 1 are valid)");
  }
  {  // zstd codec, but the bytes are no zstd frame
    Crafted e = f32_entry("w");
    e.codec = 1;
    expect({e}, kFourFloats, "entry 'w': chunk 0 is not one zstd frame of 16 bytes");
  }
  {  // an entry count the index cannot hold
    std::string data = kFourFloats;
    std::string bytes = craft({f32_entry("w")}, data);
    // Patch the count (after metadata: 4 + 9 + 11 + 8 + 4 + 4 bytes into the index) and re-hash.
    const size_t count_at = 80 + 4 + 9 + 11 + 8 + 4 + 4;
    bytes[count_at + 3] = 0x7f;
    const std::string index = bytes.substr(80);
    std::string header = bytes.substr(0, 32);
    put_u64(header, XXH3_64bits(index.data(), index.size()));
    header += bytes.substr(40, 16);
    put_u64(header, XXH3_64bits(header.data(), header.size()));
    test::write_bytes(f, header + bytes.substr(64));
    const std::string e = load_error(f, "zstd");
    EXPECT_NE(e.find("entries cannot fit in an index of"), std::string::npos) << e;
  }
}

TEST_F(Validation, ZstdEveryTruncationAndEveryByteFlipIsRefused) {
  // A small file: every byte is under a hash (header, index or chunk), so any change is caught.
  Record r;
  r.set("layer.w", TensorData::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  r.set("layer.steps", TensorData::from_vector<int64_t>({1, 2, 3}, {3}));
  r.set("name", Value(std::string("abc")));
  r.set("lr", Value(0.5));
  save(file("ok.bpz"), r);
  const std::string good = test::read_bytes(file("ok.bpz"));
  ASSERT_GT(good.size(), 200u);
  const std::string f = file("damaged.bpz");
  for (size_t n = 0; n < good.size(); ++n) {
    test::write_bytes(f, good.substr(0, n));
    const std::string e = load_error(f, "zstd");
    ASSERT_NE(e, "") << "truncated to " << n << " bytes and still loaded";
    ASSERT_EQ(e.rfind("[zstd] " + f + ": ", 0), 0u) << e;
  }
  for (size_t i = 0; i < good.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      test::write_bytes(f, bad);
      ASSERT_NE(load_error(f, "zstd"), "") << "byte " << i << " ^ " << int(flip) << " went unnoticed";
    }
  }
  EXPECT_EQ(load_error(file("damaged.bpz"), "zstd").find("[zstd] "), 0u);
  // A flipped byte inside tensor data names the entry and the chunk.
  std::string bad = good;
  bad[64] = static_cast<char>(bad[64] ^ 1);
  test::write_bytes(f, bad);
  EXPECT_EQ(load_error(f, "zstd"),
            "[zstd] " + f + ": entry 'layer.w': checksum mismatch in chunk 0 of 1 (the data is damaged)");
}

TEST_F(Validation, EmptyAndWrongFormatFiles) {
  test::write_bytes(file("empty.bpz"), "");
  test::write_bytes(file("empty.h5"), "");
  test::write_bytes(file("empty.json"), "");
  EXPECT_EQ(load_error(file("empty.bpz"), "zstd"), "[zstd] " + file("empty.bpz") + ": the file is empty");
  EXPECT_EQ(load_error(file("empty.h5"), "hdf5"), "[hdf5] " + file("empty.h5") + ": the file is empty");
  EXPECT_EQ(load_error(file("empty.json"), "json"), "[json] " + file("empty.json") + ": the file is empty");
  EXPECT_EQ(load_error(file("missing.bpz"), "zstd"),
            "[zstd] " + file("missing.bpz") + ": cannot open: No such file or directory");

  const Record r = test::sample_record();
  save(file("a.json"), r);
  save(file("a.h5"), r);
  save(file("a.bpz"), r);
  EXPECT_EQ(load_error(file("a.json"), "zstd"), "[zstd] " + file("a.json") + ": bad magic: not a burn .bpz record");
  EXPECT_EQ(load_error(file("a.h5"), "zstd"), "[zstd] " + file("a.h5") + ": bad magic: not a burn .bpz record");
  EXPECT_EQ(load_error(file("a.bpz"), "hdf5"), "[hdf5] " + file("a.bpz") + ": not an HDF5 file (no HDF5 signature)");
  EXPECT_NE(load_error(file("a.bpz"), "json").find("[json] " + file("a.bpz") + ": not valid JSON: "),
            std::string::npos);
  EXPECT_NE(load_error(file("a.h5"), "json").find("not valid JSON"), std::string::npos);
  test::write_bytes(file("short.bpz"),
                    "\x89"
                    "BPZ");
  EXPECT_EQ(load_error(file("short.bpz"), "zstd"),
            "[zstd] " + file("short.bpz") + ": the file is 4 bytes, shorter than the 64-byte header (truncated?)");
}

TEST_F(Validation, Hdf5RefusesLinksExternalStorageAndLies) {
  const std::string dir = BURN_RECORD_FIXTURES "/hdf5/";
  auto expect = [&](const std::string& name, const std::string& want) {
    const std::string f = dir + name;
    const std::string e = load_error(f, "hdf5");
    EXPECT_EQ(e.rfind("[hdf5] " + f + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(want), std::string::npos) << "got: " << e << "\nwant: " << want;
  };
  expect("bad_soft_link.h5", "entry 'alias': is a soft or external link; only hard links are read");
  expect("bad_external_link.h5", "entry 'ext': is a soft or external link");
  expect("bad_external_storage.h5", "entry 'raw': stores its data in external files");
  expect("bad_huge_unallocated.h5", "entry 'huge': stores 0 bytes, its shape needs 4398046511104");
  expect("bad_huge_deflate.h5", "entry 'huge': claims 274877906944 bytes from 0 compressed bytes");
  expect("bad_uint16.h5", "entry 'u16': its HDF5 datatype has no burn dtype");
  expect("bad_vlen_string.h5", "entry 'text': is a variable-length string; only fixed-length strings are read");
  expect("bad_long_name.h5", "is 5000 bytes long; the limit is 4096");
  expect("bad_deep.h5", "groups nest deeper than 64 levels");
}

TEST_F(Validation, Hdf5DamageIsRefusedOrHarmlessNeverAWrongRecord) {
  Record r;
  r.set("layer.w", TensorData::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  r.set("layer.steps", TensorData::from_vector<int64_t>({1, 2, 3}, {3}));
  r.set("lr", Value(0.5));
  save(file("ok.h5"), r);
  const std::string good = test::read_bytes(file("ok.h5"));
  const Record expected = load(file("ok.h5"));
  const std::string f = file("damaged.h5");
  size_t refused = 0, tried = 0;
  for (size_t n = 0; n < good.size(); n += 61) {
    test::write_bytes(f, good.substr(0, n));
    ++tried;
    Record got;
    const std::string e = load_error(f, "hdf5", &got);
    if (e.empty()) {
      EXPECT_EQ(test::first_difference(got, expected), "") << "truncated to " << n;
    } else {
      ++refused;
      EXPECT_EQ(e.rfind("[hdf5] " + f + ": ", 0), 0u) << e;
    }
  }
  for (size_t i = 0; i < good.size(); i += 7) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    test::write_bytes(f, bad);
    ++tried;
    Record got;
    const std::string e = load_error(f, "hdf5", &got);
    if (e.empty()) {
      EXPECT_EQ(test::first_difference(got, expected), "") << "byte " << i << " flipped, and the record changed";
    } else {
      ++refused;
    }
  }
  // Damage is detected by HDF5's metadata checksums and ours (data, values, structure); a small file
  // is mostly reserved, unused space, where a flip changes nothing (here about 30% are refused).
  EXPECT_GT(refused, tried / 4);
}

// Where `needle` occurs in `hay`.
std::vector<size_t> find_all(const std::string& hay, const std::string& needle) {
  std::vector<size_t> at;
  for (size_t i = hay.find(needle); i != std::string::npos; i = hay.find(needle, i + 1)) at.push_back(i);
  return at;
}

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
  return s;
}

// The reader takes unfiltered chunks' places from HDF5's chunk index (a v1 B-tree in the files it
// writes, without a checksum) and reads them itself: a place past the end of the file, one that
// overlaps another chunk or another entry's data, or a chunk of the wrong size is refused naming
// the entry, at open, before anything is allocated for the data.
TEST_F(Validation, Hdf5DamagedChunkPlacesAreRefusedNamingTheEntry) {
  std::vector<float> a(300'000), b(1000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 1.0f + static_cast<float>(i) * 0.25f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = -3.0f - static_cast<float>(i);
  Record r;
  r.set("a", TensorData::from_vector<float>(a, {300'000}));  // 1.2 MB: two chunks of 150,000
  r.set("b", TensorData::from_vector<float>(b, {1000}));
  save(file("ok.h5"), r);
  const std::string good = test::read_bytes(file("ok.h5"));
  auto data_at = [&](const float* p) {
    const auto at = find_all(good, std::string(reinterpret_cast<const char*>(p), 64));
    EXPECT_EQ(at.size(), 1u);
    return at.empty() ? size_t{0} : at[0];
  };
  const size_t a0 = data_at(a.data()), a1 = data_at(a.data() + 150'000), b0 = data_at(b.data());
  // The index entry of a's second chunk: its address, after the key (size, filter mask, 2 offsets).
  // burn.index names it too, followed by its size, place in the tensor and stored size; that copy is
  // not read here: this test is about the walk, which reads HDF5's chunk index (burn.index's places
  // are tested in hdf5_test.cpp).
  test::ScopedEnv no_index("BURN_HDF5_INDEX", "off");
  std::vector<size_t> refs;
  for (size_t at : find_all(good, le64(a1))) {
    if (good.compare(at + 8, 24, le64(600'000) + le64(600'000) + le64(600'000)) != 0) refs.push_back(at);
  }
  ASSERT_EQ(refs.size(), 1u) << "a's second chunk should be named once, by the chunk index";
  const size_t ref = refs[0];
  const std::string f = file("bad.h5");
  auto patched = [&](size_t at, const std::string& bytes) {
    std::string bad = good;
    bad.replace(at, bytes.size(), bytes);
    test::write_bytes(f, bad);
    return load_error(f, "hdf5");
  };
  const std::string where = "[hdf5] " + f + ": entry ";
  EXPECT_EQ(patched(ref, le64(good.size() + 4096)),
            where + "'a': its data at bytes [" + std::to_string(good.size() + 4096) + ", " +
                std::to_string(good.size() + 4096) + " + 600000) lies outside the file (" +
                std::to_string(good.size()) + " bytes)");
  EXPECT_EQ(patched(ref, le64(good.size() - 100)).rfind(where + "'a': its data at bytes", 0), 0u);
  EXPECT_EQ(patched(ref, le64(a0 + 8)), where + "'a': its data at bytes [" + std::to_string(a0 + 8) + ", " +
                                            std::to_string(a0 + 600'008) + ") overlaps another of its chunks at [" +
                                            std::to_string(a0) + ", " + std::to_string(a0 + 600'000) + ")");
  // Moved to end 4000 bytes into b's data (and nowhere near a's first chunk).
  ASSERT_GT(b0, a0 + 1'200'000);
  const std::string e = patched(ref, le64(b0 - 596'000));
  EXPECT_EQ(e.rfind(where + "'", 0), 0u) << e;
  EXPECT_NE(e.find("overlaps the data of entry '"), std::string::npos) << e;
  EXPECT_TRUE(e.find("'a'") != std::string::npos && e.find("'b'") != std::string::npos) << e;
  // The chunk's stored size, at the start of its key.
  std::string size(4, '\0');
  const uint32_t wrong = 600'000 + 4;
  std::memcpy(size.data(), &wrong, 4);
  EXPECT_EQ(patched(ref - 24, size),
            where + "'a': its chunk 1 stores 600004 bytes; an unfiltered chunk of its shape has 600000");
  // The undamaged file still loads, bit for bit.
  EXPECT_EQ(test::first_difference(load(file("ok.h5")), r), "");
}

TEST_F(Validation, JsonMalformedFilesNameTheEntry) {
  const std::string f = file("bad.json");
  auto expect = [&](const std::string& entries, const std::string& want) {
    test::write_bytes(
        f, R"({"format": "burn-record-json", "version": 1, "metadata": {"format_version": 1, "burn_version": "0",)"
           R"( "producer": "", "dtype_policy": "keep", "extra": {}}, "entries": )" +
               entries + "}");
    const std::string e = load_error(f, "json");
    EXPECT_EQ(e.rfind("[json] " + f + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(want), std::string::npos) << "got: " << e << "\nwant: " << want;
  };
  expect(R"({"w": {"kind": "tensor", "dtype": "f32", "shape": [2, 2], "values": [1, 2, 3]}})",
         "entry 'w': 3 values for shape [2, 2] (4 elements)");
  expect(R"({"w": {"kind": "tensor", "dtype": "f32", "shape": [-2], "values": []}})",
         "entry 'w': dim -2 of \"shape\" is negative");
  expect(
      R"({"w": {"kind": "tensor", "dtype": "f32", "shape": [4611686018427387904, 4611686018427387904], "values": []}})",
      "entry 'w': the element count of shape");
  expect(R"({"w": {"kind": "tensor", "dtype": "f7", "shape": [], "values": [1]}})", "entry 'w': unknown dtype \"f7\"");
  expect(R"({"w": {"kind": "tensor", "dtype": "i8", "shape": [1], "values": [300]}})",
         "entry 'w': value 300 is not an integer of the tensor's dtype");
  expect(R"({"w": {"kind": "tensor", "dtype": "f32", "shape": [1], "values": ["x"]}})",
         "entry 'w': value \"x\" is not a number");
  expect(R"({"w": {"kind": "matrix"}})", "entry 'w': unknown kind \"matrix\"");
  expect(R"({"w": {"kind": "int", "value": 1.5}})", "entry 'w': \"value\" is not a 64-bit integer");
  expect(R"({"w": {"kind": "int"}})", "entry 'w': missing \"value\"");
  expect(R"({"a.b": {"kind": "int", "value": 1}})", "entry 'a.b': a name inside a group cannot contain '.'");
  expect("{\"" + std::string(1u << 20, 'n') + R"(": {"kind": "int", "value": 1}})",
         "is 1048576 bytes long; the limit is 4096");
  std::string deep = R"({"kind": "int", "value": 1})";
  for (int i = 0; i < 100; ++i) deep = R"({"kind": "group", "entries": {"g": )" + deep + "}}";
  expect(R"({"g": )" + deep + "}", "groups nest deeper than 64 levels");
  test::write_bytes(f, R"({"format": "something-else", "version": 1})");
  EXPECT_NE(load_error(f, "json").find("\"format\" is not \"burn-record-json\""), std::string::npos);
  test::write_bytes(f, R"({"format": "burn-record-json", "version": 2})");
  EXPECT_NE(load_error(f, "json").find("unsupported version 2"), std::string::npos);
  test::write_bytes(f, "{\"format\": ");
  EXPECT_NE(load_error(f, "json").find("not valid JSON"), std::string::npos);
}

}  // namespace
