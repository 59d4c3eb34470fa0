// .npy files: every layout NumPy writes (fixtures from gen_npy_fixtures.py), round trips of every
// dtype, damaged files, and `burn run-onnx` on the committed conv net against PyTorch's output.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "burn/import/npy.hpp"
#include "burn/tensor/error.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;

std::string fixture(const std::string& name) { return std::string(BURN_IMPORT_FIXTURES) + "/npy/" + name; }

fs::path temp(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("burn_npy_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spill(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

template <class T>
std::vector<T> arange(size_t n, T start = 0, T step = 1) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + step * static_cast<T>(i));
  return v;
}

TEST(Npy, ReadsWhatNumPyWrites) {
  const TensorData a = import::read_npy(fixture("f4_2x3.npy"));
  EXPECT_EQ(a.shape(), Shape({2, 3}));
  EXPECT_EQ(a.to_vec<float>(), arange<float>(6));
  const TensorData big = import::read_npy(fixture("f8_big_endian.npy"));
  EXPECT_EQ(big.dtype(), DType::F64);
  EXPECT_EQ(big.to_vec<double>(), arange<double>(5));
  const TensorData i2 = import::read_npy(fixture("i2_4.npy"));
  EXPECT_EQ(i2.dtype(), DType::I32);  // widened: burn has no i16
  EXPECT_EQ(i2.to_vec<int32_t>(), (std::vector<int32_t>{-2, -1, 0, 1}));
  EXPECT_EQ(import::read_npy(fixture("i8_3.npy")).to_vec<int64_t>(), (std::vector<int64_t>{0, 1LL << 40, 2LL << 40}));
  const TensorData b = import::read_npy(fixture("b1_4.npy"));
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.convert(DType::U8).to_vec<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 1}));
  const TensorData scalar = import::read_npy(fixture("u1_0d.npy"));
  EXPECT_EQ(scalar.shape().rank(), 0u);
  EXPECT_EQ(scalar.to_vec<uint8_t>(), std::vector<uint8_t>{7});
  const TensorData empty = import::read_npy(fixture("f2_empty_0x3.npy"));
  EXPECT_EQ(empty.shape(), Shape({0, 3}));
  EXPECT_EQ(empty.dtype(), DType::F16);
  EXPECT_EQ(import::read_npy(fixture("f4_v2.npy")).to_vec<float>(), arange<float>(4));
}

TEST(Npy, FortranOrderComesBackInCOrder) {
  const TensorData f = import::read_npy(fixture("f4_fortran_2x3x4.npy"));
  EXPECT_EQ(f.shape(), Shape({2, 3, 4}));
  EXPECT_EQ(f.to_vec<float>(), arange<float>(24));
}

TEST(Npy, EveryDTypeRoundTrips) {
  for (const DType d : kAllDTypes) {
    const TensorData src = TensorData::from_vector(arange<float>(6, -2.0f), Shape{3, 2}).convert(d);
    const fs::path p = temp(std::string(dtype_name(d)) + ".npy");
    import::write_npy(p.string(), src);
    const TensorData back = import::read_npy(p.string());
    EXPECT_EQ(back.shape(), src.shape()) << dtype_name(d);
    // bf16 has no NumPy dtype: written as f32, with the same values.
    EXPECT_EQ(back.dtype(), d == DType::BF16 ? DType::F32 : d) << dtype_name(d);
    EXPECT_EQ(back.convert(DType::F64).to_vec<double>(), src.convert(DType::F64).to_vec<double>()) << dtype_name(d);
  }
}

