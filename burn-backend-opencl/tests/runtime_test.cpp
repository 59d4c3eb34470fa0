// The OpenCL runtime on whatever device the machine has (PoCL in CI): profiles and selection, program
// builds and their caches, the pool, reads and writes, faults, and the elementwise ops' values.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "gpu_test_support.hpp"
#include "opencl_backend.hpp"
#include "ops/elementwise.hpp"
#include "runtime/programs.hpp"

namespace burn::opencl {
namespace {

using test::expect_close;
using test::expect_same;
using test::on_both;
using test::philox;

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
  std::filesystem::remove_all(dir);  // the fill above wrote its program back into the folder
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

TEST(OpenClRuntime, TwoProgramsServeEveryLayoutOfItsOperands) {
  REQUIRE_DEVICE();
  // Programs built or loaded from disk by this context (a program already in memory adds neither).
  auto programs = [&] { return ctx->stats().compiled + ctx->stats().from_disk; };
  Prim a = upload<int32_t>(be, {1, 2, 3, 4, 5, 6}, DType::I32, Shape{2, 3});
  Prim b = upload<int32_t>(be, {10, 20, 30, 40, 50, 60}, DType::I32, Shape{2, 3});
  EXPECT_EQ(download<int32_t>(be, be.sub(a, b)), (std::vector<int32_t>{-9, -18, -27, -36, -45, -54}));
  const uint64_t after_contiguous = programs();
  // A broadcast scalar: the modes are the launch's arguments, the program is the first one.
  EXPECT_EQ(download<int32_t>(be, be.sub(a, upload<int32_t>(be, {7}, DType::I32))),
            (std::vector<int32_t>{-6, -5, -4, -3, -2, -1}));
  EXPECT_EQ(programs(), after_contiguous);
  // A broadcast row (strided): at most one more program (STRIDED), which every strided layout shares.
  EXPECT_EQ(download<int32_t>(be, be.sub(a, upload<int32_t>(be, {100, 200, 300}, DType::I32))),
            (std::vector<int32_t>{-99, -198, -297, -96, -195, -294}));
  const uint64_t after_first = programs();
  EXPECT_LE(after_first, after_contiguous + 1);
  // Two transposed views, a rank-3 permuted view against a broadcast one: no other program.
  EXPECT_EQ(download<int32_t>(be, be.sub(be.permute(a, Axes{1, 0}), be.permute(b, Axes{1, 0}))),
            (std::vector<int32_t>{-9, -36, -18, -45, -27, -54}));
  // x: [2, 3, 4] reversed to [4, 3, 2] (strides 1, 4, 12: no dims merge, rank 3).
  std::vector<int32_t> iota(24), xs, want;
  std::vector<float> xf_want;
  for (int32_t v = 0; v < 24; ++v) iota[static_cast<size_t>(v)] = v;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) {
        xs.push_back(k * 12 + j * 4 + i);
        want.push_back(xs.back() - (k == 0 ? 100 : 1000));
        xf_want.push_back(static_cast<float>(xs.back()) + 0.5f);
      }
  Prim x = be.permute(upload<int32_t>(be, iota, DType::I32, Shape{2, 3, 4}), Axes{2, 1, 0});
  EXPECT_EQ(download<int32_t>(be, be.sub(x, upload<int32_t>(be, {100, 1000}, DType::I32))), want);
  EXPECT_EQ(programs(), after_first);
  // Copies within a dtype move bits by element size: views of i32 and of f32 made contiguous share a program.
  EXPECT_EQ(download<int32_t>(be, be.reshape(x, Shape{24})), xs);
  const uint64_t after_copy = programs();
  std::vector<float> iota_f;
  for (int32_t v : iota) iota_f.push_back(static_cast<float>(v) + 0.5f);
  Prim xf = be.permute(upload<float>(be, iota_f, DType::F32, Shape{2, 3, 4}), Axes{2, 1, 0});
  EXPECT_EQ(download<float>(be, be.reshape(xf, Shape{24})), xf_want);
  EXPECT_EQ(programs(), after_copy);
}

TEST(OpenClRuntime, ARepeatedArgumentBlockIsUploadedOnce) {
  REQUIRE_DEVICE();
  // [4, 1] + [1, 3]: a broadcast layout, whose block ([shape | strides]) the launch passes.
  Prim a = upload<float>(be, {1, 2, 3, 4}, DType::F32, Shape{4, 1});
  Prim b = upload<float>(be, {10, 20, 30}, DType::F32, Shape{1, 3});
  const std::vector<float> want{11, 21, 31, 12, 22, 32, 13, 23, 33, 14, 24, 34};
  EXPECT_EQ(download<float>(be, be.add(a, b)), want);
  const uint64_t written = ctx->stats().blocks_written;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(download<float>(be, be.add(a, b)), want);
  EXPECT_EQ(ctx->stats().blocks_written, written);
  // Another layout is another block, uploaded once as well.
  Prim c = upload<float>(be, {1, 2, 3, 4, 5}, DType::F32, Shape{5, 1});
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(download<float>(be, be.add(c, b)),
              (std::vector<float>{11, 21, 31, 12, 22, 32, 13, 23, 33, 14, 24, 34, 15, 25, 35}));
  EXPECT_EQ(ctx->stats().blocks_written, written + 1);
}

TEST(OpenClRuntime, MoreBlocksThanTheCacheKeepsStartItOverAndValuesStayRight) {
  REQUIRE_DEVICE();
  // [n, 1] + [1, 2] for n = 1 .. kBlockCacheEntries + 100, read only at the end: the cache starts over while
  // launches reading the dropped blocks are still queued, and their buffers go to later blocks.
  const int64_t count = static_cast<int64_t>(Context::kBlockCacheEntries) + 100;
  Prim b = upload<int32_t>(be, {1000, 2000}, DType::I32, Shape{1, 2});
  const uint64_t written = ctx->stats().blocks_written;
  std::vector<Prim> outs;
  for (int64_t n = 1; n <= count; ++n) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    outs.push_back(be.add(upload<int32_t>(be, v, DType::I32, Shape{n, 1}), b));
  }
  EXPECT_GE(ctx->stats().blocks_written - written, static_cast<uint64_t>(Context::kBlockCacheEntries));
  for (int64_t n = 1; n <= count; ++n) {
    const std::vector<int32_t> got = download<int32_t>(be, outs[static_cast<size_t>(n - 1)]);
    ASSERT_EQ(got.size(), static_cast<size_t>(2 * n));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[static_cast<size_t>(2 * i)], 1000 + i) << "n = " << n;
      ASSERT_EQ(got[static_cast<size_t>(2 * i + 1)], 2000 + i) << "n = " << n;
    }
  }
}

