// The OpenCL runtime on whatever device the machine has (PoCL in CI): profiles and selection, program
// builds and their caches, the pool, reads and writes, faults, and the elementwise ops' values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "opencl_backend.hpp"
#include "ops/elementwise.hpp"
#include "runtime/programs.hpp"

namespace burn::opencl {
namespace {

// PoCL's kernel cache and the plugin's program cache in the build folder (before PoCL reads its variable
// at the first OpenCL call), unless the caller set them.
const bool kCachesInBuildFolder = [] {
  setenv("POCL_CACHE_DIR", BURN_TEST_POCL_CACHE, 0);
  setenv("BURN_OPENCL_CACHE_DIR", BURN_TEST_OPENCL_CACHE, 0);
  return true;
}();

std::shared_ptr<const Platforms> platforms_or_skip() {
  auto p = Platforms::get();
  return p->best_score() > 0 ? p : nullptr;
}

#define REQUIRE_DEVICE()                                                                                   \
  auto platforms = platforms_or_skip();                                                                    \
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device (install pocl-opencl-icd for PoCL on the CPU)"; \
  auto ctx = context_for(platforms->choose(""));                                                           \
  OpenClBackend be(ctx, "opencl")

// `v` as a tensor of dtype `d` (T's own dtype, checked), shape `s` or 1-D.
template <typename T>
Prim upload(OpenClBackend& be, const std::vector<T>& v, DType d, Shape s = {}) {
  if (s.rank() == 0) s = Shape{static_cast<int64_t>(v.size())};
  TensorData data = TensorData::from_vector(v, s);
  EXPECT_EQ(data.dtype(), d);
  return be.from_data(data);
}

template <typename T>
std::vector<T> download(OpenClBackend& be, const Prim& p) {
  return be.into_data(p).template to_vec<T>();
}

// A scoped environment variable.
struct Env {
  Env(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~Env() {
    if (old_.empty())
      unsetenv(name_);
    else
      setenv(name_, old_.c_str(), 1);
  }
  const char* name_;
  std::string old_;
};

TEST(OpenClRuntime, ProfilesEveryDevice) {
  auto platforms = platforms_or_skip();
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device";
  ASSERT_FALSE(platforms->profiles().empty());
  for (const auto& p : platforms->profiles()) {
    EXPECT_FALSE(p.name.empty());
    EXPECT_FALSE(p.vendor.empty());
    EXPECT_FALSE(p.driver_version.empty());
    EXPECT_NE(p.describe().find("opencl:" + std::to_string(p.index) + " " + p.name), std::string::npos);
    EXPECT_EQ(p.fp64, p.extensions.find("cl_khr_fp64") != std::string::npos);
    if (!p.unusable.empty()) continue;
    EXPECT_GT(p.max_alloc, 0u);
    EXPECT_GE(p.global_mem, p.max_alloc);
    EXPECT_GT(p.compute_units, 0u);
    if (p.is_cpu()) EXPECT_EQ(p.score(), 5);
    if (p.is_gpu()) EXPECT_GE(p.score(), 60);
  }
}

TEST(OpenClRuntime, PoclProfileSaysWhatItIs) {
  auto platforms = platforms_or_skip();
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device";
  const DeviceProfile* pocl = nullptr;
  for (const auto& p : platforms->profiles())
    if (p.platform_name == "Portable Computing Language") pocl = &p;
  if (!pocl) GTEST_SKIP() << "PoCL is not installed";
  EXPECT_TRUE(pocl->is_cpu());
  EXPECT_STREQ(pocl->type_name(), "CPU");
  EXPECT_TRUE(pocl->fp64);  // PoCL's CPU device has cl_khr_fp64
  EXPECT_NE(pocl->describe().find("(CPU, Portable Computing Language"), std::string::npos) << pocl->describe();
}

TEST(OpenClRuntime, ChoosingADeviceByIndexNameAndEnvironment) {
  auto platforms = platforms_or_skip();
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device";
  const DeviceProfile& first = platforms->profiles()[0];
  EXPECT_EQ(&platforms->choose("0"), &first);
  // Part of the name, any case.
  std::string part = first.name.substr(0, std::min<size_t>(first.name.size(), 6));
  for (char& c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (first.score() > 0) {
    EXPECT_EQ(platforms->choose(part).index, first.index);
    Env env("BURN_OPENCL_DEVICE", "0");
    EXPECT_EQ(platforms->choose("").index, 0u);
  }
  // The default is the best score, never simply the first platform.
  const DeviceProfile& best = platforms->choose("");
  for (const auto& p : platforms->profiles()) EXPECT_LE(p.score(), best.score());
}

TEST(OpenClRuntime, ABadDeviceIndexOrNameIsAnErrorListingTheDevices) {
  auto platforms = platforms_or_skip();
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device";
  try {
    platforms->choose("7");
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("opencl:7: no OpenCL device with that index"), std::string::npos) << m;
    EXPECT_NE(m.find(platforms->profiles()[0].describe()), std::string::npos) << m;
  }
  try {
    Env env("BURN_OPENCL_DEVICE", "no-such-device");
    platforms->choose("");
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("BURN_OPENCL_DEVICE=no-such-device"), std::string::npos) << e.what();
  }
}

TEST(OpenClRuntime, AProgramThatDoesNotBuildShowsTheBuildLog) {
  REQUIRE_DEVICE();
  std::lock_guard lock(ctx->launch_mutex());
  try {
    ctx->programs().get("broken", {{"WHAT", "1"}}, "test_op",
                        "KERNEL_PARAMS PARAM(int, n) KERNEL_MAIN { no_such_variable = ARG(n); }");
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("[test_op] OpenCL kernel 'broken' [WHAT=1] does not build"), std::string::npos) << m;
    EXPECT_NE(m.find("build log:"), std::string::npos) << m;
    EXPECT_NE(m.find("no_such_variable"), std::string::npos) << m;  // the compiler's own words
  }
}

TEST(OpenClRuntime, ASecondContextLoadsTheProgramFromTheDiskCache) {
  auto platforms = platforms_or_skip();
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device";
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("burn-opencl-cache-test-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  Env env("BURN_OPENCL_CACHE_DIR", dir);
  const DeviceProfile& p = platforms->choose("");
  // A kernel text no other test builds, so that the first context compiles it.
  const std::string text =
      "KERNEL_PARAMS PARAM_TENSOR(Y) PARAM(int64_t, n) KERNEL_MAIN { for (idx_t i = gid(); i < ARG(n); i += gstride()) "
      "STORE(Y, i, 7); }";
  const gpu::Defines defines = {{"Y_T", "int"}, {"Y_TO(v)", "((int)(v))"}};
  {
    auto first = Context::create(p);
    std::lock_guard lock(first->launch_mutex());
    first->programs().get("cache_probe", defines, "test", text);
    EXPECT_EQ(first->stats().compiled, 1u);
    EXPECT_EQ(first->stats().from_disk, 0u);
  }
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".bin") << e.path();  // no temporary file left behind
  }
  EXPECT_EQ(files, 1u);
  auto second = Context::create(p);
  {
    std::lock_guard lock(second->launch_mutex());
    second->programs().get("cache_probe", defines, "test", text);
  }
  EXPECT_EQ(second->stats().compiled, 0u);
  EXPECT_EQ(second->stats().from_disk, 1u);
  // The second context runs kernels as the first did.
  OpenClBackend be(second, "opencl");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(be.into_data(be.full(Shape{3}, Scalar(int64_t{4}), DType::I32)).to_vec<int32_t>(),
            (std::vector<int32_t>{4, 4, 4}));
}

