// quantize_dynamic (burn/nn/quant.hpp) on a small MLP against torch.ao.quantization.quantize_dynamic
// (gen_fixtures_quant.py): PyTorch's documentation gives no numeric bound for dynamic quantization, so the bound
// is the error PyTorch's own quantized model shows against the float model: burn-cpp's quantized model must be
// within twice that of the float output, and of PyTorch's quantized output. Also: the path filter, schemes
// without an integer path (run by dequantizing), a quantized model on the autodiff device, and the int8 op's
// calls counted on trace<cpu> (no fallback to matmul). Then records of
// quantized modules in every recorder (bit for bit, kind mismatches, damaged entries), calibration observers
// against hand-computed ranges, quantize_weights on an MLP and a ConvNet within the weight bound, and
// quantize_dynamic on a Conv2d.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "burn/nn.hpp"
#include "fixture.hpp"

namespace burn {
namespace {

using test::cpu;
using test::fixture;
using test::fixture_tensor;

struct Mlp {
  nn::Linear fc1, fc2;
  BURN_MODULE(fc1, fc2)
  Tensor<2> forward(const Tensor<2>& x) const { return fc2.forward(fc1.forward(x).relu()); }
};

const nlohmann::json& quant() { return fixture("quant.json"); }

nn::Linear linear_from(const nlohmann::json& c, const Device& d) {
  nn::Linear l;
  l.weight = nn::Param<Tensor<2>>(fixture_tensor<2>(c["weight"], d));
  l.bias = nn::Param<Tensor<1>>(fixture_tensor<1>(c["bias"], d));
  return l;
}

Mlp mlp(const Device& d) { return Mlp{linear_from(quant()["fc1"], d), linear_from(quant()["fc2"], d)}; }

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

std::vector<double> values(const nlohmann::json& j) { return j.at("values").get<std::vector<double>>(); }
std::vector<double> values(const Tensor<2>& t) { return t.to_vec<double>(); }

void expect_like_pytorch(const Mlp& q, const char* torch_key) {
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], cpu());
  const std::vector<double> ours = values(q.forward(x)), f = values(quant()["y_float"]),
                            theirs = values(quant()[torch_key]);
  const double torch_err = max_diff(theirs, f);
  ASSERT_GT(torch_err, 0.0) << "PyTorch's quantized model equals its float model: the fixture tests nothing";
  EXPECT_LE(max_diff(ours, f), 2 * torch_err) << "float model vs burn-cpp's quantized model";
  EXPECT_LE(max_diff(ours, theirs), 2 * torch_err) << "PyTorch's quantized model vs burn-cpp's";
  EXPECT_GT(max_diff(ours, f), 0.0) << "the quantized model gave the float model's output: was it quantized?";
}

TEST(QuantizeDynamic, MlpPerTensorIsAsCloseAsPyTorchs) {
  const Mlp q = nn::quantize_dynamic(mlp(cpu()), QuantScheme::per_tensor());
  ASSERT_TRUE(q.fc1.quantized_weight && q.fc2.quantized_weight);
  expect_like_pytorch(q, "y_dynamic_per_tensor");
}

TEST(QuantizeDynamic, MlpPerChannelIsAsCloseAsPyTorchs) {
  const Mlp q = nn::quantize_dynamic(mlp(cpu()));
  EXPECT_EQ(q.fc1.quantized_weight->scheme(), QuantScheme::per_channel(1));
  expect_like_pytorch(q, "y_dynamic_per_channel");
}

TEST(QuantizeDynamic, PathFilterChoosesTheLayers) {
  const Mlp m = mlp(cpu());
  const Mlp q = nn::quantize_dynamic(m, QuantScheme::per_tensor(), [](std::string_view p) { return p == "fc2"; });
  EXPECT_FALSE(q.fc1.quantized_weight.has_value());
  EXPECT_TRUE(q.fc2.quantized_weight.has_value());
  EXPECT_FALSE(m.fc2.quantized_weight.has_value()) << "the original module is unchanged";
  EXPECT_NE(q.fc2.extra_repr().find("quantized=q8 symmetric per-tensor"), std::string::npos) << q.fc2.extra_repr();
}

