// Quantized tensors (burn/tensor/quant.hpp) on the suite's device (cpu, trace, fusion, autodiff): quantize then
// dequantize within half a scale step per element for every scheme, the int4 packing byte by byte, edge cases
// (zeros, constants, non-finite values, odd int4 counts), the refused schemes, and the same bits as on the plain
// cpu device. quantized_linear through a QTensor weight: equal to the composite (defaults<cpu>) on this device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "burn/tensor/quant.hpp"
#include "expect_error.hpp"
#include "test_device.hpp"

namespace burn {
namespace {

using testing::expect_error;

Device dev() { return testing::test_device(); }

std::vector<float> normal_values(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// The scale (and zero point) that element `flat` of a tensor of `shape` uses under `s`: the index into the
// scales, computed here from the layout quant.hpp documents.
int64_t group_of(const QuantScheme& s, const Shape& shape, int64_t flat) {
  switch (s.level) {
    case QuantLevel::Tensor: return 0;
    case QuantLevel::Channel: {
      const size_t axis = normalize_dim(s.axis, shape.rank(), "test");
      int64_t inner = 1;
      for (size_t i = axis + 1; i < shape.rank(); ++i) inner *= shape[i];
      return (flat / inner) % shape[axis];
    }
    case QuantLevel::Block: return flat / s.block_size;
  }
  return -1;
}

// The integer values of a QTensor, read from its bytes (int4: low nibble first, sign-extended).
std::vector<int64_t> int_values(const QTensor& q) {
  const TensorData d = api::into_data(q.values());
  std::vector<int64_t> out;
  if (q.scheme().value == QuantValue::Q8) {
    for (int8_t v : d.to_vec<int8_t>()) out.push_back(v);
    return out;
  }
  for (uint8_t b : d.to_vec<uint8_t>()) {
    const int lo = b & 15, hi = b >> 4;
    out.push_back(lo >= 8 ? lo - 16 : lo);
    out.push_back(hi >= 8 ? hi - 16 : hi);
  }
  out.resize(static_cast<size_t>(q.shape().num_elements()));
  return out;
}

std::vector<QuantScheme> all_schemes() {
  std::vector<QuantScheme> out;
  for (QuantValue v : {QuantValue::Q8, QuantValue::Q4})
    for (QuantMode m : {QuantMode::Symmetric, QuantMode::Affine})
      for (DType sd : {DType::F32, DType::BF16, DType::F16}) {
        out.push_back(QuantScheme::per_tensor(v, m).with_scale_dtype(sd));
        out.push_back(QuantScheme::per_channel(1, v, m).with_scale_dtype(sd));
        out.push_back(QuantScheme::per_channel(-1, v, m).with_scale_dtype(sd));
        out.push_back(QuantScheme::per_block(4, v, m).with_scale_dtype(sd));
      }
  return out;
}

// Every element of dequantize(quantize(x)) within half a scale step of x (plus the f32 rounding of the product),
// every value within the scheme's range.
void expect_round_trip(const std::vector<float>& x, const Shape& shape, const QuantScheme& s) {
  SCOPED_TRACE(s.to_string() + " on " + shape.to_string());
  const Tensor<3> t = Tensor<3>::from_vector(x, shape, dev());
  const QTensor q = quantize(t, s);
  EXPECT_EQ(q.shape(), shape);
  EXPECT_EQ(q.scheme(), s);
  EXPECT_EQ(q.scales().prim->dtype(), s.scale_dtype);
  EXPECT_EQ(q.scales().prim->shape(), s.scales_shape(shape));
  const std::vector<float> scales = api::into_data(q.scales()).convert(DType::F32).to_vec<float>();
  const std::vector<float> back = q.dequantize<3>().to_vec<float>();
  const std::vector<int64_t> ints = int_values(q);
  ASSERT_EQ(back.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float scale = scales[static_cast<size_t>(group_of(s, shape, static_cast<int64_t>(i)))];
    ASSERT_GT(scale, 0.0f);
    // Half a step, and the f32 roundings of x / scale and (q - zp) * scale.
    const double bound = 0.5 * scale * (1 + 1e-4) + 1e-6 * std::abs(x[i]);
    ASSERT_LE(std::abs(double(back[i]) - double(x[i])), bound) << "element " << i << ": " << x[i] << " -> " << back[i];
    ASSERT_GE(ints[i], s.qmin());
    ASSERT_LE(ints[i], s.qmax());
  }
}

TEST(Quantize, RoundTripWithinHalfAStepForEveryScheme) {
  const Shape shape{3, 5, 8};
  const std::vector<float> x = normal_values(120, 7, 2.0f);
  for (const QuantScheme& s : all_schemes()) expect_round_trip(x, shape, s);
}

TEST(Quantize, AllZerosAndConstantTensors) {
  const Shape shape{2, 3, 4};
  for (const QuantScheme& s : all_schemes()) {
    expect_round_trip(std::vector<float>(24, 0.0f), shape, s);
    expect_round_trip(std::vector<float>(24, 0.7f), shape, s);
    expect_round_trip(std::vector<float>(24, -3.25f), shape, s);
  }
  // Zeros dequantize to exact zeros, with the smallest normal scale of the dtype.
  const QTensor z =
      quantize(Tensor<3>::zeros(shape, dev()), QuantScheme::per_tensor(QuantValue::Q8, QuantMode::Affine));
  EXPECT_EQ(z.dequantize<3>().to_vec<float>(), std::vector<float>(24, 0.0f));
  EXPECT_EQ(api::into_data(z.scales()).to_vec<float>(), std::vector<float>{0x1p-126f});
}

TEST(Quantize, KnownValuesSymmetricAndAffine) {
  // absmax 2.54 -> scale 0.02: q = round(x / 0.02) in f32.
  const Tensor<3> x =
      Tensor<3>::from_vector(std::vector<float>{-2.54f, 0.0f, 0.01f, 0.03f, 1.0f, 2.54f}, {1, 2, 3}, dev());
  const QTensor q = quantize(x, QuantScheme::per_tensor());
  const float scale = 2.54f / 127.0f;
  EXPECT_EQ(api::into_data(q.scales()).to_vec<float>(), std::vector<float>{scale});
  std::vector<int64_t> want;
  for (float v : {-2.54f, 0.0f, 0.01f, 0.03f, 1.0f, 2.54f})
    want.push_back(static_cast<int64_t>(std::nearbyint(v / scale)));
  EXPECT_EQ(int_values(q), want);
  EXPECT_EQ(want.front(), -127);
  // Affine over [0, 5]: scale 5 / 255, zero point -128 (min 0 maps to qmin).
  const QTensor a = quantize(Tensor<3>::from_vector(std::vector<float>{0.0f, 5.0f}, {1, 1, 2}, dev()),
                             QuantScheme::per_tensor(QuantValue::Q8, QuantMode::Affine));
  EXPECT_EQ(api::into_data(*a.zero_points()).to_vec<int32_t>(), std::vector<int32_t>{-128});
  EXPECT_EQ(int_values(a), (std::vector<int64_t>{-128, 127}));
}

TEST(Quantize, Int4PacksTwoPerByteLowNibbleFirstWithAnOddCount) {
  // Symmetric int4 per tensor with absmax 7: scale 1, the values themselves.
  const std::vector<float> x{-7, 7, 1, -1, 0, 3, -4, 5, 2};
  const QTensor q = quantize(Tensor<3>::from_vector(x, {1, 3, 3}, dev()), QuantScheme::per_tensor(QuantValue::Q4));
  EXPECT_EQ(q.values().prim->dtype(), DType::U8);
  EXPECT_EQ(q.values().prim->shape(), Shape{5});
  const std::vector<uint8_t> bytes = api::into_data(q.values()).to_vec<uint8_t>();
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0x79, 0xF1, 0x30, 0x5C, 0x02}));
  EXPECT_EQ(q.dequantize<3>().to_vec<float>(), x);
  expect_round_trip(normal_values(15, 3), Shape{1, 3, 5}, QuantScheme::per_tensor(QuantValue::Q4, QuantMode::Affine));
}

