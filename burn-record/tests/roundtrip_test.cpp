// Every recorder round-trips every entry kind and dtype bit for bit, large multi-chunk tensors,
// and reads one entry without touching the others.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "burn/record/recorder.hpp"
#include "recorder_fixture.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;
using test::Format;

class RoundTrip : public test::RecorderTest {};

// n floats: a normal-ish random part (incompressible mantissas) then zeros (compressible).
TensorData big_tensor(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.f, 0.02f);
  std::vector<float> v(n, 0.f);
  for (size_t i = 0; i < n / 2; ++i) v[i] = d(g);
  return TensorData::from_vector<float>(v, {static_cast<int64_t>(n)});
}

TEST_P(RoundTrip, EveryKindAndDTypeBitForBit) {
  const Record r = test::sample_record();
  save(file("m"), r);
  EXPECT_EQ(recorder_for_path(file("m"))->name(), GetParam().recorder);
  const Record back = load(file("m"));
  EXPECT_EQ(test::first_difference(back, r), "");
  EXPECT_EQ(back.metadata().producer, "burn-record tests");
  EXPECT_EQ(back.metadata().extra, r.metadata().extra);
  EXPECT_EQ(back.metadata().dtype_policy, "keep");
  EXPECT_EQ(back.metadata().burn_version, BURN_RECORD_VERSION);
  EXPECT_EQ(back.at("optim.lr").as_float(), 3e-4);
  EXPECT_EQ(back.at("blocks.0.norm.beta").tensor().to_vec<bf16>()[2].bits, 0x7f7f);
}

TEST_P(RoundTrip, LargeTensorsAcrossManyChunks) {
  Record r;
  // 2.5M f32 = 10 MB: ten 1 MiB chunks and a short one.
  r.set("big", big_tensor(2'500'000, 1));
  r.set("after.ints", TensorData::from_vector<int64_t>({1, 2, 3}, {3}));
  r.set("zeros", TensorData(Shape{1024, 1024}, DType::F64));
  save(file("big"), r, {.threads = 3});
  const Record back = load(file("big"));
  EXPECT_EQ(test::first_difference(back, r), "");
  EXPECT_EQ(back.at("big").tensor().to_vec<float>()[1'249'999], r.at("big").tensor().to_vec<float>()[1'249'999]);
}

TEST_P(RoundTrip, OneEntryReadsWithoutTheOthers) {
  Record r;
  r.set("a", big_tensor(600'000, 2));
  r.set("b", TensorData::from_vector<int32_t>({5, 6, 7}, {3}));
  save(file("lazy"), r);
  auto reader = open(file("lazy"));
  ASSERT_EQ(reader->entries().size(), 2u);
  EXPECT_EQ(reader->entries()[0].bytes, 2'400'000u);
  EXPECT_EQ(reader->entries()[1].shape, (Shape{3}));
  EXPECT_EQ(reader->read_tensor("b").to_vec<int32_t>(), (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(reader->read_tensor("a").to_vec<float>(), r.at("a").tensor().to_vec<float>());
}

TEST_P(RoundTrip, EmptyRecordAndEmptyTensors) {
  Record r;
  save(file("empty"), r);
  EXPECT_EQ(load(file("empty")).size(), 0u);
  r.set("e", TensorData(Shape{0}, DType::I8));
  r.set("s", Value(std::string()));
  save(file("empty"), r);
  EXPECT_EQ(test::first_difference(load(file("empty")), r), "");
}

TEST_P(RoundTrip, WhatNoReaderAcceptsIsRefusedOnSave) {
  // A rank above 32 would be refused by every reader: it is refused when saving instead.
  Record r;
  r.set("deep", TensorData(Shape(std::vector<int64_t>(33, 1)), DType::F32));
  try {
    save(file("rank"), r);
    FAIL() << "a rank-33 tensor was saved";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("entry 'deep': rank 33 exceeds 32"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(file("rank")));
}

INSTANTIATE_TEST_SUITE_P(Recorders, RoundTrip,
                         ::testing::Values(Format{"zstd", ".bpz"}, Format{"hdf5", ".h5"}, Format{"json", ".json"},
                                           Format{"safetensors", ".safetensors"}),
                         [](const auto& info) { return std::string(info.param.recorder); });

}  // namespace