void expect_error(const fs::path& p, const std::string& needle) {
  try {
    import::read_npy(p.string());
    FAIL() << "no error for " << p;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(p.string()), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

TEST(Npy, DamagedFilesNameTheFileAndTheProblem) {
  const std::string good = slurp(fixture("f4_2x3.npy"));
  spill(temp("short.npy"), good.substr(0, good.size() - 3));
  expect_error(temp("short.npy"), "data bytes");
  spill(temp("magic.npy"), "XNUMPY" + good.substr(6));
  expect_error(temp("magic.npy"), "magic");
  std::string huge = good;
  huge[8] = '\xff';
  huge[9] = '\xff';
  spill(temp("header.npy"), huge);
  expect_error(temp("header.npy"), "header");
  std::string version = good;
  version[6] = 9;
  spill(temp("version.npy"), version);
  expect_error(temp("version.npy"), "version 9");
  spill(temp("tiny.npy"), "\x93NUM");
  expect_error(temp("tiny.npy"), "shorter");
  EXPECT_THROW(import::read_npy(fixture("object.npy")), Error);
  EXPECT_THROW(import::read_npy(temp("missing.npy").string()), Error);
}

// `burn run-onnx` on the conv net exported by gen_onnx_fixtures.py: its output equals PyTorch's.
TEST(RunOnnx, WritesTheOutputsOfTheModel) {
  std::ifstream in(std::string(BURN_IMPORT_FIXTURES) + "/onnx/convnet.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  const std::vector<double> x = j["x"]["values"];
  std::vector<float> xf(x.begin(), x.end());
  const fs::path input = temp("x.npy"), out = temp("out");
  import::write_npy(input.string(), TensorData::from_vector(xf, Shape(j["x"]["shape"].get<std::vector<int64_t>>())));
  const std::string cmd = std::string(BURN_RUN_ONNX) + " " + BURN_IMPORT_FIXTURES +
                          "/onnx/convnet.onnx --input x=" + input.string() + " --output-dir " + out.string() + " > " +
                          temp("log.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(temp("log.txt").string());
  EXPECT_NE(slurp(temp("log.txt").string()).find("y  f32 [2, 4]"), std::string::npos)
      << slurp(temp("log.txt").string());
  const TensorData y = import::read_npy((out / "y.npy").string());
  const std::vector<double> expected = j["y"]["values"];
  const std::vector<float> got = y.to_vec<float>();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-4 + 1e-4 * std::abs(expected[i])) << i;
  // A missing input is named.
  const std::string missing =
      std::string(BURN_RUN_ONNX) + " " + BURN_IMPORT_FIXTURES + "/onnx/convnet.onnx 2> " + temp("err.txt").string();
  EXPECT_NE(std::system(missing.c_str()), 0);
  EXPECT_NE(slurp(temp("err.txt").string()).find("needs inputs x"), std::string::npos)
      << slurp(temp("err.txt").string());
}

// A wrong input is refused before the graph runs, naming the input and both shapes or dtypes; an
// input given twice is a usage error naming both files.
TEST(RunOnnx, WrongInputsAreNamedBeforeTheGraphRuns) {
  const std::string model = std::string(BURN_IMPORT_FIXTURES) + "/onnx/convnet.onnx";
  auto run = [&](const std::string& args) {
    const std::string cmd = std::string(BURN_RUN_ONNX) + " " + model + " " + args + " --output-dir " +
                            temp("wrong").string() + " > " + temp("wrong.txt").string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(temp("wrong.txt").string()));
  };
  auto floats = [](const Shape& s) {
    return TensorData::from_vector(std::vector<float>(static_cast<size_t>(s.num_elements()), 0.5f), s);
  };
  import::write_npy(temp("x_dim.npy").string(), floats(Shape{2, 3, 4, 4}));
  import::write_npy(temp("x_rank.npy").string(), floats(Shape{2, 2, 16}));
  import::write_npy(temp("x_f64.npy").string(),
                    TensorData::from_vector(std::vector<double>(64, 0.5), Shape{2, 2, 4, 4}));
  import::write_npy(temp("x_ok.npy").string(), floats(Shape{2, 2, 4, 4}));
  const std::string where = "burn run-onnx: [onnx] '" + model + "' input 'x': ";
  EXPECT_EQ(
      run("--input x=" + temp("x_dim.npy").string()),
      std::make_pair(1, where + "shape [2, 3, 4, 4], the model declares [2, 2, 4, 4] (dim 1 is 3, expected 2)\n"));
  EXPECT_EQ(run("--input x=" + temp("x_rank.npy").string()),
            std::make_pair(1, where + "shape [2, 2, 16] has rank 3, the model declares [2, 2, 4, 4] (rank 4)\n"));
  EXPECT_EQ(run("--input x=" + temp("x_f64.npy").string()),
            std::make_pair(1, where + "dtype f64, the model declares f32 (ONNX FLOAT)\n"));
  EXPECT_EQ(run("--input x=" + temp("x_ok.npy").string() + " --input x=" + temp("x_dim.npy").string()),
            std::make_pair(2, "burn run-onnx: input 'x' is given twice (" + temp("x_ok.npy").string() + ", then " +
                                  temp("x_dim.npy").string() + ") (see --help)\n"));
  EXPECT_EQ(run("--input x=" + temp("x_ok.npy").string()).first, 0);
}

}  // namespace