// Schemes without an integer path run the dequantized weight through matmul: close to the float model.
TEST(QuantizeDynamic, SchemesWithoutAnIntegerPathDequantize) {
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], cpu());
  const std::vector<double> f = values(quant()["y_float"]);
  for (const QuantScheme& s :
       {QuantScheme::per_block(8), QuantScheme::per_channel(1, QuantValue::Q4, QuantMode::Affine)}) {
    SCOPED_TRACE(s.to_string());
    const Mlp q = nn::quantize_dynamic(mlp(cpu()), s);
    const double err = max_diff(values(q.forward(x)), f);
    EXPECT_GT(err, 0.0);
    EXPECT_LT(err, s.value == QuantValue::Q4 ? 1.5 : 0.1);
  }
}

// A model on the autodiff device quantizes its weights on the inner device and runs there and on autodiff alike.
TEST(QuantizeDynamic, AutodiffModelGivesThePlainDevicesResult) {
  const Device ad = test::ad();
  const Mlp q_ad = nn::quantize_dynamic(mlp(ad), QuantScheme::per_tensor());
  const Mlp q_cpu = nn::quantize_dynamic(mlp(cpu()), QuantScheme::per_tensor());
  EXPECT_EQ(q_ad.fc1.quantized_weight->device(), cpu());
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], cpu());
  EXPECT_EQ(values(q_ad.forward(fixture_tensor<2>(quant()["x"], ad))), values(q_cpu.forward(x)));
  EXPECT_EQ(values(nn::valid(q_ad).forward(x)), values(q_cpu.forward(x)));
}

// No silent f32 fallback: on trace<cpu>, a quantize_dynamic MLP runs the int8 op quantized_linear once per Linear
// and no matmul, and gives the cpu device's values; the same MLP under quantize_weights (dequantized at forward)
// runs the matmuls instead, so the counts tell the two paths apart.
TEST(QuantizeDynamic, LinearRunsTheInt8OpNotMatmul) {
  const Device traced = Device::get("trace<cpu>");
  auto* counters = static_cast<TraceCounters*>(traced->query_interface("trace"));
  ASSERT_NE(counters, nullptr);
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], traced);
  const Mlp q = nn::quantize_dynamic(mlp(traced));
  counters->reset();
  const Tensor<2> y = q.forward(x);
  EXPECT_EQ(counters->count(OpId::quantized_linear), 2u);
  EXPECT_EQ(counters->count(OpId::matmul), 0u);
  EXPECT_EQ(values(y), values(nn::quantize_dynamic(mlp(cpu())).forward(fixture_tensor<2>(quant()["x"], cpu()))));
  const Mlp w = nn::quantize_weights(mlp(traced));
  counters->reset();
  (void)w.forward(x);
  EXPECT_EQ(counters->count(OpId::quantized_linear), 0u);
  EXPECT_EQ(counters->count(OpId::matmul), 2u);
}

// Records of quantized modules (burn/record/quant.hpp): every recorder gives back the same values, scales, zero
// points and scheme, bit for bit, and the loaded model the same outputs.
bool same_data(const TensorHandle& a, const TensorHandle& b) { return api::into_data(a) == api::into_data(b); }

void expect_same_qtensor(const QTensor& a, const QTensor& b) {
  EXPECT_EQ(a.scheme(), b.scheme()) << a.scheme().to_string() << " vs " << b.scheme().to_string();
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_TRUE(same_data(a.values(), b.values())) << "values";
  EXPECT_TRUE(same_data(a.scales(), b.scales())) << "scales";
  ASSERT_EQ(a.zero_points().has_value(), b.zero_points().has_value());
  if (a.zero_points()) EXPECT_TRUE(same_data(*a.zero_points(), *b.zero_points())) << "zero points";
}

