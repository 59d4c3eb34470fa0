// The int8 GEMM paths for the suites that test them (cpu_int8_gemm_test.cpp, cpu_quant_test.cpp): run a body once
// per path this CPU has, and skip a suite when BURN_CPU_INT8 forces a path the CPU lacks.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "ops/gemm_int8.hpp"

namespace burn::cpu {

inline constexpr Int8Path kInt8Paths[] = {Int8Path::Scalar, Int8Path::Avx2, Int8Path::Vnni};

// The path BURN_CPU_INT8 forces when this CPU lacks it, else null.
inline const char* missing_int8_path() {
  const char* env = std::getenv("BURN_CPU_INT8");
  if (!env) return nullptr;
  for (Int8Path p : kInt8Paths)
    if (std::strcmp(env, int8_path_name(p)) == 0 && !int8_path_available(p)) return env;
  return nullptr;
}
#define SKIP_IF_INT8_PATH_MISSING() \
  if (const char* p = missing_int8_path()) GTEST_SKIP() << "BURN_CPU_INT8=" << p << " asks for kernels this CPU lacks"

// Runs body once per int8 path this CPU has, forced through the test hook; restores the one in use.
template <typename F>
inline void for_each_int8_path(F&& body) {
  const Int8Path before = int8_path();
  int ran = 0;
  for (Int8Path p : kInt8Paths) {
    if (!int8_path_available(p)) continue;
    set_int8_path(p);
    SCOPED_TRACE(int8_path_name(p));
    body(p);
    ++ran;
  }
  set_int8_path(before);
  EXPECT_GE(ran, 1);
}

}  // namespace burn::cpu
