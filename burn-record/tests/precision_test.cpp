// Precision policies: saving converts float tensors only (f32, f16, bf16, f64 or keep), the file's
// metadata names the policy, loading casts floats to the dtype asked for; int and bool entries, and
// scalars, are never converted. Every recorder.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <random>

#include "burn/record/recorder.hpp"
#include "recorder_fixture.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;
using test::Format;

class RecorderPrecision : public test::RecorderTest {};

// Floats of every dtype with values that round differently in each target, plus ints and bools.
Record mixed() {
  std::mt19937 g(3);
  std::normal_distribution<float> d(0.f, 3.f);
  std::vector<float> f(1000);
  for (auto& x : f) x = d(g);
  f[0] = 1.0f + 1.0f / 1024 + 1.0f / 4096;  // a tie-breaking case for f16 (rounds up)
  f[1] = 70000.f;                           // beyond f16's range: inf
  f[2] = 1e-9f;                             // below f16's smallest subnormal: 0
  std::vector<double> dd = {0.1, -1e-5, 123456.789, 1e300};
  Record r;
  r.set("w32", TensorData::from_vector<float>(f, {10, 100}));
  r.set("w64", TensorData::from_vector<double>(dd, {4}));
  r.set("w16", TensorData::from_vector<f16>({{0x3555}, {0xfbff}}, {2}));
  r.set("wb16", TensorData::from_vector<bf16>({{0x3eab}, {0x4049}}, {2}));
  r.set("ids", TensorData::from_vector<int64_t>({1, -2, 1LL << 60}, {3}));
  r.set("small", TensorData::from_vector<int8_t>({-3, 4}, {2}));
  r.set("mask", TensorData::from_vector<bool>({true, false}, {2}));
  r.set("lr", Value(1e-3));
  r.set("step", Value(int64_t{7}));
  return r;
}

TEST_P(RecorderPrecision, EachPolicyConvertsFloatsOnly) {
  const Record r = mixed();
  for (Precision p : {Precision::F32, Precision::F16, Precision::BF16, Precision::F64}) {
    const DType to = p == Precision::F32    ? DType::F32
                     : p == Precision::F16  ? DType::F16
                     : p == Precision::BF16 ? DType::BF16
                                            : DType::F64;
    SCOPED_TRACE(std::string(precision_name(p)));
    save(file("p"), r, {.precision = p});
    const Record back = load(file("p"));
    EXPECT_EQ(back.metadata().dtype_policy, precision_name(p));
    for (const char* name : {"w32", "w64", "w16", "wb16"}) {
      const TensorData& got = back.at(name).tensor();
      const TensorData want = r.at(name).tensor().convert(to);  // burn-tensor's conversion: the reference
      EXPECT_EQ(got.dtype(), to) << name;
      EXPECT_EQ(got.shape(), r.at(name).tensor().shape()) << name;
      EXPECT_EQ(got.bytes(), want.bytes()) << name << ": " << got.to_string() << " vs " << want.to_string();
    }
    // Never converted: ints, bools, scalars.
    EXPECT_EQ(back.at("ids").tensor(), r.at("ids").tensor());
    EXPECT_EQ(back.at("small").tensor(), r.at("small").tensor());
    EXPECT_EQ(back.at("mask").tensor(), r.at("mask").tensor());
    EXPECT_EQ(back.at("lr").as_float(), 1e-3);
    EXPECT_EQ(back.at("step").as_int(), 7);
  }
  // The record saved is untouched by the conversion.
  EXPECT_EQ(r.at("w32").tensor().dtype(), DType::F32);
}

TEST_P(RecorderPrecision, HalfValuesRoundToNearestEven) {
  Record r;
  // 1 + 2^-11 is halfway between two f16 values: it rounds to the even one, 1.0; 1 + 3 * 2^-11 rounds up.
  r.set("w", TensorData::from_vector<float>({1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65520.f, -0.0f}, {4}));
  save(file("h"), r, {.precision = Precision::F16});
  const auto bits = load(file("h")).at("w").tensor().to_vec<f16>();
  EXPECT_EQ(bits[0].bits, 0x3c00);  // 1.0
  EXPECT_EQ(bits[1].bits, 0x3c02);  // 1 + 2^-9
  EXPECT_EQ(bits[2].bits, 0x7c00);  // 65520 rounds to inf
  EXPECT_EQ(bits[3].bits, 0x8000);  // -0
  save(file("b"), r, {.precision = Precision::BF16});
  const auto b = load(file("b")).at("w").tensor().to_vec<bf16>();
  EXPECT_EQ(b[0].bits, 0x3f80);  // 1 + 2^-11 is below bf16's resolution: 1.0
  EXPECT_EQ(b[2].bits, 0x4780);  // 65520 -> 65536 in bf16
}

TEST_P(RecorderPrecision, LoadCastsFloatsToTheRequestedDType) {
  const Record r = mixed();
  save(file("half"), r, {.precision = Precision::F16});
  const Record back = load(file("half"), {.float_dtype = DType::F32});
  for (const char* name : {"w32", "w64", "w16", "wb16"}) {
    const TensorData& got = back.at(name).tensor();
    EXPECT_EQ(got.dtype(), DType::F32) << name;
    // Exactly the f16 values saved, widened.
    EXPECT_EQ(got.bytes(), r.at(name).tensor().convert(DType::F16).convert(DType::F32).bytes()) << name;
  }
  EXPECT_EQ(back.at("ids").tensor().dtype(), DType::I64);
  EXPECT_EQ(back.at("mask").tensor().dtype(), DType::Bool);
  EXPECT_EQ(back.metadata().dtype_policy, "f16");  // what the file holds, whatever the load cast to
  // One entry at a time, too; an int tensor asked for as f32 stays an int.
  auto reader = open(file("half"));
  EXPECT_EQ(reader->read_tensor("w16", DType::F64).dtype(), DType::F64);
  EXPECT_EQ(reader->read_tensor("ids", DType::F32).dtype(), DType::I64);
  EXPECT_EQ(reader->read_tensor("ids", DType::F32).to_vec<int64_t>()[2], 1LL << 60);
}

TEST_P(RecorderPrecision, KeepStoresEachDTypeAsItIs) {
  const Record r = mixed();
  save(file("k"), r);
  const Record back = load(file("k"));
  EXPECT_EQ(back.metadata().dtype_policy, "keep");
  EXPECT_EQ(test::first_difference(back, r), "");
}

INSTANTIATE_TEST_SUITE_P(Recorders, RecorderPrecision,
                         ::testing::Values(Format{"zstd", ".bpz"}, Format{"hdf5", ".h5"}, Format{"json", ".json"},
                                           Format{"safetensors", ".safetensors"}),
                         [](const auto& info) { return std::string(info.param.recorder); });

}  // namespace