// The same shapes with other weights, quantized per tensor: what a load must overwrite.
Mlp other_quantized(const nn::QuantPathFilter& filter = {}) {
  Mlp m = mlp(cpu());
  m.fc1.weight.set(m.fc1.weight.val().mul_scalar(-0.5).add_scalar(0.01));
  m.fc2.weight.set(m.fc2.weight.val().mul_scalar(3.0));
  return nn::quantize_dynamic(m, QuantScheme::per_tensor(), filter);
}

class QuantRecord : public ::testing::TestWithParam<std::string> {
 protected:
  std::string path(const std::string& stem) {
    return (std::filesystem::temp_directory_path() / ("burn_nn_q_" + stem + std::to_string(::getpid()) + GetParam()))
        .string();
  }
};

TEST_P(QuantRecord, EverySchemeRoundTripsBitForBit) {
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], cpu());
  for (const QuantScheme& s :
       {QuantScheme::per_channel(1), QuantScheme::per_tensor(QuantValue::Q8, QuantMode::Affine),
        QuantScheme::per_block(8, QuantValue::Q4, QuantMode::Affine).with_scale_dtype(DType::BF16),
        QuantScheme::per_channel(0, QuantValue::Q4).with_scale_dtype(DType::F16)}) {
    SCOPED_TRACE(s.to_string());
    const Mlp a = nn::quantize_dynamic(mlp(cpu()), s);
    const std::string file = path("scheme");
    a.save(file);
    Mlp b = other_quantized();
    const nn::LoadReport r = b.load(file);
    std::filesystem::remove(file);
    EXPECT_TRUE(r.ok()) << r.to_string();
    EXPECT_EQ(r.loaded.size(), 4u);
    ASSERT_TRUE(b.fc1.quantized_weight && b.fc2.quantized_weight);
    expect_same_qtensor(*a.fc1.quantized_weight, *b.fc1.quantized_weight);
    expect_same_qtensor(*a.fc2.quantized_weight, *b.fc2.quantized_weight);
    EXPECT_EQ(b.fc1.weight.id(), a.fc1.weight.id());
    // The float parameter is the dequantized weight; the bias is the float bias.
    EXPECT_TRUE(same_data(b.fc1.weight.handle(), a.fc1.quantized_weight->dequantize_handle()));
    EXPECT_TRUE(same_data(b.fc2.bias->handle(), a.fc2.bias->handle()));
    EXPECT_EQ(values(b.forward(x)), values(a.forward(x)));
  }
}

// Only fc2 quantized: fc1 stays a float entry, and the load needs a module quantized the same way.
TEST_P(QuantRecord, PartlyQuantizedModel) {
  auto only_fc2 = [](std::string_view p) { return p == "fc2"; };
  const Mlp a = nn::quantize_dynamic(mlp(cpu()), QuantScheme::per_channel(1), only_fc2);
  const std::string file = path("partly");
  a.save(file);
  Mlp b = other_quantized(only_fc2);
  const nn::LoadReport r = b.load(file);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_FALSE(b.fc1.quantized_weight.has_value());
  EXPECT_TRUE(same_data(b.fc1.weight.handle(), a.fc1.weight.handle()));
  expect_same_qtensor(*a.fc2.quantized_weight, *b.fc2.quantized_weight);
  Mlp all = other_quantized();
  try {
    all.load(file);
    FAIL() << "a float entry loaded into a quantized Linear";
  } catch (const RecordError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(file), std::string::npos) << m;
    EXPECT_NE(m.find("fc1.weight: the record holds a float tensor [16, 32] f32, the module a quantized weight "
                     "(q8 symmetric per-tensor scales f32 [16, 32]"),
              std::string::npos)
        << m;
  }
  std::filesystem::remove(file);
}

INSTANTIATE_TEST_SUITE_P(Recorders, QuantRecord,
                         ::testing::Values(".json", ".bpz", ".h5", ".safetensors", ".mpk", ".mpk.gz", ".bpk"));

