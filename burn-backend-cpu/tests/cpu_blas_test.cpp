// The cpu plugin's OpenBLAS, opened at run time: which kernels it chose and who chose them, and what a
// library that cannot be opened, or is no CBLAS, gives (ctest also runs these under OPENBLAS_CORETYPE and
// BURN_CPU_BLAS: burn-backend-cpu/tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <strings.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "ops/blas.hpp"

namespace burn::cpu {
namespace {

// Whether `text` contains `part`, with both in the failure message.
::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' lacks '" << part << "'";
}

// The core burn asks for on an AMD CPU with AVX-512, written out again from the rule in docs/decisions.md.
std::string expected_amd_core() {
  __builtin_cpu_init();
  if (!(__builtin_cpu_is("amd") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")))
    return "";
  return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
}

// Whether BURN_CPU_BLAS names a library this process cannot use (the ctest run cpu.blas_missing_library).
bool blas_made_unavailable() {
  const char* env = std::getenv("BURN_CPU_BLAS");
  return env && *env && !blas_info().error.empty();
}

TEST(CpuBlas, ReportsTheCoreOpenBlasChoseAndWhoChoseIt) {
  if (blas_made_unavailable()) GTEST_SKIP() << "BURN_CPU_BLAS names a library that cannot be used";
  const char* user_before = std::getenv("OPENBLAS_CORETYPE");
  const std::string user = user_before ? user_before : "";
  const BlasInfo& info = blas_info();
  ASSERT_TRUE(info.error.empty()) << info.error;
  ASSERT_FALSE(info.core.empty()) << describe(info);  // the build links against OpenBLAS
  if (!user.empty()) {
    EXPECT_EQ(info.chosen_by, "from OPENBLAS_CORETYPE");
    EXPECT_EQ(strcasecmp(info.core.c_str(), user.c_str()), 0) << info.core << " vs OPENBLAS_CORETYPE=" << user;
  } else if (const std::string core = expected_amd_core(); !core.empty()) {
    EXPECT_EQ(info.core, core);
    EXPECT_EQ(info.chosen_by, "set by burn: AMD with AVX-512");
  } else {
    EXPECT_EQ(info.chosen_by, "OpenBLAS's own detection");
  }
  // The variable burn set for OpenBLAS's constructor is gone again: the environment is the user's.
  const char* user_after = std::getenv("OPENBLAS_CORETYPE");
  EXPECT_EQ(user_after ? std::string(user_after) : std::string(), user);
  EXPECT_EQ(describe(info), "OpenBLAS core: " + info.core + " (" + info.chosen_by + "), " + info.library);
}

TEST(CpuBlas, TheLibraryInUseHasTheGemmFunctions) {
  if (blas_made_unavailable()) GTEST_SKIP() << "BURN_CPU_BLAS names a library that cannot be used";
  EXPECT_NO_THROW(check_blas_library(blas_info().library));
}

TEST(CpuBlas, ALibraryThatCannotBeOpenedIsAPluginErrorNamingIt) {
  try {
    check_blas_library("libburn-no-such-blas.so.0");
    FAIL() << "no error";
  } catch (const PluginError& e) {
    EXPECT_TRUE(contains(e.what(), "libburn-no-such-blas.so.0"));
  }
}

TEST(CpuBlas, ALibraryWithoutCblasIsAPluginErrorNamingTheFunction) {
  try {
    check_blas_library("libm.so.6");
    FAIL() << "no error";
  } catch (const PluginError& e) {
    EXPECT_TRUE(contains(e.what(), "libm.so.6 has no cblas_sgemm"));
  }
}

// Run by ctest with BURN_CPU_BLAS=libburn-no-such-blas.so.0 (cpu.blas_missing_library): the GEMM, not the
// plugin's load, fails, with the library's name; the pool's start (which sets OpenBLAS's threads) does not.
TEST(CpuBlas, GemmWithoutItsLibraryIsAPluginErrorNamingIt) {
  if (!blas_made_unavailable()) GTEST_SKIP() << "only under BURN_CPU_BLAS naming a missing library";
  blas_single_threaded();
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(4, 0.0f);
  try {
    blas_gemm(false, false, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c.data(), 2);
    FAIL() << "no error";
  } catch (const PluginError& e) {
    EXPECT_TRUE(contains(e.what(), std::getenv("BURN_CPU_BLAS")));
    EXPECT_TRUE(contains(e.what(), "cannot be opened"));
  }
}

}  // namespace
}  // namespace burn::cpu