TEST(Quantize, NonFiniteValuesAreRefused) {
  std::vector<float> x = normal_values(12, 5);
  x[4] = std::nanf("");
  expect_error<ValueError>(
      [&] {
        quantize(Tensor<3>::from_vector(x, {2, 2, 3}, dev()), QuantScheme::per_tensor());
      },
      {"[quantize]", "1 non-finite value", "NaN"});
  x[4] = 1.0f;
  x[0] = INFINITY;
  x[1] = -INFINITY;
  expect_error<ValueError>(
      [&] {
        quantize(Tensor<3>::from_vector(x, {2, 2, 3}, dev()), QuantScheme::per_tensor());
      },
      {"[quantize]", "2 non-finite"});
  // A range an f16 scale cannot hold.
  expect_error<ValueError>(
      [&] {
        quantize(Tensor<3>::full({1, 1, 2}, 1e7, dev()), QuantScheme::per_tensor().with_scale_dtype(DType::F16));
      },
      {"[quantize]", "f16 cannot hold"});
}

TEST(Quantize, InvalidSchemesAreRefusedWithTheirValues) {
  const Tensor<3> x = Tensor<3>::ones({2, 3, 6}, dev());
  expect_error<ValueError>([&] { quantize(x, QuantScheme::per_block(4)); },
                           {"[quantize]", "block size 4", "last dim 6"});
  expect_error<ValueError>([&] { quantize(x, QuantScheme::per_block(0)); }, {"[quantize]", "block size"});
  expect_error<ValueError>([&] { quantize(x, QuantScheme::per_channel(3)); }, {"[quantize]", "axis 3", "rank 3"});
  expect_error<ValueError>([&] { quantize(x, QuantScheme::per_channel(-4)); }, {"[quantize]", "axis -4"});
  expect_error<ValueError>([&] { quantize(x, QuantScheme::per_tensor().with_scale_dtype(DType::I32)); },
                           {"[quantize]", "f32, f16 or bf16"});
  expect_error<ValueError>(
      [&] {
        quantize(Tensor<3>::ones({2, 0, 3}, dev()), QuantScheme::per_tensor());
      },
      {"[quantize]", "empty"});
  expect_error<DTypeError>(
      [&] {
        quantize(Tensor<3, Int>::ones({2, 3, 6}, dev()).handle(), QuantScheme::per_tensor());
      },
      {"[quantize]", "float"});
}

