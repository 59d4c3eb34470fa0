// The zstd recorder's own behaviour: levels, threads and codecs give the same record; compression
// works where data allows it (zeros, float exponents) and is skipped on noise.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "burn/record/recorder.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

class Zstd : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-zstd-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

Record weights(size_t n) {
  std::mt19937 g(7);
  std::normal_distribution<float> d(0.f, 0.02f);
  std::vector<float> f(n);
  std::vector<double> dd(n / 4);
  std::vector<int64_t> idx(n / 4);
  std::vector<f16> h(n / 2);
  for (auto& x : f) x = d(g);
  for (size_t i = 0; i < dd.size(); ++i) dd[i] = d(g);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>(g() % 50000);
  for (size_t i = 0; i < h.size(); ++i) h[i].bits = f32_to_f16(d(g));
  Record r;
  r.set("w", TensorData::from_vector<float>(f, {static_cast<int64_t>(n)}));
  r.set("d", TensorData::from_vector<double>(dd, {static_cast<int64_t>(dd.size())}));
  r.set("i", TensorData::from_vector<int64_t>(idx, {static_cast<int64_t>(idx.size())}));
  r.set("h", TensorData::from_vector<f16>(h, {static_cast<int64_t>(h.size())}));
  return r;
}

TEST_F(Zstd, LevelsAndThreadsGiveTheSameRecord) {
  const Record r = weights(3'000'000);  // several chunks per tensor
  uintmax_t raw_size = 0, l1_size = 0;
  for (int level : {0, 1, 9}) {
    for (int threads : {1, 4}) {
      const std::string f = file("w" + std::to_string(level) + "_" + std::to_string(threads) + ".bpz");
      save(f, r, {.compression_level = level, .threads = threads});
      EXPECT_EQ(test::first_difference(load(f), r), "") << "level " << level << ", threads " << threads;
      if (level == 0) raw_size = fs::file_size(f);
      if (level == 1) l1_size = fs::file_size(f);
    }
  }
  // Level 0 stores the bytes as they are (plus header, index and chunk hashes).
  EXPECT_GT(raw_size, r.tensor_bytes());
  EXPECT_LT(raw_size, r.tensor_bytes() + 4096);
  // Random normal f32 weights: mantissas are noise, exponents compress; int64 indices < 50000 compress
  // well by planes. The whole file ends up well under 85% of the raw bytes.
  EXPECT_LT(static_cast<double>(l1_size), 0.85 * static_cast<double>(r.tensor_bytes()));
}

TEST_F(Zstd, ZerosCompressToAlmostNothing) {
  Record r;
  r.set("zeros", TensorData(Shape{2048, 1024}, DType::F32));  // 8 MiB
  r.set("mask", TensorData(Shape{1 << 20}, DType::Bool));
  save(file("z.bpz"), r);
  EXPECT_LT(fs::file_size(file("z.bpz")), 16u * 1024);
  const Record back = load(file("z.bpz"));
  EXPECT_EQ(test::first_difference(back, r), "");
}

TEST_F(Zstd, LevelAboveZstdMaximumIsRefused) {
  try {
    save(file("x.bpz"), weights(16), {.compression_level = 99});
    FAIL() << "level 99 accepted";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("compression level 99 exceeds zstd's maximum"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(file("x.bpz")));
}

// Reading in entry order reads the following tensors ahead, 16 MiB at a time: values stay exact across
// batches, scalars and out-of-order reads; a damaged tensor is reported when it is read, naming it,
// and the tensors before it still read.
TEST_F(Zstd, ReadingInOrderReadsAheadAndStillNamesTheDamagedEntry) {
  std::mt19937 g(3);
  Record r;
  std::vector<std::vector<float>> values;
  for (int k = 0; k < 48; ++k) {  // 48 x 0.5 MiB: three batches
    std::vector<float> v(1u << 17);
    for (auto& x : v) x = static_cast<float>(g()) / 4096.0f;
    const std::string name = "t" + std::to_string(k);
    r.set("blocks." + name, TensorData::from_vector<float>(v, {static_cast<int64_t>(v.size())}));
    if (k % 10 == 3) r.set("blocks.step" + std::to_string(k), Value(int64_t{k}));  // a scalar between tensors
    if (k == 20) r.set("blocks.mask", TensorData::from_vector<bool>({true, false, true}, {3}));
    values.push_back(std::move(v));
  }
  for (int level : {0, 1}) {
    save(file("a.bpz"), r, {.compression_level = level});
    EXPECT_EQ(test::first_difference(load(file("a.bpz")), r), "") << "level " << level;
    auto reader = open(file("a.bpz"));
    // In order up to t30, then back to t5 (dropping what was read ahead), then on in order.
    for (int k : {0, 1, 2, 29, 30, 5, 6, 7, 47}) {
      const std::string path = "blocks.t" + std::to_string(k);
      EXPECT_EQ(reader->read_tensor(path).to_vec<float>(), values[static_cast<size_t>(k)]) << path;
    }
  }
  // Level 0 stores the bytes as they are: damage one byte of t25's data.
  save(file("a.bpz"), r, {.compression_level = 0});
  std::string bytes;
  {
    std::ifstream in(file("a.bpz"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string t25(reinterpret_cast<const char*>(values[25].data()), 4096);
  const size_t at = bytes.find(t25);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 100] = static_cast<char>(bytes[at + 100] ^ 1);
  std::ofstream(file("a.bpz"), std::ios::binary) << bytes;
  auto reader = open(file("a.bpz"));
  for (const auto& e : reader->entries()) {
    if (e.kind == EntryKind::Group) continue;
    if (e.path == "blocks.t25") {
      try {
        reader->read(e.path);
        ADD_FAILURE() << "damaged t25 read";
      } catch (const RecordError& err) {
        EXPECT_NE(std::string(err.what()).find("entry 'blocks.t25': checksum mismatch in chunk 0 of 1"),
                  std::string::npos)
            << err.what();
      }
      break;
    }
    EXPECT_NO_THROW(reader->read(e.path)) << e.path;
  }
  try {
    load(file("a.bpz"));
    ADD_FAILURE() << "damaged file loaded";
  } catch (const RecordError& err) {
    EXPECT_NE(std::string(err.what()).find("entry 'blocks.t25'"), std::string::npos) << err.what();
  }
}

}  // namespace
