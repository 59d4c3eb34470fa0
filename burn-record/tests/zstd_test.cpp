// The zstd recorder's own behaviour: levels, threads and codecs give the same record; compression
// works where data allows it (zeros, float exponents) and is skipped on noise.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <random>

#include "burn/record/recorder.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

class ZstdTest : public ::testing::Test {
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

TEST_F(ZstdTest, LevelsAndThreadsGiveTheSameRecord) {
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

TEST_F(ZstdTest, ZerosCompressToAlmostNothing) {
  Record r;
  r.set("zeros", TensorData(Shape{2048, 1024}, DType::F32));  // 8 MiB
  r.set("mask", TensorData(Shape{1 << 20}, DType::Bool));
  save(file("z.bpz"), r);
  EXPECT_LT(fs::file_size(file("z.bpz")), 16u * 1024);
  const Record back = load(file("z.bpz"));
  EXPECT_EQ(test::first_difference(back, r), "");
}

TEST_F(ZstdTest, LevelAboveZstdMaximumIsRefused) {
  try {
    save(file("x.bpz"), weights(16), {.compression_level = 99});
    FAIL() << "level 99 accepted";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("compression level 99 exceeds zstd's maximum"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(file("x.bpz")));
}

}  // namespace