TEST(Quantize, QTensorPartsAreCheckedAgainstEachOther) {
  const QTensor q =
      quantize(Tensor<2>::ones({4, 6}, dev()), QuantScheme::per_channel(0, QuantValue::Q8, QuantMode::Affine));
  expect_error<ShapeError>(
      [&] {
        QTensor(q.values(), api::reshape(q.scales(), {2, 2}), q.zero_points(), q.scheme(), q.shape());
      },
      {"[QTensor]", "scales has shape [2, 2]", "[4]"});
  expect_error<ValueError>([&] { QTensor(q.values(), q.scales(), std::nullopt, q.scheme(), q.shape()); },
                           {"[QTensor]", "needs zero points"});
  const QuantScheme sym = QuantScheme::per_channel(0);
  expect_error<ValueError>([&] { QTensor(q.values(), q.scales(), q.zero_points(), sym, q.shape()); },
                           {"[QTensor]", "symmetric"});
  expect_error<DTypeError>(
      [&] { QTensor(api::cast(q.values(), DType::I32), q.scales(), q.zero_points(), q.scheme(), q.shape()); },
      {"[QTensor]", "values (q8) is i32"});
  expect_error<ShapeError>([&] { q.dequantize<3>(); }, {});
}

// The same bits as the plain cpu device: quantize and dequantize are tensor ops, so every decorator must keep them.
TEST(Quantize, SameBitsAsThePlainCpuDevice) {
  const Device cpu = Device::get("cpu");
  const Shape shape{3, 4, 8};
  const std::vector<float> x = normal_values(96, 11, 3.0f);
  for (const QuantScheme& s : all_schemes()) {
    SCOPED_TRACE(s.to_string());
    const QTensor here = quantize(Tensor<3>::from_vector(x, shape, dev()), s);
    const QTensor there = quantize(Tensor<3>::from_vector(x, shape, cpu), s);
    EXPECT_TRUE(api::into_data(here.values()) == api::into_data(there.values()));
    EXPECT_TRUE(api::into_data(here.scales()) == api::into_data(there.scales()));
    if (s.mode == QuantMode::Affine)
      EXPECT_TRUE(api::into_data(*here.zero_points()) == api::into_data(*there.zero_points()));
    EXPECT_TRUE(here.dequantize<3>().into_data() == there.dequantize<3>().into_data());
  }
}