// A Linear(2, 3) quantized by Rust Burn (weight and bias QFloat, written from Burn 0.21's layout by
// burn-record/tests/fixtures/burn/qfloat_fixtures.py): a module quantized beforehand takes the weight's QTensor,
// the float bias the dequantized values; a float module refuses the weight and says what to do.
TEST(QuantRecordErrors, RustBurnQuantizedLinearLoadsIntoAQuantizedModule) {
  const std::string dir = std::string(BURN_NN_FIXTURES) + "/../../../burn-record/tests/fixtures/burn/";
  const std::vector<double> weight{-127 * 0.0125f, -64 * 0.0125f, 0, 0.0125f, 64 * 0.0125f, 127 * 0.0125f};
  for (const char* name : {"qfloat_linear.mpk", "qfloat_linear.bpk"}) {
    SCOPED_TRACE(name);
    const record::Record rec = record::load(dir + name);
    nn::Linear f;
    f.weight = nn::Param<Tensor<2>>(Tensor<2>::zeros({2, 3}, cpu()));
    f.bias = nn::Param<Tensor<1>>(Tensor<1>::zeros({3}, cpu()));
    nn::Linear q = nn::quantize_dynamic(f, QuantScheme::per_channel(1));
    const nn::LoadReport report = nn::load_record(q, rec);
    EXPECT_TRUE(report.ok()) << report.to_string();
    ASSERT_TRUE(q.quantized_weight.has_value());
    EXPECT_EQ(q.quantized_weight->scheme(), QuantScheme::per_tensor());
    EXPECT_EQ(q.quantized_weight->dequantize<2>().to_vec<double>(), weight);
    EXPECT_EQ(q.weight.val().to_vec<double>(), weight);
    EXPECT_EQ(q.bias->val().to_vec<double>(), (std::vector<double>{0.5, -1, 2}));
    // The file's ids: NamedMpk's from 10 in field order, burnpack's from 1000 in name order.
    EXPECT_EQ(q.weight.id(), std::string(name).ends_with(".mpk") ? 10u : 1001u);
    try {
      nn::load_record(f, rec);
      ADD_FAILURE() << "a quantized weight loaded into a float Linear";
    } catch (const RecordError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("weight: the record holds a quantized tensor (q8 symmetric per-tensor scales f32 [2, 3]), the "
                       "module a float parameter [2, 3] f32 (quantize the module before loading: quantize_dynamic)"),
                std::string::npos)
          << m;
      EXPECT_EQ(m.find("bias"), std::string::npos) << "the bias loads dequantized: " << m;
    }
  }
}

TEST(QuantRecordErrors, QuantizedRecordIntoAFloatModelNamesBothKinds) {
  const record::Record rec = nn::quantize_dynamic(mlp(cpu())).into_record();
  Mlp f = mlp(cpu());
  const std::vector<double> before = values(f.fc1.weight.val());
  try {
    f.load_record(rec);
    FAIL() << "a quantized record loaded into a float model";
  } catch (const RecordError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("fc1.weight: the record holds a quantized tensor (q8 symmetric per-channel(axis 1) scales f32 "
                     "[16, 32]), the module a float parameter [16, 32] f32"),
              std::string::npos)
        << m;
    EXPECT_EQ(m.find("fc1.weight.values"), std::string::npos) << "the parts are not listed as unexpected: " << m;
  }
  EXPECT_EQ(values(f.fc1.weight.val()), before) << "a failed strict load changes nothing";
  EXPECT_FALSE(f.fc1.quantized_weight.has_value());
}

