// ONNX models on a GPU backend plugin against the cpu backend, compiled once per plugin (ONNX_GPU_SPEC
// "vulkan" or "opencl", ONNX_GPU_SUITE the test suite's name): a ResNet-18 and a transformer encoder
// (onnx_test_models.hpp, seeded random weights, built at test time) run on the plugin and on `cpu` with the
// same inputs, in process and through `burn run-onnx --device` as a user runs it.
// Outputs agree within |gpu - cpu| <= kAtol + kRtol * |cpu| per element (f32; the backends sum
// convolutions, matmuls and reductions in other orders). Skips without a usable device of the plugin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "burn/import/npy.hpp"
#include "burn/onnx/model.hpp"
#include "burn/tensor/api.hpp"
#include "burn/tensor/error.hpp"
#include "onnx_test_models.hpp"

using namespace burn;
namespace fs = std::filesystem;

namespace {

constexpr double kAtol = 1e-4;
constexpr double kRtol = 1e-4;

std::optional<Device> gpu_or_null() {
  try {
    return Device::get(ONNX_GPU_SPEC);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

#define REQUIRE_GPU()       \
  auto gpu = gpu_or_null(); \
  if (!gpu) GTEST_SKIP() << "no usable " ONNX_GPU_SPEC " device (" ONNX_GPU_INSTALL ")"

TensorData run(const std::string& bytes, const std::string& name, const Device& d, const TensorData& input) {
  auto model = burn::onnx::OnnxModel::parse(bytes, name, {d, false});
  const Kind kind = input.dtype() == DType::I64 ? Kind::Int : Kind::Float;
  auto out = model->forward({api::from_data(d, input, kind)});
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(out.at(0).device, d) << "the output was not computed on " << d.name();
  return api::into_data(out.at(0));
}

// The largest |got - want| and whether every element is within kAtol + kRtol * |want|.
struct Diff {
  double max_abs = 0, max_ref = 0;
  bool within = true;
};
Diff compare(const TensorData& got, const TensorData& want) {
  EXPECT_EQ(got.shape(), want.shape());
  const std::vector<float> g = got.to_vec<float>(), w = want.to_vec<float>();
  Diff d;
  for (size_t i = 0; i < std::min(g.size(), w.size()); ++i) {
    const double e = std::abs(static_cast<double>(g[i]) - w[i]);
    d.max_abs = std::max(d.max_abs, e);
    d.max_ref = std::max(d.max_ref, std::abs(static_cast<double>(w[i])));
    if (!(e <= kAtol + kRtol * std::abs(w[i]))) d.within = false;
  }
  return d;
}

void expect_close(const TensorData& got, const TensorData& cpu, const std::string& what) {
  const Diff d = compare(got, cpu);
  std::cout << what << ": max |" ONNX_GPU_SPEC " - cpu| = " << d.max_abs << " (max |cpu| = " << d.max_ref << ")\n";
  testing::Test::RecordProperty(what + "_max_abs_diff", std::to_string(d.max_abs));
  EXPECT_TRUE(d.within) << what << ": max |" ONNX_GPU_SPEC " - cpu| = " << d.max_abs << " over " << kAtol << " + "
                        << kRtol << " * |cpu|";
  EXPECT_GT(d.max_ref, 0.1) << what << ": the outputs are too small to compare anything";
}

TensorData random_images(int64_t batch, int64_t size) {
  std::mt19937_64 rng(7);
  std::normal_distribution<float> dist;
  std::vector<float> v(static_cast<size_t>(batch * 3 * size * size));
  for (float& x : v) x = dist(rng);
  return TensorData::from_vector(v, Shape{batch, 3, size, size});
}

TensorData random_tokens(int64_t batch, int64_t seq, int64_t vocab) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> dist(0, vocab - 1);
  std::vector<int64_t> v(static_cast<size_t>(batch * seq));
  for (int64_t& x : v) x = dist(rng);
  return TensorData::from_vector(v, Shape{batch, seq});
}

// Runs `burn run-onnx MODEL --input NAME=FILE --device SPEC` and reads its output.
TensorData run_tool(const std::string& bytes, const std::string& tag, const std::string& input_name,
                    const TensorData& input, const std::string& spec) {
  const fs::path dir =
      fs::temp_directory_path() / ("burn_onnx_" ONNX_GPU_SPEC "_" + std::to_string(::getpid()) + "_" + tag);
  fs::create_directories(dir / spec);
  const fs::path model = dir / "model.onnx", in = dir / "input.npy";
  std::ofstream(model, std::ios::binary) << bytes;
  import::write_npy(in.string(), input);
  const std::string cmd = std::string(BURN_RUN_ONNX) + " " + model.string() + " --input " + input_name + "=" +
                          in.string() + " --device " + spec + " --output-dir " + (dir / spec).string() + " > " +
                          (dir / spec / "log.txt").string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream log(dir / spec / "log.txt");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << cmd << "\n" << text;
  TensorData out = import::read_npy((dir / spec / "logits.npy").string());
  fs::remove_all(dir / spec);
  return out;
}

const std::string& resnet_bytes() {
  static const std::string bytes = onnx_test::resnet18(/*width=*/16, /*batch=*/2, /*size=*/64, /*classes=*/10, 1);
  return bytes;
}
const std::string& transformer_bytes() {
  static const std::string bytes = onnx_test::transformer(/*vocab=*/50, /*d=*/32, /*heads=*/4, /*layers=*/2,
                                                          /*batch=*/2, /*seq=*/16, /*classes=*/5, 2);
  return bytes;
}

TEST(ONNX_GPU_SUITE, ResNet18MatchesTheCpuBackend) {
  REQUIRE_GPU();
  const TensorData x = random_images(2, 64);
  const TensorData cpu = run(resnet_bytes(), "resnet18", Device::get("cpu"), x);
  expect_close(run(resnet_bytes(), "resnet18", *gpu, x), cpu, "resnet18");
}

TEST(ONNX_GPU_SUITE, TransformerMatchesTheCpuBackend) {
  REQUIRE_GPU();
  const TensorData tokens = random_tokens(2, 16, 50);
  const TensorData cpu = run(transformer_bytes(), "transformer", Device::get("cpu"), tokens);
  expect_close(run(transformer_bytes(), "transformer", *gpu, tokens), cpu, "transformer");
}

TEST(ONNX_GPU_SUITE, BurnRunOnnxMatchesCpu) {
  REQUIRE_GPU();
  const TensorData x = random_images(2, 64), tokens = random_tokens(2, 16, 50);
  expect_close(run_tool(resnet_bytes(), "resnet", "input", x, ONNX_GPU_SPEC),
               run_tool(resnet_bytes(), "resnet", "input", x, "cpu"), "burn run-onnx resnet18");
  expect_close(run_tool(transformer_bytes(), "transformer", "tokens", tokens, ONNX_GPU_SPEC),
               run_tool(transformer_bytes(), "transformer", "tokens", tokens, "cpu"), "burn run-onnx transformer");
}
}  // namespace
