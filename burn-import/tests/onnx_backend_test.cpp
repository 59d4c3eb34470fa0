// The ONNX backend test cases shipped by Debian's libonnx-testdata, run through the engine on cpu:
// every case folder found at run time is loaded, run on each test_data_set_N and compared with the
// expected outputs (rtol 1e-3, atol 1e-5 as ONNX's backend tests; exact for ints and bools). A case
// that fails must be listed in onnx_expected_failures.txt with its reason, and a listed case must
// fail, so the list stays honest. BURN_ONNX_WRITE_EXPECTED=FILE writes the current failures instead.
// The opset 18-22 cases of fixtures/onnx/opsets (gen_onnx_opset_fixtures.py) run the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "burn/onnx/model.hpp"
#include "burn/tensor/api.hpp"

namespace fs = std::filesystem;
using namespace burn;

namespace {

std::string data_root() {
  if (const char* e = std::getenv("BURN_ONNX_TESTDATA")) return e;
  return BURN_ONNX_TESTDATA;
}

// "set/case" -> reason, from the committed list ("#" starts a comment; the reason follows the name).
std::map<std::string, std::string> expected_failures() {
  std::map<std::string, std::string> out;
  std::ifstream f(BURN_ONNX_EXPECTED_FAILURES);
  EXPECT_TRUE(f.good()) << "cannot read " << BURN_ONNX_EXPECTED_FAILURES;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.find_first_of(" \t");
    std::string name = line.substr(0, sp);
    std::string reason = sp == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", sp));
    out[name] = reason;
  }
  return out;
}

std::string one_line(std::string s, const std::string& model) {
  for (size_t p; (p = s.find(model)) != std::string::npos;) s.replace(p, model.size(), "model.onnx");
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > 200) s = s.substr(0, 200) + "...";
  return s;
}

// Empty when the outputs match; else what differs.
std::string compare(const TensorData& got, const TensorData& want, const std::string& name) {
  if (got.shape() != want.shape())
    return "output '" + name + "': shape " + got.shape().to_string() + ", expected " + want.shape().to_string();
  if (got.dtype() != want.dtype())
    return "output '" + name + "': dtype " + std::string(dtype_name(got.dtype())) + ", expected " +
           std::string(dtype_name(want.dtype()));
  if (is_float(want.dtype())) {
    // About four units in the last place (at 1) for f16 and bf16, where 1e-3 is one f16 ulp: a reference may round
    // intermediates to them (ONNX Runtime's f16 dequantized operands before their product) that a fused form does
    // not, and a sum that cancels keeps their absolute error.
    const double tol = want.dtype() == DType::F16 ? 4e-3 : want.dtype() == DType::BF16 ? 1.6e-2 : 0;
    ApproxReport r =
        got.convert(DType::F64).compare_approx(want.convert(DType::F64), tol ? tol : 1e-3, tol ? tol : 1e-5);
    return r.ok ? "" : "output '" + name + "': " + r.message;
  }
  std::vector<double> a = got.to_f64_vec(), b = want.to_f64_vec();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return "output '" + name + "': element " + std::to_string(i) + " is " + std::to_string(a[i]) + ", expected " +
             std::to_string(b[i]);
  return "";
}

// Empty when the case passes; else the reason.
std::string run_case(const fs::path& dir, const Device& device) {
  std::string model_path = (dir / "model.onnx").string();
  try {
    auto model = onnx::OnnxModel::load(model_path, {device, false});
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) return "no test_data_set folder";
    for (const auto& s : sets) {
      std::vector<onnx::OnnxValue> inputs;
      for (size_t i = 0; i < model->input_names().size(); ++i) {
        fs::path p = s / ("input_" + std::to_string(i) + ".pb");
        if (!fs::exists(p)) return "missing " + p.filename().string();
        inputs.push_back(onnx::read_value_proto_file(p.string(), model->input_types()[i], device));
      }
      std::vector<onnx::OnnxValue> outs = model->run(inputs);
      for (size_t i = 0; i < outs.size(); ++i) {
        fs::path p = s / ("output_" + std::to_string(i) + ".pb");
        onnx::OnnxValue want = onnx::read_value_proto_file(p.string(), model->output_types()[i], device);
        const std::string& name = model->output_names()[i];
        if (outs[i].kind != want.kind)
          return "output '" + name + "': not the expected kind of value (tensor, sequence, none)";
        std::vector<TensorHandle> got =
            outs[i].is_tensor() ? std::vector<TensorHandle>{outs[i].tensor} : outs[i].sequence;
        std::vector<TensorHandle> exp = want.is_tensor() ? std::vector<TensorHandle>{want.tensor} : want.sequence;
        if (got.size() != exp.size())
          return "output '" + name + "': a sequence of " + std::to_string(got.size()) + ", expected " +
                 std::to_string(exp.size());
        for (size_t k = 0; k < got.size(); ++k) {
          std::string diff = compare(api::into_data(got[k]), api::into_data(exp[k]), name);
          if (!diff.empty()) return one_line(diff, model_path);
        }
      }
    }
    return "";
  } catch (const std::exception& e) {
    std::string w = e.what();
    return one_line(w.empty() ? "exception" : w, model_path);
  }
}

// The cases under `root` (a libonnx-testdata set, or the committed opset 18-22 cases), keyed "set/case".
void run_cases(const fs::path& root, const std::string& set) {
  ASSERT_TRUE(fs::is_directory(root)) << root << " is missing";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  ASSERT_FALSE(cases.empty());
  auto expected = expected_failures();
  // BURN_TEST_DEVICE runs the cases on another device (autodiff<cpu>, fusion<cpu>...): the same list holds.
  const char* spec = std::getenv("BURN_TEST_DEVICE");
  Device cpu;
  try {
    cpu = Device::get(spec ? spec : "cpu");
  } catch (const Error& e) {
    // The vulkan registration skips on a machine without a Vulkan device.
    if (std::getenv("BURN_TEST_SKIP_UNAVAILABLE")) GTEST_SKIP() << e.what();
    throw;
  }
  std::map<std::string, std::string> failures;
  auto t0 = std::chrono::steady_clock::now();
  int passed = 0;
  for (const auto& c : cases) {
    std::string key = set + "/" + c.filename().string();
    std::string why = run_case(c, cpu);
    if (why.empty()) {
      ++passed;
      EXPECT_FALSE(expected.count(key)) << key << " passes but is listed in onnx_expected_failures.txt: remove it";
    } else {
      failures[key] = why;
      EXPECT_TRUE(expected.count(key)) << key << " fails: " << why;
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("onnx %s: %d / %zu cases pass (%.1f s)\n", set.c_str(), passed, cases.size(), secs);
  if (const char* out = std::getenv("BURN_ONNX_WRITE_EXPECTED")) {
    std::ofstream f(out, std::ios::app);
    for (const auto& [k, v] : failures) f << k << "  " << v << "\n";
  }
}

void run_set(const std::string& set) { run_cases(fs::path(data_root()) / set, set); }

TEST(OnnxBackend, Node) { run_set("node"); }
// Opsets 18 to 22 (newer than libonnx-testdata's): models from gen_onnx_opset_fixtures.py, outputs
// from ONNX Runtime; none may fail.
TEST(OnnxBackend, Opsets18To22) { run_cases(BURN_ONNX_OPSET_FIXTURES, "opsets"); }
TEST(OnnxBackend, Simple) { run_set("simple"); }
TEST(OnnxBackend, PytorchOperator) { run_set("pytorch-operator"); }
TEST(OnnxBackend, PytorchConverted) { run_set("pytorch-converted"); }

}  // namespace