// A record whose quant_scheme (or a part) was edited: the load fails naming the entry and the problem, before
// any device tensor is made from it.
TEST(QuantRecordErrors, DamagedEntriesAreRefusedNamingTheEntry) {
  const record::Record good = nn::quantize_dynamic(mlp(cpu())).into_record();
  const std::vector<int64_t> head = good.at("fc1.weight.quant_scheme").tensor().to_vec<int64_t>();
  ASSERT_EQ(head, (std::vector<int64_t>{1, 0, 0, 1, 1, 0, 0, 16, 32}));
  auto with_head = [&](std::vector<int64_t> h) {
    record::Record r = good;
    r.set("fc1.weight.quant_scheme", TensorData::from_vector(h, Shape{static_cast<int64_t>(h.size())}));
    return r;
  };
  auto field = [&](size_t i, int64_t v) {
    std::vector<int64_t> h = head;
    h[i] = v;
    return with_head(h);
  };
  auto refused = [](const record::Record& r, const std::string& want) {
    Mlp m = other_quantized();
    try {
      m.load_record(r);
      ADD_FAILURE() << "loaded; expected: " << want;
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("entry 'fc1.weight'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(want), std::string::npos) << msg;
    }
  };
  refused(field(4, 5), "axis 5 is out of range for rank 2");
  refused(field(2, 7), "mode code 7 is unknown");
  refused(field(6, 3), "scale dtype code 3 is unknown");
  refused(with_head({1, 0, 0, 2, 0, 5, 0, 16, 32}), "the block size 5 does not divide the last dim 32");
  refused(with_head({1, 0, 0, 0, 0, 0, 0, int64_t{1} << 40, int64_t{1} << 40}), "more elements than int64 can count");
  refused(with_head({1, 0, 0, 0, 0, 0, 0, -16, 32}), "has a negative dim");
  refused(with_head({1, 0, 0, 1, 1, 0, 0}), "quant_scheme is i64 [7]");
  refused(with_head({1, 0, 0, 1, 1, 0, 0, 32, 16}), "values is i8 [16, 32]; the scheme q8 symmetric");
  refused(field(2, 1), "is affine and needs zero_points");
  record::Record r = good;
  r.set("fc1.weight.zero_points", TensorData::from_vector(std::vector<int32_t>(32, 0), Shape{32}));
  refused(r, "is symmetric and has no zero_points");
  r = good;
  r.set("fc1.weight.extra", int64_t{1});
  refused(r, "unknown part 'extra'");
  r = good;
  r.set("fc1.weight.values", TensorData::from_vector(std::vector<int32_t>(16 * 32, 0), Shape{16, 32}));
  refused(r, "values is i32 [16, 32]");
  r = good;
  r.erase("fc1.weight.scales");
  refused(r, "lacks its scales");
  EXPECT_THROW(other_quantized().load_record(field(0, 2)), Unsupported);
}

// A save that stores floats as f16 converts the scales too; the load converts them back to the scheme's dtype.
TEST(QuantRecordErrors, PrecisionPolicyRoundsTheScalesOnly) {
  const Mlp a = nn::quantize_dynamic(mlp(cpu()));
  const std::string file =
      (std::filesystem::temp_directory_path() / ("burn_nn_q_precision" + std::to_string(::getpid()) + ".bpz")).string();
  a.save(file, {.precision = record::Precision::F16});
  Mlp b = other_quantized();
  b.load(file);
  std::filesystem::remove(file);
  const QTensor& qa = *a.fc1.quantized_weight;
  const QTensor& qb = *b.fc1.quantized_weight;
  EXPECT_EQ(qb.scheme(), qa.scheme());
  EXPECT_TRUE(same_data(qa.values(), qb.values()));
  EXPECT_EQ(qb.scales().prim->dtype(), DType::F32);
  const std::vector<double> sa = api::into_data(qa.scales()).to_f64_vec(),
                            sb = api::into_data(qb.scales()).to_f64_vec();
  ASSERT_EQ(sa.size(), sb.size());
  for (size_t i = 0; i < sa.size(); ++i) EXPECT_NEAR(sb[i], sa[i], sa[i] * 0x1p-11) << i;
}

// Seeded normal values, for inputs and conv weights.
std::vector<float> normal_values(size_t n, uint32_t seed, double scale = 1.0) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0.0, scale);
  std::vector<float> v(n);
  for (float& e : v) e = static_cast<float>(d(rng));
  return v;
}

// NumPy's default percentile, by a full sort (the observer uses nth_element).
double numpy_percentile(std::vector<float> v, double p) {
  std::sort(v.begin(), v.end());
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(rank);
  if (lo + 1 >= v.size()) return v.back();
  return v[lo] + (rank - static_cast<double>(lo)) * (static_cast<double>(v[lo + 1]) - v[lo]);
}