TEST(OpenClRuntime, BatchedLaunchesRunAtTheNextReadOrSync) {
  auto platforms = platforms_or_skip();
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device";
  const DeviceProfile& profile = platforms->choose("");
  {
    Env e("BURN_OPENCL_BATCH", "many");
    EXPECT_THROW(Context::create(profile), ValueError);
  }
  // A batch larger than every launch here: nothing runs until the read (or the sync) opens the gate.
  for (const char* batch : {"1000", "2", "0"}) {
    Env e("BURN_OPENCL_BATCH", batch);
    OpenClBackend be(Context::create(profile), "opencl");
    Prim x = upload<float>(be, {1, 2, 3, 4}, DType::F32);
    for (int i = 0; i < 5; ++i) x = be.mul_scalar(x, Scalar(2.0));
    Prim y = be.add_scalar(x, Scalar(1.0));
    be.sync();
    EXPECT_EQ(download<float>(be, y), (std::vector<float>{33, 65, 97, 129})) << "BURN_OPENCL_BATCH=" << batch;
    for (int i = 0; i < 3; ++i) x = be.mul_scalar(x, Scalar(0.5));
    EXPECT_EQ(download<float>(be, x), (std::vector<float>{4, 8, 12, 16})) << "BURN_OPENCL_BATCH=" << batch;
  }
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

TEST(OpenClRuntime, ADamagedCachedBinaryIsRebuiltNotLoaded) {
  auto platforms = platforms_or_skip();
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device";
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("burn-opencl-damaged-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  Env env("BURN_OPENCL_CACHE_DIR", dir);
  const DeviceProfile& p = platforms->choose("");
  const std::string text =
      "KERNEL_PARAMS PARAM_TENSOR(Y) PARAM(int64_t, n) KERNEL_MAIN { for (idx_t i = gid(); i < ARG(n); i += gstride()) "
      "STORE(Y, i, 9); }";
  const gpu::Defines defines = {{"Y_T", "int"}, {"Y_TO(v)", "((int)(v))"}};
  auto build = [&](uint64_t want_compiled, uint64_t want_from_disk) {
    auto c = Context::create(p);
    {
      std::lock_guard lock(c->launch_mutex());
      c->programs().get("damage_probe", defines, "test", text);
    }
    EXPECT_EQ(c->stats().compiled, want_compiled);
    EXPECT_EQ(c->stats().from_disk, want_from_disk);
  };
  build(1, 0);
  std::filesystem::path file;
  for (const auto& e : std::filesystem::directory_iterator(dir)) file = e.path();
  ASSERT_FALSE(file.empty());
  const auto size = std::filesystem::file_size(file);
  // Truncated: rebuilt from source and written whole again, so the next context loads it.
  std::filesystem::resize_file(file, size / 2);
  build(1, 0);
  EXPECT_EQ(std::filesystem::file_size(file), size);
  build(0, 1);
  // One byte flipped in the middle: rebuilt too.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size / 2));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.write(&c, 1);
  }
  build(1, 0);
  // An empty file and a file of garbage of the same size.
  std::filesystem::resize_file(file, 0);
  build(1, 0);
  {
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    f << std::string(static_cast<size_t>(size), 'x');
  }
  build(1, 0);
  build(0, 1);
  std::filesystem::remove_all(dir);
}

TEST(OpenClRuntime, ReductionsWholeAndAlongADim) {
  REQUIRE_DEVICE();
  // [[1, 5, 3], [4, 2, 6]]
  Prim x = upload<float>(be, {1, 5, 3, 4, 2, 6}, DType::F32, Shape{2, 3});
  EXPECT_EQ(download<float>(be, be.sum_dim(x, 1)), (std::vector<float>{9, 12}));
  EXPECT_EQ(be.sum_dim(x, 1)->shape(), (Shape{2, 1}));
  EXPECT_EQ(download<float>(be, be.sum_dim(x, 0)), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(download<float>(be, be.mean_dim(x, 0)), (std::vector<float>{2.5f, 3.5f, 4.5f}));
  EXPECT_EQ(download<float>(be, be.prod_dim(x, 1)), (std::vector<float>{15, 48}));
  EXPECT_EQ(download<float>(be, be.max_dim(x, 0)), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(download<float>(be, be.min_dim(x, 1)), (std::vector<float>{1, 2}));
  EXPECT_EQ(download<int64_t>(be, be.argmax(x, 1)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(download<int64_t>(be, be.argmin(x, 0)), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(download<float>(be, be.sum(x)), (std::vector<float>{21}));
  EXPECT_EQ(download<float>(be, be.mean(x)), (std::vector<float>{3.5f}));
  EXPECT_EQ(download<float>(be, be.prod(x)), (std::vector<float>{720}));
  EXPECT_EQ(download<float>(be, be.max(x)), (std::vector<float>{6}));
  EXPECT_EQ(download<float>(be, be.min(x)), (std::vector<float>{1}));
  // A transposed view reads through its strides.
  Prim t = be.permute(x, {1, 0});
  EXPECT_EQ(download<float>(be, be.sum_dim(t, 1)), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(download<int64_t>(be, be.argmax(t, 0)), (std::vector<int64_t>{1, 2}));
  auto [v, i] = be.max_dim_with_indices(t, 1);
  EXPECT_EQ(download<float>(be, v), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(download<int64_t>(be, i), (std::vector<int64_t>{1, 0, 1}));
  // Ints in their type; the mean of i32 through i64.
  Prim n = upload<int32_t>(be, {7, -3, 2, 9}, DType::I32, Shape{2, 2});
  EXPECT_EQ(download<int32_t>(be, be.sum_dim(n, 0)), (std::vector<int32_t>{9, 6}));
  EXPECT_EQ(download<int32_t>(be, be.mean_dim(n, 1)), (std::vector<int32_t>{2, 5}));
  EXPECT_EQ(download<int32_t>(be, be.max(n)), (std::vector<int32_t>{9}));
  // Ties give the first index; NaN wins and propagates.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Prim ties = upload<float>(be, {2, 7, 7, 1, 1}, DType::F32);
  EXPECT_EQ(download<int64_t>(be, be.argmax(ties, 0)), (std::vector<int64_t>{1}));
  EXPECT_EQ(download<int64_t>(be, be.argmin(ties, 0)), (std::vector<int64_t>{3}));
  Prim withnan = upload<float>(be, {2, nan, 9, nan}, DType::F32);
  EXPECT_EQ(download<int64_t>(be, be.argmax(withnan, 0)), (std::vector<int64_t>{1}));
  EXPECT_TRUE(std::isnan(download<float>(be, be.max(withnan))[0]));
  EXPECT_TRUE(std::isnan(download<float>(be, be.min_dim(withnan, 0))[0]));
  // any/all on bool and on floats (NaN is nonzero).
  Prim b = upload<bool>(be, {false, true, false, false}, DType::Bool, Shape{2, 2});
  EXPECT_EQ(download<bool>(be, be.any_dim(b, 1)), (std::vector<bool>{true, false}));
  EXPECT_EQ(download<bool>(be, be.all(withnan)), (std::vector<bool>{true}));
  // Errors: an empty dim for max, a bad dim, a dtype the fold does not take.
  Prim empty = be.empty(Shape{2, 0}, DType::F32);
  EXPECT_EQ(download<float>(be, be.sum_dim(empty, 1)), (std::vector<float>{0, 0}));
  EXPECT_THROW(be.max_dim(empty, 1), ValueError);
  EXPECT_THROW(be.sum_dim(x, 2), IndexError);
  EXPECT_THROW(be.sum_dim(b, 0), DTypeError);
}

TEST(OpenClRuntime, LongReductionsFoldInChunksAsTheCpuDoes) {
  REQUIRE_DEVICE();
  // 70,000 elements: three passes (256 x 256 = 65,536 per two). Values whose sums are exact in f32.
  std::vector<float> v(70000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
  v[69999] = 100.0f;
  v[12345] = -50.0f;
  Prim x = upload<float>(be, v, DType::F32);
  double want = 0;
  for (float f : v) want += f;
  EXPECT_EQ(download<float>(be, be.sum(x))[0], static_cast<float>(want));
  EXPECT_EQ(download<int64_t>(be, be.argmax(x, 0)), (std::vector<int64_t>{69999}));
  EXPECT_EQ(download<int64_t>(be, be.argmin(x, 0)), (std::vector<int64_t>{12345}));
  // The same values as [2, 35000] along dim 1 and as its transpose along dim 0.
  Prim m = be.reshape(x, Shape{2, 35000});
  const auto rows = download<float>(be, be.sum_dim(m, 1));
  const auto cols = download<float>(be, be.sum_dim(be.permute(m, {1, 0}), 0));
  EXPECT_EQ(rows, cols);
  EXPECT_EQ(rows[0] + rows[1], static_cast<float>(want));
}

TEST(OpenClRuntime, ScansAlongADim) {
  REQUIRE_DEVICE();
  Prim x = upload<float>(be, {1, 5, 3, 4, 2, 6}, DType::F32, Shape{2, 3});
  EXPECT_EQ(download<float>(be, be.cumsum(x, 1)), (std::vector<float>{1, 6, 9, 4, 6, 12}));
  EXPECT_EQ(download<float>(be, be.cumsum(x, 0)), (std::vector<float>{1, 5, 3, 5, 7, 9}));
  EXPECT_EQ(download<float>(be, be.cumprod(x, 1)), (std::vector<float>{1, 5, 15, 4, 8, 48}));
  EXPECT_EQ(download<float>(be, be.cummax(x, 1)), (std::vector<float>{1, 5, 5, 4, 4, 6}));
  EXPECT_EQ(download<float>(be, be.cummin(be.permute(x, {1, 0}), 0)), (std::vector<float>{1, 4, 1, 2, 1, 2}));
  Prim n = upload<int64_t>(be, {3, -1, 4}, DType::I64);
  EXPECT_EQ(download<int64_t>(be, be.cumsum(n, 0)), (std::vector<int64_t>{3, 2, 6}));
  EXPECT_THROW(be.cumsum(x, 2), IndexError);
}

TEST(OpenClRuntime, MatmulThroughClblastAndTheKernelAgree) {
  REQUIRE_DEVICE();
  // [2, 1, 2, 3] x [1, 3, 3, 2] broadcast to [2, 3, 2, 2].
  std::vector<double> av(12), bv(18);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<double>(i) - 4;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<double>((i * 5) % 7) - 2;
  std::vector<double> want(24);
  for (int z0 = 0; z0 < 2; ++z0)
    for (int z1 = 0; z1 < 3; ++z1)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          double s = 0;
          for (int p = 0; p < 3; ++p) s += av[z0 * 6 + i * 3 + p] * bv[z1 * 6 + p * 2 + j];
          want[((z0 * 3 + z1) * 2 + i) * 2 + j] = s;
        }
  for (DType d : {DType::F32, DType::F64, DType::I64, DType::I32}) {
    if (d == DType::F64 && !ctx->profile().fp64) continue;
    SCOPED_TRACE(dtype_name(d));
    Prim a = be.from_data(TensorData::from_vector(av, Shape{2, 1, 2, 3}).convert(d));
    Prim b = be.from_data(TensorData::from_vector(bv, Shape{1, 3, 3, 2}).convert(d));
    Prim c = be.matmul(a, b);
    EXPECT_EQ(c->shape(), (Shape{2, 3, 2, 2}));
    EXPECT_EQ(be.into_data(c).convert(DType::F64).to_vec<double>(), want);
    // A transposed rhs (column-major matrices) gives the same values.
    std::vector<double> btv(18);
    for (int z1 = 0; z1 < 3; ++z1)
      for (int p = 0; p < 3; ++p)
        for (int j = 0; j < 2; ++j) btv[z1 * 6 + j * 3 + p] = bv[z1 * 6 + p * 2 + j];
    Prim bt = be.permute(be.from_data(TensorData::from_vector(btv, Shape{1, 3, 2, 3}).convert(d)), {0, 1, 3, 2});
    EXPECT_EQ(be.into_data(be.matmul(a, bt)).convert(DType::F64).to_vec<double>(), want);
  }
  // CLBlast passes its self-test on the device (PoCL in CI); with it switched off the kernel gives the same.
  EXPECT_EQ(clblast_refusal(be, DType::F32), "");
  {
    Env off("BURN_OPENCL_BLAS", "off");
    Prim a = upload<float>(be, {1, 2, 3, 4, 5, 6}, DType::F32, Shape{2, 3});
    Prim b = upload<float>(be, {1, 0, 0, 1, 1, 1}, DType::F32, Shape{3, 2});
    EXPECT_EQ(download<float>(be, be.matmul(a, b)), (std::vector<float>{4, 5, 10, 11}));
  }
  EXPECT_THROW(be.matmul(upload<float>(be, {1, 2}, DType::F32, Shape{1, 2}),
                         upload<float>(be, {1, 2, 3}, DType::F32, Shape{3, 1})),
               ShapeError);
}

// The plugin's GEMM kernel (BLAS off) past one tile in M, N and K, against the cpu plugin: a broadcast
// batch, a transposed and a flipped (negative strides) operand, M = 1 and K = 1, K = 0 (zeros).
TEST(OpenClRuntime, TheGemmKernelCrossesTilesEdgesAndLayoutsAsTheCpuPlugin) {
  REQUIRE_DEVICE();
  const BackendPtr cpu = plugins::create_backend("cpu");
  Env off("BURN_OPENCL_BLAS", "off");
  std::vector<double> av(2 * 70 * 45), bv(3 * 37 * 45);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<double>((i * 7) % 11) - 5;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<double>((i * 5) % 13) - 6;
  for (DType d : {DType::F32, DType::F64, DType::I64, DType::I32}) {
    if (d == DType::F64 && !ctx->profile().fp64) continue;
    const std::string n(dtype_name(d));
    const auto [a, ac] = on_both(be, *cpu, av, Shape{2, 1, 70, 45}, d);
    const auto [bt, btc] = on_both(be, *cpu, bv, Shape{1, 3, 37, 45}, d);
    // [2, 1, 70, 45] x [1, 3, 45, 37] (B read transposed) to [2, 3, 70, 37]; small integers: exact sums.
    expect_same(be, be.matmul(a, be.permute(bt, {0, 1, 3, 2})), *cpu, cpu->matmul(ac, cpu->permute(btc, {0, 1, 3, 2})),
                n + " broadcast, transposed rhs");
    expect_same(be, be.matmul(be.flip(a, {2, 3}), be.permute(bt, {0, 1, 3, 2})), *cpu,
                cpu->matmul(cpu->flip(ac, {2, 3}), cpu->permute(btc, {0, 1, 3, 2})), n + " flipped lhs");
    expect_same(be, be.matmul(be.permute(bt, {0, 1, 3, 2}), be.flip(bt, {3})), *cpu,
                cpu->matmul(cpu->permute(btc, {0, 1, 3, 2}), cpu->flip(btc, {3})), n + " [45, 37] x [37, 45]");
    const auto [r, rc] = on_both(be, *cpu, {1, 2, 3}, Shape{1, 3}, d);
    const auto [c, cc] = on_both(be, *cpu, {4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6}, Shape{3, 4}, d);
    expect_same(be, be.matmul(r, c), *cpu, cpu->matmul(rc, cc), n + " M = 1");
    expect_same(be, be.matmul(be.permute(r, {1, 0}), r), *cpu, cpu->matmul(cpu->permute(rc, {1, 0}), rc), n + " K = 1");
    const auto [e0, e0c] = on_both(be, *cpu, {}, Shape{3, 0}, d);
    const auto [e1, e1c] = on_both(be, *cpu, {}, Shape{0, 5}, d);
    expect_same(be, be.matmul(e0, e1), *cpu, cpu->matmul(e0c, e1c), n + " K = 0");
  }
}

TEST(OpenClRuntime, GatherScatterAndSelectCheckTheirIndices) {
  REQUIRE_DEVICE();
  // [[1, 2, 3], [4, 5, 6]]
  Prim x = upload<float>(be, {1, 2, 3, 4, 5, 6}, DType::F32, Shape{2, 3});
  Prim idx = upload<int64_t>(be, {2, 0, 1, 1}, DType::I64, Shape{2, 2});
  EXPECT_EQ(download<float>(be, be.gather(x, 1, idx)), (std::vector<float>{3, 1, 5, 5}));
  Prim idx32 = upload<int32_t>(be, {1, 0, 0}, DType::I32, Shape{1, 3});
  EXPECT_EQ(download<float>(be, be.gather(x, 0, idx32)), (std::vector<float>{4, 2, 3}));
  // select along dim 1 of a transposed view.
  Prim sel = upload<int64_t>(be, {1, 1, 0}, DType::I64);
  EXPECT_EQ(download<float>(be, be.select(be.permute(x, {1, 0}), 1, sel)),
            (std::vector<float>{4, 4, 1, 5, 5, 2, 6, 6, 3}));
  // f64 and bool move as bits.
  Prim b = upload<bool>(be, {true, false, true}, DType::Bool);
  EXPECT_EQ(download<bool>(be, be.select(b, 0, sel)), (std::vector<bool>{false, false, true}));
  // scatter_add sums in order into a copy (x stays), repeated indices included.
  Prim vals = upload<float>(be, {10, 20, 30, 40}, DType::F32, Shape{2, 2});
  EXPECT_EQ(download<float>(be, be.scatter_add(x, 1, idx, vals)), (std::vector<float>{21, 2, 13, 4, 75, 6}));
  EXPECT_EQ(download<float>(be, x), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Prim n = upload<int64_t>(be, {0, 0, 0}, DType::I64);
  Prim nv = upload<int64_t>(be, {5, 7, 9}, DType::I64);
  EXPECT_EQ(download<int64_t>(be, be.select_add(n, 0, sel, nv)), (std::vector<int64_t>{9, 12, 0}));
  // An index out of range, negative ones too, is an IndexError at the next read naming the op.
  Prim bad = upload<int64_t>(be, {0, 3}, DType::I64);
  Prim g = be.select(x, 1, bad);
  try {
    be.into_data(g);
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("index 3 is out of range"), std::string::npos) << e.what();
  }
  Prim neg = upload<int32_t>(be, {-1}, DType::I32, Shape{1, 1});
  EXPECT_THROW(be.into_data(be.gather(x, 0, neg)), IndexError);
  EXPECT_THROW(be.gather(x, 1, upload<float>(be, {0}, DType::F32, Shape{1, 1})), DTypeError);
  EXPECT_THROW(be.scatter_add(b, 0, sel, b), DTypeError);
  // The device stays usable.
  EXPECT_EQ(download<float>(be, be.gather(x, 1, idx)), (std::vector<float>{3, 1, 5, 5}));
}

TEST(OpenClRuntime, SupportsAnswersByOpAndDtype) {
  REQUIRE_DEVICE();
  EXPECT_TRUE(be.supports(OpId::add, DType::F32));
  EXPECT_TRUE(be.supports(OpId::exp, DType::F32));
  EXPECT_FALSE(be.supports(OpId::exp, DType::I64));
  EXPECT_TRUE(be.supports(OpId::add, DType::F16));
  EXPECT_TRUE(be.supports(OpId::exp, DType::BF16));
  EXPECT_FALSE(be.supports(OpId::bitwise_and, DType::BF16));
  EXPECT_TRUE(be.supports(OpId::sum_dim, DType::BF16));
  EXPECT_TRUE(be.supports(OpId::matmul, DType::F16));
  EXPECT_TRUE(be.supports(OpId::matmul, DType::BF16));
  EXPECT_TRUE(be.supports(OpId::random, DType::BF16));
  EXPECT_TRUE(be.supports(OpId::matmul, DType::F32));
  EXPECT_TRUE(be.supports(OpId::matmul, DType::I64));
  EXPECT_FALSE(be.supports(OpId::matmul, DType::Bool));
  EXPECT_TRUE(be.supports(OpId::sum_dim, DType::F32));
  EXPECT_TRUE(be.supports(OpId::cumsum, DType::I32));
  EXPECT_FALSE(be.supports(OpId::sum_dim, DType::Bool));
  EXPECT_TRUE(be.supports(OpId::any, DType::Bool));
  EXPECT_TRUE(be.supports(OpId::sort, DType::F32));
  EXPECT_TRUE(be.supports(OpId::topk, DType::I64));
  EXPECT_FALSE(be.supports(OpId::argsort, DType::Bool));
  EXPECT_TRUE(be.supports(OpId::argwhere, DType::Bool));
  EXPECT_TRUE(be.supports(OpId::argwhere, DType::F16));
}

// Sorts by (value, index): stable, NaN largest, descending, along either dim of a transposed view, a line
// long enough for several merge passes (against std::stable_sort), topk's first k.
TEST(OpenClRuntime, SortArgsortTopk) {
  REQUIRE_DEVICE();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Prim x = upload<float>(be, {3, nan, 1, 3, -2, 1}, DType::F32, Shape{6});
  auto [v, i] = be.sort(x, 0, false, true);
  const std::vector<float> vs = download<float>(be, v);
  EXPECT_EQ(std::vector<float>(vs.begin(), vs.begin() + 5), (std::vector<float>{-2, 1, 1, 3, 3}));
  EXPECT_TRUE(std::isnan(vs[5]));
  EXPECT_EQ(download<int64_t>(be, i), (std::vector<int64_t>{4, 2, 5, 0, 3, 1}));
  EXPECT_EQ(download<int64_t>(be, be.argsort(x, 0, true, true)), (std::vector<int64_t>{1, 0, 3, 2, 5, 4}));
  auto [tv, ti] = be.topk(x, 2, 0, true);
  EXPECT_EQ(download<int64_t>(be, ti), (std::vector<int64_t>{1, 0}));
  EXPECT_THROW(be.topk(x, 7, 0, true), IndexError);
  EXPECT_THROW(be.sort(x, 1, false, true), IndexError);
  // A [3, 2] i32 matrix seen transposed ([2, 3] with strides [1, 2]), sorted along both dims.
  Prim m = be.permute(upload<int32_t>(be, {5, 0, -1, 7, 5, 2}, DType::I32, Shape{3, 2}), Axes{1, 0});
  EXPECT_EQ(download<int32_t>(be, be.sort(m, 1, false, true).first), (std::vector<int32_t>{-1, 5, 5, 0, 2, 7}));
  EXPECT_EQ(download<int64_t>(be, be.argsort(m, 0, true, true)), (std::vector<int64_t>{0, 1, 0, 1, 0, 1}));
  // 1,000 values with many ties: runs of 32 and five merge passes; a second line sorted descending.
  std::vector<double> big(2000);
  for (size_t k = 0; k < big.size(); ++k) big[k] = static_cast<double>((k * 7919) % 97) - 40;
  Prim b = upload<double>(be, big, DType::F64, Shape{2, 1000});
  auto [bv, bi] = be.sort(b, 1, true, true);
  const std::vector<int64_t> got = download<int64_t>(be, bi);
  const std::vector<double> got_v = download<double>(be, bv);
  const std::vector<int64_t> got_k = download<int64_t>(be, be.topk(b, 3, 1, false).second);
  for (size_t line = 0; line < 2; ++line) {
    auto order = [&](bool descending) {
      std::vector<int64_t> want(1000);
      for (size_t k = 0; k < want.size(); ++k) want[k] = static_cast<int64_t>(k);
      const double* l = big.data() + line * 1000;
      std::stable_sort(want.begin(), want.end(),
                       [&](int64_t a, int64_t c) { return descending ? l[a] > l[c] : l[a] < l[c]; });
      return want;
    };
    const std::vector<int64_t> want = order(true), smallest = order(false);
    for (size_t k = 0; k < want.size(); ++k) {
      ASSERT_EQ(got[line * 1000 + k], want[k]) << "line " << line << " position " << k;
      ASSERT_EQ(got_v[line * 1000 + k], big[line * 1000 + want[k]]);
    }
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(got_k[line * 3 + k], smallest[k]);
  }
  EXPECT_THROW(be.sort(upload<bool>(be, {true, false}, DType::Bool), 0, false, true), DTypeError);
}

// argwhere: row-major coordinates of the nonzero elements (NaN and -0.0: nonzero and zero), through a
// transposed view, and over several tiles.
TEST(OpenClRuntime, Argwhere) {
  REQUIRE_DEVICE();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Prim x = upload<float>(be, {0, nan, -0.0f, 2, 0, 1}, DType::F32, Shape{2, 3});
  EXPECT_EQ(download<int64_t>(be, be.argwhere(x)), (std::vector<int64_t>{0, 1, 1, 0, 1, 2}));
  Prim t = be.permute(x, Axes{1, 0});  // [[0, 2], [nan, 0], [-0, 1]]
  EXPECT_EQ(download<int64_t>(be, be.argwhere(t)), (std::vector<int64_t>{0, 1, 1, 0, 2, 1}));
  EXPECT_EQ(be.argwhere(upload<float>(be, {0, 0}, DType::F32))->shape(), (Shape{0, 1}));
  // 3,000 bools, every seventh true: 12 tiles of 256.
  std::vector<bool> flags(3000);
  std::vector<int64_t> want;
  for (size_t k = 0; k < flags.size(); ++k)
    if (k % 7 == 3) {
      flags[k] = true;
      want.push_back(static_cast<int64_t>(k / 100));
      want.push_back(static_cast<int64_t>(k % 100));
    }
  Prim f = be.argwhere(upload<bool>(be, flags, DType::Bool, Shape{30, 100}));
  EXPECT_EQ(f->shape(), (Shape{static_cast<int64_t>(want.size() / 2), 2}));
  EXPECT_EQ(download<int64_t>(be, f), want);
}

// softmax and log_softmax against the cpu backend's formula in double: along the last dim (a long row: a
// work-group per row), the first dim (an invocation per lane), a transposed view, a NaN and a -inf row.
TEST(OpenClRuntime, SoftmaxAndLogSoftmax) {
  REQUIRE_DEVICE();
  const int64_t rows = 3, n = 300;
  std::vector<float> v(static_cast<size_t>(rows * n));
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>((k * 37) % 101) / 10.0f - 5.0f;
  v[n + 7] = std::numeric_limits<float>::quiet_NaN();
  Prim x = upload<float>(be, v, DType::F32, Shape{rows, n});
  for (bool log : {false, true})
    for (size_t dim : {size_t{0}, size_t{1}}) {
      const std::vector<float> got = download<float>(be, log ? be.log_softmax(x, dim) : be.softmax(x, dim));
      const int64_t lines = dim == 1 ? rows : n, len = dim == 1 ? n : rows;
      for (int64_t l = 0; l < lines; ++l) {
        auto at = [&](int64_t j) { return static_cast<size_t>(dim == 1 ? l * n + j : j * n + l); };
        double m = -INFINITY, sum = 0;
        bool nan = false;
        for (int64_t j = 0; j < len; ++j) {
          nan = nan || std::isnan(v[at(j)]);
          m = std::max(m, static_cast<double>(v[at(j)]));
        }
        for (int64_t j = 0; j < len; ++j) sum += std::exp(v[at(j)] - m);
        for (int64_t j = 0; j < len; ++j) {
          const double want = log ? (v[at(j)] - m) - std::log(sum) : std::exp(v[at(j)] - m) / sum;
          if (nan)
            ASSERT_TRUE(std::isnan(got[at(j)])) << "log " << log << " dim " << dim << " line " << l;
          else
            ASSERT_NEAR(got[at(j)], want, 1e-5 * (1 + std::abs(want))) << "log " << log << " dim " << dim;
        }
      }
    }
  Prim t = be.permute(upload<double>(be, {1, 2, 3, 4}, DType::F64, Shape{2, 2}), Axes{1, 0});  // [[1, 3], [2, 4]]
  const std::vector<double> st = download<double>(be, be.softmax(t, 1));
  EXPECT_NEAR(st[0], 1 / (1 + std::exp(2.0)), 1e-12);
  EXPECT_NEAR(st[3], 1 / (1 + std::exp(-2.0)), 1e-12);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(download<float>(be, be.softmax(upload<float>(be, {-inf, -inf}, DType::F32), 0))[0]));
  EXPECT_THROW(be.softmax(x, 2), IndexError);
  EXPECT_THROW(be.softmax(upload<int32_t>(be, {1, 2}, DType::I32), 0), DTypeError);
}

TEST(OpenClRuntime, PoolsWithIndicesAndTheirBackward) {
  REQUIRE_DEVICE();
  // One plane [4, 4]: 2x2 windows, stride 2.
  Prim x = upload<float>(be, {1, 5, 2, 0, 3, 4, 8, 7, -1, -2, 6, 6, -3, -4, 6, 9}, DType::F32, Shape{1, 1, 4, 4});
  PoolOptions o;
  o.kernel = {2, 2};
  o.stride = {2, 2};
  o.padding = {0, 0};
  o.padding_end = {0, 0};
  o.dilation = {1, 1};
  const auto [y, idx] = be.max_pool_with_indices(x, o);
  EXPECT_EQ(download<float>(be, y), (std::vector<float>{5, 8, -1, 9}));
  // Flat in-plane indices of the first strict maximum of each window.
  EXPECT_EQ(download<int64_t>(be, idx), (std::vector<int64_t>{1, 6, 8, 15}));
  Prim g = upload<float>(be, {1, 2, 3, 4}, DType::F32, Shape{1, 1, 2, 2});
  EXPECT_EQ(download<float>(be, be.max_pool_backward(x, g, idx, o)),
            (std::vector<float>{0, 1, 0, 0, 0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 4}));
  EXPECT_EQ(download<float>(be, be.avg_pool(x, o)), (std::vector<float>{3.25f, 4.25f, -2.5f, 6.75f}));
  EXPECT_EQ(
      download<float>(be, be.avg_pool_backward(x, g, o)),
      (std::vector<float>{0.25f, 0.25f, 0.5f, 0.5f, 0.25f, 0.25f, 0.5f, 0.5f, 0.75f, 0.75f, 1, 1, 0.75f, 0.75f, 1, 1}));
  // An index outside the plane is an IndexError at the next read, naming the op.
  Prim bad = upload<int64_t>(be, {1, 6, 8, 16}, DType::I64, Shape{1, 1, 2, 2});
  Prim gi = be.max_pool_backward(x, g, bad, o);
  try {
    be.into_data(gi);
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("max_pool_backward"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(be.supports(OpId::max_pool, DType::F32));
  EXPECT_FALSE(be.supports(OpId::avg_pool, DType::I32));
  EXPECT_THROW(be.max_pool(upload<int32_t>(be, {1, 2, 3, 4}, DType::I32, Shape{1, 1, 2, 2}), o), DTypeError);
}

// A 2-D conv on the host, the definition: y[b, co, oh, ow] = bias[co] + sum over (ci, kh, kw) of the group's
// x[b, g*Cg + ci, oh*s - p + kh*d, ...] * w[co, ci, kh, kw], taps outside the input 0.
std::vector<double> conv2d_reference(const std::vector<double>& x, const std::vector<double>& w,
                                     const std::vector<double>& bias, const int64_t xs[4], const int64_t ws[4],
                                     int64_t s, int64_t p, int64_t d, int64_t groups, int64_t oh_n, int64_t ow_n) {
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], cout = ws[0], cg = ws[1], kh_n = ws[2], kw_n = ws[3];
  std::vector<double> y(static_cast<size_t>(n * cout * oh_n * ow_n));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t co = 0; co < cout; ++co)
      for (int64_t oh = 0; oh < oh_n; ++oh)
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          const int64_t g = co / (cout / groups);
          double acc = bias.empty() ? 0.0 : bias[co];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t kh = 0; kh < kh_n; ++kh)
              for (int64_t kw = 0; kw < kw_n; ++kw) {
                const int64_t ih = oh * s - p + kh * d, iw = ow * s - p + kw * d;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                acc += x[((b * c + g * cg + ci) * h + ih) * wd + iw] * w[((co * cg + ci) * kh_n + kh) * kw_n + kw];
              }
          y[((b * cout + co) * oh_n + oh) * ow_n + ow] = acc;
        }
  return y;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// conv against the definition (grouped, strided, padded, dilated; a wide product on 8 x 8 work-groups of
// 4 x 4 outputs and a depthwise one on a column of rows), its backward by the adjoint identities
// <conv(x), g> = <x, gx> = <w, gw> and the bias gradient as the channel sums, conv_transpose as the input
// gradient plus the bias, and its backward as the forward conv and the weight gradient.
TEST(OpenClRuntime, ConvAndItsBackward) {
  REQUIRE_DEVICE();
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uni(-1, 1);
  auto randoms = [&](int64_t n) {
    std::vector<double> v(static_cast<size_t>(n));
    for (double& e : v) e = uni(rng);
    return v;
  };
  struct Case {
    int64_t n, c, h, w, cout, groups, k, s, p, d;
  };
  for (const Case& k :
       {Case{2, 4, 9, 7, 6, 2, 3, 2, 1, 1}, Case{1, 3, 6, 6, 3, 3, 3, 1, 2, 2}, Case{3, 2, 5, 5, 40, 1, 1, 1, 0, 1}})
    for (DType dt : {DType::F32, DType::F64}) {
      if (dt == DType::F64 && !ctx->profile().fp64) continue;
      const int64_t cg = k.c / k.groups;
      const int64_t xs[4] = {k.n, k.c, k.h, k.w}, ws[4] = {k.cout, cg, k.k, k.k};
      const int64_t oh = (k.h + 2 * k.p - k.d * (k.k - 1) - 1) / k.s + 1,
                    ow = (k.w + 2 * k.p - k.d * (k.k - 1) - 1) / k.s + 1;
      const std::vector<double> x = randoms(k.n * k.c * k.h * k.w), w = randoms(k.cout * cg * k.k * k.k),
                                bias = randoms(k.cout), g = randoms(k.n * k.cout * oh * ow);
      auto up = [&](const std::vector<double>& v, Shape shape) {
        if (dt == DType::F64) return upload<double>(be, v, DType::F64, shape);
        return upload<float>(be, std::vector<float>(v.begin(), v.end()), DType::F32, shape);
      };
      auto down = [&](const Prim& t) {
        if (dt == DType::F64) return download<double>(be, t);
        const std::vector<float> f = download<float>(be, t);
        return std::vector<double>(f.begin(), f.end());
      };
      const double tol = dt == DType::F64 ? 1e-10 : 2e-4;
      ConvOptions o;
      o.stride = {k.s, k.s};
      o.padding = {k.p, k.p};
      o.dilation = {k.d, k.d};
      o.groups = k.groups;
      const Prim px = up(x, Shape{k.n, k.c, k.h, k.w}), pw = up(w, Shape{k.cout, cg, k.k, k.k}),
                 pb = up(bias, Shape{k.cout}), pg = up(g, Shape{k.n, k.cout, oh, ow});
      const Prim y = be.conv(px, pw, pb, o);
      ASSERT_EQ(y->shape(), (Shape{k.n, k.cout, oh, ow}));
      const std::vector<double> got = down(y),
                                want = conv2d_reference(x, w, bias, xs, ws, k.s, k.p, k.d, k.groups, oh, ow);
      for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << i;
      const Prims grads = be.conv_backward(px, pw, pg, o, ConvGradMask{});
      const std::vector<double> gx = down(grads[0]), gw = down(grads[1]), gb = down(grads[2]);
      const double yg = dot(conv2d_reference(x, w, {}, xs, ws, k.s, k.p, k.d, k.groups, oh, ow), g);
      EXPECT_NEAR(dot(x, gx), yg, tol * 10 * (1 + std::abs(yg)));
      EXPECT_NEAR(dot(w, gw), yg, tol * 10 * (1 + std::abs(yg)));
      for (int64_t co = 0; co < k.cout; ++co) {
        double sum = 0;
        for (int64_t b = 0; b < k.n; ++b)
          for (int64_t j = 0; j < oh * ow; ++j) sum += g[static_cast<size_t>((b * k.cout + co) * oh * ow + j)];
        EXPECT_NEAR(gb[static_cast<size_t>(co)], sum, tol * 10 * (1 + std::abs(sum)));
      }
      // conv_transpose from g's shape back to x's: the input gradient of the same conv, plus its bias.
      ConvTransposeOptions t;
      t.stride = o.stride;
      t.padding = o.padding;
      t.dilation = o.dilation;
      t.groups = k.groups;
      t.padding_out = {(k.h + 2 * k.p - k.d * (k.k - 1) - 1) % k.s, (k.w + 2 * k.p - k.d * (k.k - 1) - 1) % k.s};
      const std::vector<double> tb = randoms(k.c);
      const Prim tw = up(w, Shape{k.cout, cg, k.k, k.k});
      const Prim ty = be.conv_transpose(pg, tw, up(tb, Shape{k.c}), t);
      ASSERT_EQ(ty->shape(), (Shape{k.n, k.c, k.h, k.w}));
      const std::vector<double> tv = down(ty);
      for (size_t i = 0; i < tv.size(); ++i) {
        const double want_t = gx[i] + tb[(i / static_cast<size_t>(k.h * k.w)) % static_cast<size_t>(k.c)];
        ASSERT_NEAR(tv[i], want_t, tol * 10 * (1 + std::abs(want_t))) << i;
      }
      // Its backward from a gradient shaped like x: the conv of that gradient, the weight gradient with the
      // roles swapped, the channel sums.
      const Prims tg = be.conv_transpose_backward(pg, tw, px, t, ConvGradMask{});
      const std::vector<double> tgx = down(tg[0]), tgw = down(tg[1]);
      const std::vector<double> conv_x = conv2d_reference(x, w, {}, xs, ws, k.s, k.p, k.d, k.groups, oh, ow);
      for (size_t i = 0; i < tgx.size(); ++i) ASSERT_NEAR(tgx[i], conv_x[i], tol * (1 + std::abs(conv_x[i]))) << i;
      EXPECT_NEAR(dot(w, tgw), yg, tol * 10 * (1 + std::abs(yg)));
      EXPECT_EQ(tg[2]->shape(), (Shape{k.c}));
      // Asked for one gradient each, the kernels return it (the same values) and null for the others.
      const Prims only_w = be.conv_backward(px, pw, pg, o, ConvGradMask{false, true, false});
      ASSERT_EQ(only_w.size(), 3u);
      EXPECT_FALSE(only_w[0]);
      EXPECT_FALSE(only_w[2]);
      ASSERT_TRUE(only_w[1]);
      EXPECT_EQ(down(only_w[1]), gw);
      const Prims only_x = be.conv_transpose_backward(pg, tw, px, t, ConvGradMask{true, false, false});
      ASSERT_EQ(only_x.size(), 3u);
      ASSERT_TRUE(only_x[0]);
      EXPECT_FALSE(only_x[1]);
      EXPECT_FALSE(only_x[2]);
      EXPECT_EQ(down(only_x[0]), tgx);
    }
  EXPECT_TRUE(be.supports(OpId::conv, DType::F32));
  EXPECT_TRUE(be.supports(OpId::conv_transpose_backward, DType::F64) == ctx->profile().fp64);
  EXPECT_FALSE(be.supports(OpId::conv, DType::I32));
  EXPECT_THROW(be.conv(upload<int32_t>(be, {1, 2, 3, 4}, DType::I32, Shape{1, 1, 2, 2}),
                       upload<int32_t>(be, {1}, DType::I32, Shape{1, 1, 1, 1}), nullptr, ConvOptions{}),
               DTypeError);
}

// The norms against their definitions: layer norm over a short row (an invocation per row) and a long one
// (a work-group of 64 with tree sums), rms norm, group norm's weight per channel, batch norm in training
// (the new running statistics, the unbiased variance) and inference; the backward ops' gradients sum to
// what the definitions give for a constant grad_out (grad_x sums to 0 per row, grad_bias counts).
TEST(OpenClRuntime, NormsForwardAndBackward) {
  REQUIRE_DEVICE();
  for (int64_t n : {6, 300}) {
    std::vector<float> v(static_cast<size_t>(2 * n));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = std::sin(0.37f * static_cast<float>(i)) * 3 + (i < v.size() / 2 ? 1 : -2);
    const Prim x = upload<float>(be, v, DType::F32, Shape{2, n});
    std::vector<float> w(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      w[static_cast<size_t>(j)] = 0.5f + 0.01f * static_cast<float>(j);
      b[static_cast<size_t>(j)] = -0.25f * static_cast<float>(j % 3);
    }
    const Prim pw = upload<float>(be, w, DType::F32, Shape{n}), pb = upload<float>(be, b, DType::F32, Shape{n});
    const std::vector<float> y = download<float>(be, be.layer_norm(x, pw, pb, 1, 1e-5));
    const std::vector<float> r = download<float>(be, be.rms_norm(x, pw, 1, 1e-6));
    for (int64_t row = 0; row < 2; ++row) {
      double mean = 0, var = 0, ms = 0;
      for (int64_t j = 0; j < n; ++j) mean += v[static_cast<size_t>(row * n + j)];
      mean /= static_cast<double>(n);
      for (int64_t j = 0; j < n; ++j) {
        const double d = v[static_cast<size_t>(row * n + j)] - mean;
        var += d * d;
        ms += static_cast<double>(v[static_cast<size_t>(row * n + j)]) * v[static_cast<size_t>(row * n + j)];
      }
      var /= static_cast<double>(n);
      ms /= static_cast<double>(n);
      for (int64_t j = 0; j < n; ++j) {
        const size_t i = static_cast<size_t>(row * n + j);
        const double want =
            (v[i] - mean) / std::sqrt(var + 1e-5) * w[static_cast<size_t>(j)] + b[static_cast<size_t>(j)];
        ASSERT_NEAR(y[i], want, 1e-4 * (1 + std::abs(want))) << "n " << n << " at " << i;
        const double want_r = v[i] / std::sqrt(ms + 1e-6) * w[static_cast<size_t>(j)];
        ASSERT_NEAR(r[i], want_r, 1e-4 * (1 + std::abs(want_r))) << "rms, n " << n << " at " << i;
      }
    }
    // A constant grad_out: grad_x sums to 0 over each row, grad_bias is the row count, grad_weight the sum
    // of x-hat over the rows (0 per row, so near 0).
    const Prim g = upload<float>(be, std::vector<float>(v.size(), 1.0f), DType::F32, Shape{2, n});
    const Prims grads = be.layer_norm_backward(x, pw, g, 1, 1e-5);
    const std::vector<float> gx = download<float>(be, grads[0]), gb = download<float>(be, grads[2]);
    for (int64_t row = 0; row < 2; ++row) {
      double s = 0;
      for (int64_t j = 0; j < n; ++j) s += gx[static_cast<size_t>(row * n + j)];
      EXPECT_NEAR(s, 0.0, 1e-3) << "n " << n;
    }
    for (float e : gb) ASSERT_FLOAT_EQ(e, 2.0f);
    EXPECT_EQ(be.rms_norm_backward(x, pw, g, 1, 1e-6)[2], nullptr);  // rms norm has no bias
  }
  // Group norm: 2 groups of 2 channels of 3 values; the weight and bias per channel.
  const Prim gx = upload<float>(be, {1, 2, 3, 4, 5, 6, -1, 0, 1, 10, 20, 30}, DType::F32, Shape{1, 4, 3});
  const std::vector<float> gn =
      download<float>(be, be.group_norm(gx, upload<float>(be, {1, 2, 1, 1}, DType::F32, Shape{4}),
                                        upload<float>(be, {0, 0, 5, 0}, DType::F32, Shape{4}), 2, 0));
  // Group 0: 1..6, mean 3.5, var 35/12; channel 1 doubled.
  const double s0 = std::sqrt(35.0 / 12.0);
  EXPECT_NEAR(gn[0], (1 - 3.5) / s0, 1e-5);
  EXPECT_NEAR(gn[3], 2 * (4 - 3.5) / s0, 1e-5);
  // Group 1: -1, 0, 1, 10, 20, 30: mean 10, channel 2 shifted by 5.
  double var1 = 0;
  for (double e : {-1.0, 0.0, 1.0, 10.0, 20.0, 30.0}) var1 += (e - 10) * (e - 10) / 6;
  EXPECT_NEAR(gn[6], (-1 - 10) / std::sqrt(var1) + 5, 1e-5);
  // Batch norm over [N = 2, C = 2, 2]: training gives the batch statistics and the new running ones.
  const Prim bx = upload<double>(be, {1, 3, 10, 10, 5, 7, 20, 40}, DType::F64, Shape{2, 2, 2});
  if (ctx->profile().fp64) {
    const Prim rm = upload<double>(be, {0, 1}, DType::F64, Shape{2}),
               rv = upload<double>(be, {1, 2}, DType::F64, Shape{2});
    const Prims t = be.batch_norm(bx, nullptr, nullptr, rm, rv, true, 0.1, 0);
    const std::vector<double> yt = download<double>(be, t[0]);
    // Channel 0: 1, 3, 5, 7: mean 4, biased var 5, unbiased 20 / 3.
    EXPECT_NEAR(yt[0], (1 - 4) / std::sqrt(5.0), 1e-12);
    EXPECT_NEAR(download<double>(be, t[1])[0], 0.9 * 0 + 0.1 * 4, 1e-12);
    EXPECT_NEAR(download<double>(be, t[2])[0], 0.9 * 1 + 0.1 * 20.0 / 3, 1e-12);
    // Inference normalises with the running statistics.
    const Prims inf = be.batch_norm(bx, nullptr, nullptr, rm, rv, false, 0.1, 0);
    EXPECT_NEAR(download<double>(be, inf[0])[2], (10 - 1) / std::sqrt(2.0), 1e-12);
    EXPECT_EQ(inf[1], nullptr);
  }
  EXPECT_TRUE(be.supports(OpId::batch_norm, DType::F32));
  EXPECT_FALSE(be.supports(OpId::layer_norm, DType::I64));
  EXPECT_THROW(be.layer_norm(upload<int64_t>(be, {1, 2}, DType::I64), nullptr, nullptr, 1, 1e-5), DTypeError);
}

TEST(OpenClRuntime, ArangeMatchesTheCpuPluginInEveryDtype) {
  REQUIRE_DEVICE();
  const BackendPtr cpu = plugins::create_backend("cpu");
  std::vector<DType> dtypes{DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32, DType::I8, DType::U8};
  if (ctx->profile().fp64) dtypes.push_back(DType::F64);
  const std::vector<std::array<int64_t, 3>> ranges{{0, 7, 1}, {3, 100, 7}, {0, 0, 1}};
  // Past f16's and bf16's exact integers (2049 and 257 round), for the float dtypes.
  const std::vector<std::array<int64_t, 3>> float_ranges{{2045, 2053, 1}, {-259, 300, 3}};
  for (DType d : dtypes) {
    std::vector<std::array<int64_t, 3>> rs = ranges;
    if (is_float(d)) rs.insert(rs.end(), float_ranges.begin(), float_ranges.end());
    for (const std::array<int64_t, 3>& r : rs) {
      const std::string what = std::string(dtype_name(d)) + " arange(" + std::to_string(r[0]) + ", " +
                               std::to_string(r[1]) + ", " + std::to_string(r[2]) + ")";
      const Prim got = be.arange(r[0], r[1], r[2], d);
      const Prim want = cpu->arange(r[0], r[1], r[2], d);
      EXPECT_TRUE(be.into_data(got) == cpu->into_data(want)) << what;
    }
  }
  // Downwards, and values past 2^31 in i64.
  EXPECT_EQ(download<int64_t>(be, be.arange(5, -4, -3, DType::I64)), (std::vector<int64_t>{5, 2, -1}));
  const int64_t big = int64_t{3} << 32;
  EXPECT_EQ(download<int64_t>(be, be.arange(big, big + 3, 1, DType::I64)),
            (std::vector<int64_t>{big, big + 1, big + 2}));
  EXPECT_THROW(be.arange(0, 300, 1, DType::U8), ValueError);
  EXPECT_THROW(be.arange(0, 3, 1, DType::Bool), DTypeError);
  EXPECT_THROW(cpu->arange(0, 3, 1, DType::Bool), DTypeError);
  EXPECT_TRUE(be.supports(OpId::arange, DType::I32));
  EXPECT_FALSE(be.supports(OpId::arange, DType::Bool));
}

// interpolate and its backward in every mode over 1 to 3 spatial dims, up- and downsampling, against the
// cpu plugin (the same tap tables; sums in the same order, so within a few ulps).
TEST(OpenClRuntime, InterpolateAndItsBackwardMatchTheCpuPlugin) {
  REQUIRE_DEVICE();
  const BackendPtr cpu = plugins::create_backend("cpu");
  std::vector<DType> dtypes{DType::F32};
  if (ctx->profile().fp64) dtypes.push_back(DType::F64);
  struct Case {
    Shape in;
    Shape out;
  };
  const Case cases[] = {{Shape{2, 3, 5}, Shape{9}},
                        {Shape{1, 2, 4, 5}, Shape{7, 3}},
                        {Shape{2, 1, 6, 3}, Shape{3, 8}},
                        {Shape{1, 2, 3, 4, 2}, Shape{5, 2, 3}}};
  for (DType d : dtypes)
    for (const Case& c : cases)
      for (InterpolateMode mode : {InterpolateMode::Nearest, InterpolateMode::Linear, InterpolateMode::Cubic})
        for (bool align : {false, true}) {
          if (mode == InterpolateMode::Nearest && align) continue;
          if (mode == InterpolateMode::Cubic && c.in.rank() == 5) continue;  // 1 or 2 spatial dims (PyTorch)
          InterpolateOptions o;
          o.mode = mode;
          o.align_corners = align;
          const std::string what = std::string(dtype_name(d)) + " " + c.in.to_string() + " -> " + c.out.to_string() +
                                   " mode " + std::to_string(static_cast<int>(mode)) + (align ? " aligned" : "");
          std::vector<double> xv(static_cast<size_t>(c.in.num_elements()));
          for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(0.7 * static_cast<double>(i)) * 4 - 1;
          const auto [x, xc] = on_both(be, *cpu, xv, c.in, d);
          const Prim y = be.interpolate(x, c.out, o), yc = cpu->interpolate(xc, c.out, o);
          expect_close(be, y, *cpu, yc, 1e-5, "interpolate " + what);
          std::vector<double> gv(static_cast<size_t>(yc->shape().num_elements()));
          for (size_t i = 0; i < gv.size(); ++i) gv[i] = std::cos(0.3 * static_cast<double>(i)) + 0.5;
          const auto [g, gc] = on_both(be, *cpu, gv, yc->shape(), d);
          expect_close(be, be.interpolate_backward(x, g, c.out, o), *cpu, cpu->interpolate_backward(xc, gc, c.out, o),
                       1e-5, "interpolate_backward " + what);
        }
  EXPECT_TRUE(be.supports(OpId::interpolate, DType::F32));
  EXPECT_FALSE(be.supports(OpId::interpolate_backward, DType::I32));
  const Prim xi = upload<int32_t>(be, {1, 2, 3, 4}, DType::I32, Shape{1, 1, 4});
  EXPECT_THROW(be.interpolate(xi, Shape{8}, InterpolateOptions{}), DTypeError);
  const Prim xf = upload<float>(be, {1, 2, 3, 4}, DType::F32, Shape{1, 1, 4});
  EXPECT_THROW(be.interpolate_backward(xf, upload<float>(be, {1, 2, 3}, DType::F32, Shape{1, 1, 3}), Shape{8},
                                       InterpolateOptions{}),
               ShapeError);
}

// The same bits as the vulkan plugin for the same seed: integer, float uniform and Bernoulli draws against
// the Philox stream keyed by the generator's first draw; the distributions' statistics (the cpu plugin
// draws another stream, so only those compare with it).
TEST(OpenClRuntime, RandomIsThePhiloxStreamOfTheSeedAndHasItsStatistics) {
  REQUIRE_DEVICE();
  const uint64_t key = std::mt19937_64(42)();
  const uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  be.seed(42);
  const std::vector<int64_t> ints =
      download<int64_t>(be, be.random(Shape{1000}, Distribution::uniform(0, 4294967296.0), DType::I64));
  for (uint32_t i = 0; i < ints.size(); ++i) ASSERT_EQ(ints[i], philox({i, 0, 0, 0}, k0, k1)[1]) << i;
  be.seed(42);
  const std::vector<float> u = download<float>(be, be.random(Shape{1000}, Distribution::uniform(-1, 3), DType::F32));
  for (uint32_t i = 0; i < u.size(); ++i) {
    const float unit = static_cast<float>(philox({i, 0, 0, 0}, k0, k1)[0] >> 8) * 0x1.0p-24f;
    ASSERT_EQ(u[i], -1.0f + 4.0f * unit) << i;
  }
  be.seed(42);
  const TensorData coins = be.into_data(be.random(Shape{1000}, Distribution::bernoulli(0.3), DType::Bool));
  const std::vector<bool> coin = coins.to_vec<bool>();
  const uint64_t threshold = static_cast<uint64_t>(std::ceil(0.3 * 0x1.0p53));
  for (uint32_t i = 0; i < coin.size(); ++i) {
    const std::array<uint32_t, 4> w = philox({i, 0, 0, 0}, k0, k1);
    ASSERT_EQ(coin[i], ((uint64_t{w[0]} << 21) | (w[1] >> 11)) < threshold) << i;
  }
  // The next call draws another key.
  EXPECT_FALSE(be.into_data(be.random(Shape{1000}, Distribution::bernoulli(0.3), DType::Bool)) == coins);

  const int64_t n = 100000;
  std::vector<DType> fl{DType::F32};
  if (ctx->profile().fp64) fl.push_back(DType::F64);
  auto moments = [&](const Prim& p) {
    const std::vector<double> v = be.into_data(p).to_f64_vec();
    double mean = 0, var = 0, lo = INFINITY, hi = -INFINITY;
    for (double x : v) {
      mean += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    mean /= static_cast<double>(v.size());
    for (double x : v) var += (x - mean) * (x - mean);
    return std::array<double, 4>{mean, std::sqrt(var / static_cast<double>(v.size())), lo, hi};
  };
  for (DType d : fl) {
    const std::string name(dtype_name(d));
    const auto un = moments(be.random(Shape{n}, Distribution::uniform(2, 3), d));
    EXPECT_GE(un[2], 2.0) << name;
    EXPECT_LT(un[3], 3.0) << name;
    EXPECT_NEAR(un[0], 2.5, 0.005) << name;
    const auto g = moments(be.random(Shape{n}, Distribution::normal(1, 2), d));
    EXPECT_NEAR(g[0], 1.0, 0.04) << name;
    EXPECT_NEAR(g[1], 2.0, 0.04) << name;
  }
  const std::vector<int32_t> iv = download<int32_t>(be, be.random(Shape{n}, Distribution::uniform(-3, 4), DType::I32));
  std::vector<int64_t> hist(7, 0);
  for (int32_t x : iv) {
    ASSERT_TRUE(x >= -3 && x < 4) << x;
    ++hist[static_cast<size_t>(x + 3)];
  }
  for (int64_t h : hist) EXPECT_NEAR(static_cast<double>(h) / n, 1.0 / 7, 0.006);
  // Normal on an integer dtype truncates toward zero: E[trunc(X)] = 100 - 0.5 for X ~ N(100, 10).
  EXPECT_NEAR(moments(be.random(Shape{n}, Distribution::normal(100, 10), DType::I64))[0], 99.5, 0.15);
  EXPECT_NEAR(moments(be.random(Shape{n}, Distribution{}, DType::Bool))[0], 0.5, 0.006);
  // The checks are Backend::random's, as the cpu plugin's.
  const BackendPtr cpu = plugins::create_backend("cpu");
  EXPECT_THROW(cpu->random(Shape{4}, Distribution{}, DType::I64), ValueError);
  EXPECT_THROW(be.random(Shape{4}, Distribution{}, DType::I64), ValueError);
  EXPECT_THROW(be.random(Shape{4}, Distribution::uniform(3, 2), DType::F32), ValueError);
  EXPECT_THROW(be.random(Shape{4}, Distribution::uniform(0, 300), DType::U8), ValueError);
  EXPECT_TRUE(be.supports(OpId::random, DType::F32));
}

// Attention against the cpu plugin: plain, causal, a broadcast mask with a fully masked row (NaN), a query
// read through a transposed view, an explicit scale, and heads wider than the registers (the query read
// from memory, value columns in two passes).
TEST(OpenClRuntime, AttentionMatchesTheCpuPlugin) {
  REQUIRE_DEVICE();
  const BackendPtr cpu = plugins::create_backend("cpu");
  auto fill = [](int64_t n, double phase) {
    std::vector<double> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(phase + 0.61 * static_cast<double>(i)) * 1.5;
    return v;
  };
  struct Case {
    int64_t b, h, lq, lk, e, ev;
    DType dtype;
  };
  std::vector<Case> cases{{2, 3, 5, 7, 4, 6, DType::F32}, {1, 2, 70, 40, 200, 130, DType::F32}};
  if (ctx->profile().fp64) cases.push_back({2, 3, 5, 7, 4, 6, DType::F64});
  for (const Case& c : cases) {
    const std::string name =
        std::string(dtype_name(c.dtype)) + " e " + std::to_string(c.e) + " ev " + std::to_string(c.ev);
    // The query as a [B, Lq, H, E] tensor seen as [B, H, Lq, E].
    const auto [qt, qtc] = on_both(be, *cpu, fill(c.b * c.lq * c.h * c.e, 0.1), Shape{c.b, c.lq, c.h, c.e}, c.dtype);
    const Prim q = be.permute(qt, {0, 2, 1, 3}), qc = cpu->permute(qtc, {0, 2, 1, 3});
    const auto [k, kc] = on_both(be, *cpu, fill(c.b * c.h * c.lk * c.e, 0.7), Shape{c.b, c.h, c.lk, c.e}, c.dtype);
    const auto [v, vc] = on_both(be, *cpu, fill(c.b * c.h * c.lk * c.ev, 1.3), Shape{c.b, c.h, c.lk, c.ev}, c.dtype);
    // f32: the online softmax rescales in another order than the cpu's, and a 200-term score at scale 0.3
    // carries about 1e-5 of rounding into exp.
    const double tol = c.dtype == DType::F64 ? 1e-12 : 1e-4;
    AttentionOptions o;
    expect_close(be, be.attention(q, k, v, nullptr, o), *cpu, cpu->attention(qc, kc, vc, nullptr, o), tol,
                 "plain " + name);
    o.causal = true;
    expect_close(be, be.attention(q, k, v, nullptr, o), *cpu, cpu->attention(qc, kc, vc, nullptr, o), tol,
                 "causal " + name);
    // A mask [1, H, Lq, Lk] broadcast over the batch: query 0 sees no key.
    std::vector<double> mv(static_cast<size_t>(c.h * c.lq * c.lk));
    for (size_t i = 0; i < mv.size(); ++i) {
      const int64_t row = static_cast<int64_t>(i) / c.lk % c.lq;
      mv[i] = row == 0 || (i * 7) % 5 == 0 ? 1 : 0;
    }
    const auto [m, mc] = on_both(be, *cpu, mv, Shape{1, c.h, c.lq, c.lk}, DType::Bool);
    o.causal = false;
    o.scale = 0.3;
    expect_close(be, be.attention(q, k, v, m, o), *cpu, cpu->attention(qc, kc, vc, mc, o), tol, "masked " + name);
  }
  EXPECT_TRUE(be.supports(OpId::attention, DType::F32));
  EXPECT_FALSE(be.supports(OpId::attention, DType::I32));
  const Prim xi = upload<int32_t>(be, std::vector<int32_t>(8, 1), DType::I32, Shape{1, 1, 2, 4});
  EXPECT_THROW(be.attention(xi, xi, xi, nullptr, AttentionOptions{}), DTypeError);
}

// f16 and bf16 are stored as 16 bits and computed as float: the loads (vload_half, bf16's shift) and the
// stores (vstore_half_rte, bf16's rounding to nearest even) give the cpu plugin's casts bit for bit.
TensorData bits16(const std::vector<uint16_t>& bits, DType d) {
  TensorData t = TensorData::uninitialized(Shape{static_cast<int64_t>(bits.size())}, d);
  std::memcpy(t.raw(), bits.data(), bits.size() * 2);
  return t;
}

std::vector<uint16_t> bits_of(const TensorData& t) {
  std::vector<uint16_t> v(static_cast<size_t>(t.num_elements()));
  std::memcpy(v.data(), t.raw(), v.size() * 2);
  return v;
}

void expect_same_bits(const TensorData& got, const TensorData& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.bytes().size(), want.bytes().size()) << what;
  const auto* g = static_cast<const uint8_t*>(got.raw());
  const auto* w = static_cast<const uint8_t*>(want.raw());
  const size_t size = dtype_size(got.dtype());
  int shown = 0;
  for (size_t i = 0; i < got.bytes().size() && shown < 8; i += size)
    if (std::memcmp(g + i, w + i, size) != 0) {
      uint64_t gb = 0, wb = 0;
      std::memcpy(&gb, g + i, size);
      std::memcpy(&wb, w + i, size);
      ADD_FAILURE() << what << ": element " << i / size << " is 0x" << std::hex << gb << ", the cpu plugin's 0x" << wb
                    << std::dec;
      ++shown;
    }
}

TEST(OpenClHalf, WideningEveryPatternMatchesTheCpuPlugin) {
  REQUIRE_DEVICE();
  const BackendPtr cpu = plugins::create_backend("cpu");
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  for (DType d : {DType::F16, DType::BF16}) {
    const TensorData t = bits16(all, d);
    // Loaded and stored back unchanged (a copy moves bits: signalling NaNs stay), widened as the cpu does.
    const Prim x = be.from_data(t);
    expect_same_bits(be.into_data(be.contiguous(be.cl(be.flip(x, {0}), "test"), "test")),
                     cpu->into_data(cpu->flip(cpu->from_data(t), {0})), std::string(dtype_name(d)) + " copy");
    expect_same_bits(be.into_data(be.cast(x, DType::F32)), cpu->into_data(cpu->cast(cpu->from_data(t), DType::F32)),
                     std::string(dtype_name(d)) + " to f32");
  }
}

TEST(OpenClHalf, NarrowingRoundsAsTheCpuPlugin) {
  REQUIRE_DEVICE();
  const BackendPtr cpu = plugins::create_backend("cpu");
  const float inf = std::numeric_limits<float>::infinity();
  // Ties to even and past them in both formats, f16's largest finite value and where it overflows, f16
  // subnormals (ties included), f32 subnormals (bf16 keeps them), bf16's overflow, NaN with its sign and
  // payload, signed zeros.
  std::vector<float> v{1.0f + 0x1p-11f,
                       1.0f + 3 * 0x1p-11f,
                       1.0f + 0x1p-11f + 0x1p-23f,
                       65504.0f,
                       65519.99f,
                       65520.0f,
                       -65520.0f,
                       inf,
                       -inf,
                       0x1p-24f,
                       0x1p-25f,
                       3 * 0x1p-26f,
                       0x1p-14f - 0x1p-25f,
                       0x1p-149f,
                       0x1p-130f,
                       1.0f + 0x1p-8f,
                       1.0f + 3 * 0x1p-8f,
                       1.0f + 0x1p-8f + 0x1p-23f,
                       0x1.fffffep127f,
                       0.0f,
                       -0.0f,
                       -1.5f,
                       3.14159f};
  for (uint32_t nan : {0x7fc00000u, 0xffc00001u, 0x7fa00000u, 0x7f800001u, 0xffe01234u}) {
    float f;
    std::memcpy(&f, &nan, 4);
    v.push_back(f);
  }
  // And 20,000 patterns of every exponent.
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    v.push_back(f);
  }
  const TensorData t = TensorData::from_vector(v, Shape{static_cast<int64_t>(v.size())});
  const Prim x = be.from_data(t), xc = cpu->from_data(t);
  for (DType d : {DType::F16, DType::BF16})
    expect_same_bits(be.into_data(be.cast(x, d)), cpu->into_data(cpu->cast(xc, d)),
                     std::string("f32 to ") + std::string(dtype_name(d)));
  const std::vector<uint16_t> h =
      bits_of(be.into_data(be.cast(upload<float>(be, {1.0f + 0x1p-11f, 65520.0f}, DType::F32), DType::F16)));
  EXPECT_EQ(h, (std::vector<uint16_t>{0x3c00, 0x7c00}));  // the tie to even, the overflow to inf
  // From f64 and from ints, through float as the cpu.
  std::vector<std::pair<Prim, Prim>> from;
  if (ctx->profile().fp64) {
    const TensorData dd = TensorData::from_vector(
        std::vector<double>{1.0 + 0x1p-11 + 0x1p-40, 65519.999, 1e300, -0x1p-25, 0.1}, Shape{5});
    from.emplace_back(be.from_data(dd), cpu->from_data(dd));
  }
  const TensorData di =
      TensorData::from_vector(std::vector<int64_t>{2049, 65519, 70000, -3, int64_t{1} << 40}, Shape{5});
  from.emplace_back(be.from_data(di), cpu->from_data(di));
  for (const auto& [g, c] : from)
    for (DType d : {DType::F16, DType::BF16})
      expect_same_bits(be.into_data(be.cast(g, d)), cpu->into_data(cpu->cast(c, d)),
                       std::string(dtype_name(be.into_data(g).dtype())) + " to " + std::string(dtype_name(d)));
}

// The ops compute in f32 and round once, as the cpu plugin: elementwise, a reduction (f32 partials), the
// plugin's GEMM kernel (K folded in f32), softmax; bf16 as f16 where the ops take it.
TEST(OpenClHalf, OpsComputeInF32AndRoundOnceAsTheCpuPlugin) {
  REQUIRE_DEVICE();
  const BackendPtr cpu = plugins::create_backend("cpu");
  std::vector<double> av, bv;
  for (int i = 0; i < 64 * 48; ++i) av.push_back(std::sin(i * 0.37) * 3), bv.push_back(std::cos(i * 0.11) * 2);
  for (DType d : {DType::F16, DType::BF16}) {
    const std::string n(dtype_name(d));
    const auto [a, ac] = on_both(be, *cpu, av, Shape{64, 48}, d);
    const auto [b, bc] = on_both(be, *cpu, bv, Shape{64, 48}, d);
    // Sums of 48 and 3,072 terms: the cpu's order differs, so within the f32 sum's error, then one rounding.
    const double ulp = d == DType::F16 ? 0x1p-10 : 0x1p-7;
    expect_close(be, be.sum_dim(a, 1), *cpu, cpu->sum_dim(ac, 1), ulp, n + " sum_dim");
    expect_close(be, be.mean(a), *cpu, cpu->mean(ac), ulp, n + " mean");
    expect_same(be, be.max_dim(a, 0), *cpu, cpu->max_dim(ac, 0), n + " max_dim");
    expect_close(be, be.softmax(a, 1), *cpu, cpu->softmax(ac, 1), ulp, n + " softmax");
    expect_same(be, be.argsort(a, 1, false, true), *cpu, cpu->argsort(ac, 1, false, true), n + " argsort");
    expect_close(be, be.cumsum(a, 1), *cpu, cpu->cumsum(ac, 1), ulp, n + " cumsum");
    expect_same(be, be.add(a, b), *cpu, cpu->add(ac, bc), n + " add");
    expect_same(be, be.mul_scalar(a, Scalar(0.3)), *cpu, cpu->mul_scalar(ac, Scalar(0.3)), n + " mul_scalar");
    expect_same(be, be.exp(a), *cpu, cpu->exp(ac), n + " exp");
    expect_same(be, be.greater(a, b), *cpu, cpu->greater(ac, bc), n + " greater");
    expect_close(be, be.matmul(a, be.permute(b, {1, 0})), *cpu, cpu->matmul(ac, cpu->permute(bc, {1, 0})), ulp,
                 n + " matmul");
    // Uniform draws rounded to the format stay below the bound (a draw that rounds up to it becomes the
    // largest value under it: about 8 of 4,096 in bf16).
    const TensorData r = be.into_data(be.random(Shape{4096}, Distribution::uniform(0.0, 1.0), d));
    EXPECT_EQ(r.dtype(), d);
    const std::vector<float> rv = r.convert(DType::F32).to_vec<float>();
    EXPECT_TRUE(std::all_of(rv.begin(), rv.end(), [](float f) { return f >= 0.0f && f < 1.0f; })) << n;
  }
}

// Long lines in both modes of reduce.kernel and scan.kernel (BURN_OPENCL_REDUCE): a work-group per chunk
// with its tree in local memory (the GPU path, forced here on PoCL) and a work-item per chunk in order;
// against the cpu plugin, exact where the order cannot matter (max, argmax with ties, ints).
TEST(OpenClRuntime, ReductionsAndScansInBothKernelModes) {
  REQUIRE_DEVICE();
  const BackendPtr cpu = plugins::create_backend("cpu");
  std::vector<double> fv, iv;
  for (int i = 0; i < 3 * 9000; ++i) {
    fv.push_back(std::sin(i * 0.37) * 3);
    iv.push_back(static_cast<double>((i * 7919) % 201 - 100));
  }
  fv[100] = fv[4321] = 5;  // a tie at the maximum: argmax gives the first index
  for (const char* mode : {"tree", "lines"}) {
    setenv("BURN_OPENCL_REDUCE", mode, 1);
    const std::string m(mode);
    const auto [a, ac] = on_both(be, *cpu, fv, Shape{3, 9000}, DType::F32);
    const auto [b, bc] = on_both(be, *cpu, iv, Shape{3, 9000}, DType::I32);
    expect_close(be, be.sum_dim(a, 1), *cpu, cpu->sum_dim(ac, 1), 1e-4, m + " sum_dim");
    expect_close(be, be.mean(a), *cpu, cpu->mean(ac), 1e-4, m + " mean");
    expect_same(be, be.max_dim(a, 1), *cpu, cpu->max_dim(ac, 1), m + " max_dim");
    expect_same(be, be.argmax(a, 1), *cpu, cpu->argmax(ac, 1), m + " argmax");
    expect_same(be, be.argmin(be.permute(a, {1, 0}), 0), *cpu, cpu->argmin(cpu->permute(ac, {1, 0}), 0), m + " argmin");
    expect_same(be, be.sum_dim(b, 1), *cpu, cpu->sum_dim(bc, 1), m + " i32 sum_dim");
    expect_same(be, be.min(b), *cpu, cpu->min(bc), m + " i32 min");
    expect_same(be, be.cumsum(b, 1), *cpu, cpu->cumsum(bc, 1), m + " i32 cumsum");
    expect_same(be, be.cummax(a, 1), *cpu, cpu->cummax(ac, 1), m + " cummax");
    expect_close(be, be.cumsum(a, 1), *cpu, cpu->cumsum(ac, 1), 1e-3, m + " cumsum");
  }
  unsetenv("BURN_OPENCL_REDUCE");
}

}  // namespace
}  // namespace burn::opencl