TEST(OpenClRuntime, WritesReadsAndThePool) {
  REQUIRE_DEVICE();
  const uint64_t before = ctx->stats().buffers;
  {
    Prim a = upload<float>(be, {1.5f, -2.0f, 3.25f}, DType::F32);
    EXPECT_EQ(download<float>(be, a), (std::vector<float>{1.5f, -2.0f, 3.25f}));
  }
  // The freed buffer (and the class) is reused without a new buffer.
  const uint64_t hits = ctx->stats().pool_hits;
  Prim b = upload<float>(be, {4.0f, 5.0f, 6.0f}, DType::F32);
  EXPECT_GT(ctx->stats().pool_hits, hits);
  EXPECT_LE(ctx->stats().buffers, before + 1);
  EXPECT_EQ(download<float>(be, b), (std::vector<float>{4.0f, 5.0f, 6.0f}));
  EXPECT_EQ(size_class(1), 256u);
  EXPECT_EQ(size_class(257), 384u);
  EXPECT_EQ(size_class(385), 512u);
}

TEST(OpenClRuntime, ElementwiseValuesBroadcastsViewsAndCasts) {
  REQUIRE_DEVICE();
  Prim a = upload<float>(be, {1, 2, 3, 4, 5, 6}, DType::F32, Shape{2, 3});
  Prim b = upload<float>(be, {10, 20, 30}, DType::F32, Shape{3});
  EXPECT_EQ(download<float>(be, be.add(a, b)), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  // A transposed view read through its strides.
  Prim t = be.permute(a, Axes{1, 0});
  EXPECT_EQ(download<float>(be, be.mul_scalar(t, Scalar(2.0))), (std::vector<float>{2, 8, 4, 10, 6, 12}));
  EXPECT_EQ(download<float>(be, t), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  // Float math through OpenCL's builtins, in f64 where the device has it.
  if (ctx->profile().fp64) {
    Prim d = upload<double>(be, {0.0, 1.0, -2.5}, DType::F64);
    const auto e = download<double>(be, be.exp(d));
    EXPECT_DOUBLE_EQ(e[1], std::exp(1.0));
    EXPECT_NEAR(e[2], std::exp(-2.5), 1e-15);
    EXPECT_EQ(download<double>(be, be.round(upload<double>(be, {0.5, 1.5, 2.5, -0.5}, DType::F64))),
              (std::vector<double>{0.0, 2.0, 2.0, -0.0}));
  }
  // Casts: float to int truncates (NaN 0, saturating), to bool is != 0.
  Prim f = upload<float>(be, {2.7f, -2.7f, std::numeric_limits<float>::quiet_NaN(), 1e30f}, DType::F32);
  EXPECT_EQ(download<int64_t>(be, be.cast(f, DType::I64)),
            (std::vector<int64_t>{2, -2, 0, std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(download<bool>(be, be.cast(f, DType::Bool)), (std::vector<bool>{true, true, true, true}));
  // An exact int comparison with a float scalar, and a mask.
  Prim i = upload<int64_t>(be, {1, 2, 3}, DType::I64);
  Prim gt = be.greater_elem(i, Scalar(2.5));
  EXPECT_EQ(download<bool>(be, gt), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(download<int64_t>(be, be.mask_fill(i, gt, Scalar(int64_t{-9}))), (std::vector<int64_t>{1, 2, -9}));
  // PyTorch's remainder: the sign of the divisor.
  EXPECT_EQ(download<int64_t>(
                be, be.remainder(upload<int64_t>(be, {-7, 7}, DType::I64), upload<int64_t>(be, {3, -3}, DType::I64))),
            (std::vector<int64_t>{2, -2}));
}

TEST(OpenClRuntime, AnIntegerDivisionByZeroIsAValueErrorAtTheNextRead) {
  REQUIRE_DEVICE();
  Prim q = be.div(upload<int32_t>(be, {6, 1}, DType::I32), upload<int32_t>(be, {3, 0}, DType::I32));
  try {
    be.into_data(q);
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("[div] integer division by zero"), std::string::npos) << e.what();
  }
  // The device stays usable and the fault is reported once.
  EXPECT_EQ(download<int32_t>(be, be.div(upload<int32_t>(be, {6}, DType::I32), upload<int32_t>(be, {3}, DType::I32))),
            (std::vector<int32_t>{2}));
}

TEST(OpenClRuntime, OutOfMemoryNamesTheOpAndTheBytesAndTheDeviceStaysUsable) {
  REQUIRE_DEVICE();
  const int64_t n = static_cast<int64_t>(ctx->profile().max_alloc / 4) + 1;
  try {
    be.full(Shape{n}, Scalar(1.0), DType::F32);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("[full] a buffer of " + std::to_string(n * 4) + " bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("CL_DEVICE_MAX_MEM_ALLOC_SIZE"), std::string::npos) << m;
  }
  EXPECT_EQ(download<float>(be, be.full(Shape{2}, Scalar(1.0), DType::F32)), (std::vector<float>{1, 1}));
}

TEST(OpenClRuntime, PendingOpsAreUnsupportedByName) {
  REQUIRE_DEVICE();
  EXPECT_TRUE(be.supports(OpId::add, DType::F32));
  EXPECT_TRUE(be.supports(OpId::exp, DType::F32));
  EXPECT_FALSE(be.supports(OpId::exp, DType::I64));
  EXPECT_FALSE(be.supports(OpId::add, DType::F16));
  EXPECT_FALSE(be.supports(OpId::matmul, DType::F32));
  EXPECT_FALSE(be.supports(OpId::sum_dim, DType::F32));
  Prim a = upload<float>(be, {1, 2}, DType::F32);
  try {
    be.sum_dim(a, 0);
    FAIL() << "expected Unsupported";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("[sum_dim] not yet implemented on the OpenCL backend"), std::string::npos);
  }
}

}  // namespace
}  // namespace burn::opencl