std::vector<float> floats(const Tensor<2>& t) { return t.to_vec<float>(); }

// Three batches through the MLP inside a scope: fc1 sees the batches, fc2 relu(fc1(x)); the hand-computed
// ranges come from the same tensors computed outside the scope.
TEST(Calibration, ObserversRecordTheHandComputedRanges) {
  const Mlp m = mlp(cpu());
  const int64_t d_in = m.fc1.weight.shape()[0];
  std::vector<Tensor<2>> batches;
  std::vector<float> in1, in2;
  for (uint32_t b = 0; b < 3; ++b) {
    std::vector<float> v = normal_values(static_cast<size_t>(5 * d_in), 100 + b);
    if (b == 1) v[7] = 40.0f;  // one outlier: the percentile range leaves it out, min-max does not
    batches.push_back(Tensor<2>::from_vector(v, Shape{5, d_in}, cpu()));
    in1.insert(in1.end(), v.begin(), v.end());
    const std::vector<float> h = floats(m.fc1.forward(batches.back()).relu());
    in2.insert(in2.end(), h.begin(), h.end());
  }
  EXPECT_FALSE(nn::detail::calibrating());
  for (const nn::Observer& o :
       {nn::Observer::min_max(), nn::Observer::percentile_of(99.99), nn::Observer::percentile_of(90)}) {
    SCOPED_TRACE(o.kind == nn::Observer::Kind::MinMax ? "min-max" : "percentile " + std::to_string(o.percentile));
    std::map<std::string, nn::ActivationRange> r;
    {
      nn::Calibration cal(m, o);
      EXPECT_TRUE(nn::detail::calibrating());
      for (const Tensor<2>& x : batches) m.forward(x);
      EXPECT_EQ(cal.paths(), (std::vector<std::string>{"fc1", "fc2"}));
      r = cal.ranges();
    }
    EXPECT_FALSE(nn::detail::calibrating()) << "the scope ended";
    for (const auto& [path, in] : {std::pair{"fc1", &in1}, std::pair{"fc2", &in2}}) {
      SCOPED_TRACE(path);
      const nn::ActivationRange& got = r.at(path);
      EXPECT_EQ(got.calls, 3);
      EXPECT_EQ(got.count, static_cast<int64_t>(in->size()));
      if (o.kind == nn::Observer::Kind::MinMax) {
        EXPECT_EQ(got.min, *std::min_element(in->begin(), in->end()));
        EXPECT_EQ(got.max, *std::max_element(in->begin(), in->end()));
      } else {
        EXPECT_DOUBLE_EQ(got.min, numpy_percentile(*in, 100 - o.percentile));
        EXPECT_DOUBLE_EQ(got.max, numpy_percentile(*in, o.percentile));
      }
    }
    if (o.kind == nn::Observer::Kind::Percentile && o.percentile == 90) EXPECT_LT(r.at("fc1").max, 40.0);
    if (o.kind == nn::Observer::Kind::MinMax) {
      EXPECT_EQ(r.at("fc1").max, 40.0);
      const auto [scale, zp] = r.at("fc1").scale_zero_point(QuantScheme::per_tensor());
      EXPECT_DOUBLE_EQ(scale, 40.0 / 127);
      EXPECT_EQ(zp, 0);
    }
  }
  // The filter chooses the layers; outside the filter nothing is observed.
  nn::Calibration only_fc2(m, nn::Observer::min_max(), [](std::string_view p) { return p == "fc2"; });
  m.forward(batches[0]);
  EXPECT_EQ(only_fc2.paths(), std::vector<std::string>{"fc2"});
  EXPECT_EQ(only_fc2.range("fc2").calls, 1);
  EXPECT_THROW(only_fc2.range("fc1"), ValueError);
  EXPECT_THROW(nn::Calibration(m, nn::Observer::percentile_of(30)), ValueError);
}