// quantized_linear with a QTensor weight: this device's answer (the cpu int8 kernel under cpu, fusion and
// autodiff) is the composite's (defaults<cpu>) bit for bit.
TEST(QuantizedLinear, QTensorWeightMatchesTheComposite) {
  const Device composite = Device::get("defaults<cpu>");
  const std::vector<float> xv = normal_values(5 * 24, 21, 1.5f), wv = normal_values(24 * 10, 22, 0.2f),
                           bv = normal_values(10, 23);
  for (const QuantScheme& s : {QuantScheme::per_tensor(), QuantScheme::per_channel(1),
                               QuantScheme::per_channel(-1, QuantValue::Q8, QuantMode::Affine),
                               QuantScheme::per_tensor().with_scale_dtype(DType::BF16)}) {
    SCOPED_TRACE(s.to_string());
    auto run = [&](const Device& d) {
      const QTensor w = quantize(Tensor<2>::from_vector(wv, {24, 10}, d), s);
      const Tensor<1> b = Tensor<1>::from_vector(bv, {10}, d);
      return quantized_linear(Tensor<2>::from_vector(xv, {5, 24}, d), w, b).into_data();
    };
    const TensorData here = run(dev()), ref = run(composite);
    EXPECT_EQ(here.shape(), (Shape{5, 10}));
    EXPECT_TRUE(here == ref) << here.to_string() << "\nvs\n" << ref.to_string();
    // Close to the float product: the error of 8-bit operands.
    const std::vector<float> got = here.to_vec<float>();
    const std::vector<float> f32 =
        (Tensor<2>::from_vector(xv, {5, 24}, dev()).matmul(Tensor<2>::from_vector(wv, {24, 10}, dev())) +
         Tensor<2>::from_vector(bv, {1, 10}, dev()))
            .to_vec<float>();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], f32[i], 0.15) << i;
  }
}

TEST(QuantizedLinear, RefusesSchemesWithoutAnIntegerPath) {
  const Tensor<2> x = Tensor<2>::ones({2, 8}, dev());
  const Tensor<2> w = Tensor<2>::ones({8, 4}, dev());
  expect_error<Unsupported>([&] { quantized_linear(x, quantize(w, QuantScheme::per_tensor(QuantValue::Q4))); },
                            {"[quantized_linear]", "q4", "dequantize"});
  expect_error<Unsupported>([&] { quantized_linear(x, quantize(w, QuantScheme::per_block(4))); },
                            {"[quantized_linear]", "per-block"});
  expect_error<Unsupported>([&] { quantized_linear(x, quantize(w, QuantScheme::per_channel(0))); },
                            {"[quantized_linear]", "axis 1"});
  expect_error<ShapeError>(
      [&] {
        quantized_linear(Tensor<2>::ones({2, 7}, dev()), quantize(w, QuantScheme::per_tensor()));
      },
      {"[quantized_linear]", "x [2, 7]", "weight [8, 4]"});
}

}  // namespace
}  // namespace burn