// |y_q - y_f| for a Linear of float weight W and quantized weight (per output channel, scale s_j): at most
// sum_k |x_ik| * s_j / 2, plus f32 rounding of both products (1e-5 of sum_k |x_ik| |W_kj|).
void expect_within_weight_bound(const std::vector<float>& x, int64_t rows, const nn::Linear& f, const QTensor& q,
                                const std::vector<float>& y_q, const std::vector<float>& y_f) {
  const int64_t k_in = f.weight.shape()[0], n_out = f.weight.shape()[1];
  const std::vector<float> w = f.weight.val().to_vec<float>();
  const std::vector<double> s = api::into_data(q.scales()).to_f64_vec();
  double worst = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n_out; ++j) {
      double abs_x = 0, abs_xw = 0;
      for (int64_t k = 0; k < k_in; ++k) {
        abs_x += std::abs(x[i * k_in + k]);
        abs_xw += std::abs(x[i * k_in + k] * w[k * n_out + j]);
      }
      const double scale = s.size() == 1 ? s[0] : s[static_cast<size_t>(j)];
      const double err = std::abs(double(y_q[i * n_out + j]) - y_f[i * n_out + j]);
      EXPECT_LE(err, abs_x * scale / 2 + 1e-5 * abs_xw + 1e-6) << "row " << i << ", output " << j;
      worst = std::max(worst, err);
    }
  EXPECT_GT(worst, 0.0) << "the quantized weight gave the float output: was it quantized?";
}

TEST(QuantizeWeights, MlpWithinTheBoundAndTheFilterSelectsByPath) {
  const Mlp m = mlp(cpu());
  const Tensor<2> x = fixture_tensor<2>(quant()["x"], cpu());
  const Mlp q = nn::quantize_weights(m, nn::WeightQuantization{}, [](std::string_view p) { return p == "fc2"; });
  EXPECT_FALSE(q.fc1.quantized_weight.has_value());
  ASSERT_TRUE(q.fc2.quantized_weight.has_value());
  EXPECT_TRUE(q.fc2.dequantize_at_forward);
  EXPECT_EQ(q.fc2.quantized_weight->scheme(), QuantScheme::per_channel(1));
  EXPECT_NE(q.fc2.extra_repr().find("weight-only"), std::string::npos) << q.fc2.extra_repr();
  // Only fc2 is quantized: the model's error is fc2's, on the float hidden layer.
  const Tensor<2> h = m.fc1.forward(x).relu();
  expect_within_weight_bound(floats(h), h.shape()[0], m.fc2, *q.fc2.quantized_weight, floats(q.forward(x)),
                             floats(m.forward(x)));
  // Weight-only is not the dynamic int8 path: the activations are not quantized.
  const Mlp dyn = nn::quantize_dynamic(m, QuantScheme::per_channel(1), [](std::string_view p) { return p == "fc2"; });
  EXPECT_NE(floats(dyn.forward(x)), floats(q.forward(x)));
  // Every layer, and a per-tensor q4 scheme for both.
  const Mlp all = nn::quantize_weights(m, QuantScheme::per_tensor(QuantValue::Q4));
  ASSERT_TRUE(all.fc1.quantized_weight && all.fc2.quantized_weight);
  const std::vector<float> xs = floats(x);
  expect_within_weight_bound(xs, x.shape()[0], m.fc1, *all.fc1.quantized_weight, floats(all.fc1.forward(x)),
                             floats(m.fc1.forward(x)));
}

struct ConvNet {
  nn::Conv2d conv;
  nn::Linear fc;
  BURN_MODULE(conv, fc)
  Tensor<2> forward(const Tensor<4>& x) const {
    const Tensor<4> y = conv.forward(x).relu();
    return fc.forward(y.reshape<2>(Shape{y.shape()[0], -1}));
  }
};

ConvNet conv_net() {
  ConvNet n{nn::Conv2dConfig{.channels = {3, 4}, .kernel_size = {3, 3}}.init(cpu()),
            nn::LinearConfig{.d_input = 4 * 4 * 4, .d_output = 5}.init(cpu())};
  n.conv.weight =
      nn::Param<Tensor<4>>(Tensor<4>::from_vector(normal_values(4 * 3 * 3 * 3, 7, 0.2), {4, 3, 3, 3}, cpu()));
  n.conv.bias = nn::Param<Tensor<1>>(Tensor<1>::from_vector(normal_values(4, 8, 0.1), {4}, cpu()));
  n.fc.weight = nn::Param<Tensor<2>>(Tensor<2>::from_vector(normal_values(64 * 5, 9, 0.1), {64, 5}, cpu()));
  n.fc.bias = nn::Param<Tensor<1>>(Tensor<1>::from_vector(normal_values(5, 10, 0.1), {5}, cpu()));
  return n;
}

// The conv's error: |y_q - y_f|[n, c, i, j] <= s_c / 2 * sum of |x| over the 3x3x3 window, plus f32 rounding.
void expect_conv_within_bound(const Tensor<4>& x, const nn::Conv2d& f, const nn::Conv2d& q) {
  ASSERT_TRUE(q.quantized_weight.has_value());
  const std::vector<float> xs = x.to_vec<float>(), yq = q.forward(x).to_vec<float>(), yf = f.forward(x).to_vec<float>();
  const std::vector<double> s = api::into_data(q.quantized_weight->scales()).to_f64_vec();
  ASSERT_EQ(s.size(), 4u) << "one scale per output channel";
  double worst = 0;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          double window = 0;
          for (int64_t ci = 0; ci < 3; ++ci)
            for (int64_t di = 0; di < 3; ++di)
              for (int64_t dj = 0; dj < 3; ++dj) window += std::abs(xs[((n * 3 + ci) * 6 + i + di) * 6 + j + dj]);
          const size_t o = static_cast<size_t>(((n * 4 + c) * 4 + i) * 4 + j);
          const double err = std::abs(double(yq[o]) - yf[o]);
          EXPECT_LE(err, window * s[static_cast<size_t>(c)] / 2 + 1e-5 * window + 1e-6) << "output " << o;
          worst = std::max(worst, err);
        }
  EXPECT_GT(worst, 0.0);
}

TEST(QuantizeWeights, ConvNetWithinTheBound) {
  const ConvNet m = conv_net();
  const Tensor<4> x = Tensor<4>::from_vector(normal_values(2 * 3 * 6 * 6, 11), {2, 3, 6, 6}, cpu());
  const ConvNet q = nn::quantize_weights(m);
  EXPECT_EQ(q.conv.quantized_weight->scheme(), QuantScheme::per_channel(0));
  EXPECT_NE(q.conv.extra_repr().find("quantized=q8 symmetric per-channel(axis 0)"), std::string::npos);
  expect_conv_within_bound(x, m.conv, q.conv);
  const ConvNet only_fc =
      nn::quantize_weights(m, nn::WeightQuantization{}, [](std::string_view p) { return p == "fc"; });
  EXPECT_FALSE(only_fc.conv.quantized_weight.has_value());
  EXPECT_TRUE(only_fc.fc.quantized_weight.has_value());
}

// quantize_dynamic quantizes a Conv2d's weight per output channel and convolves with it dequantized (no int8
// conv op yet); the record keeps it.
TEST(QuantizeDynamic, Conv2dPerOutputChannelAndItsRecord) {
  const ConvNet m = conv_net();
  const Tensor<4> x = Tensor<4>::from_vector(normal_values(2 * 3 * 6 * 6, 12), {2, 3, 6, 6}, cpu());
  const ConvNet q = nn::quantize_dynamic(m);
  EXPECT_FALSE(q.fc.dequantize_at_forward);
  expect_conv_within_bound(x, m.conv, q.conv);
  ConvNet back = nn::quantize_dynamic(conv_net(), QuantScheme::per_tensor());
  EXPECT_TRUE(back.load_record(q.into_record()).ok());
  expect_same_qtensor(*q.conv.quantized_weight, *back.conv.quantized_weight);
  EXPECT_EQ(q.forward(x).to_vec<float>(), back.forward(x).to_vec<float>());
}

}  // namespace
}  // namespace burn
