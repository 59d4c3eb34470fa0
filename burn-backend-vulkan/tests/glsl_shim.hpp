// The GLSL subset of the kernel dialect's math (kernels/math.glsl, kernels/math_f64.glsl) as C++, so that
// the same source compiles on the host and its accuracy is measured without a device (math_test.cpp).
// The math files are included inside namespace burn::vulkan::glsl after this header; everything they
// use from GLSL is defined here with GLSL's meaning (float and double arithmetic is IEEE, as on a device
// that rounds correctly; `precise` is a no-op because the host compiler neither contracts nor
// reassociates in ISO C++ mode).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace burn::vulkan::glsl {

using uint = uint32_t;
#define precise
#define ADDR uint64_t
#define FAULT_DIV_ZERO 2u

// The integer ops report division by zero as a device fault; the host build records the last one.
struct HostFault {
  uint code = 0;
  int64_t value = 0;
};
inline HostFault last_fault;
inline void raise_fault(ADDR, uint, uint code, int64_t value, int64_t) { last_fault = {code, value}; }

inline float abs(float x) { return std::fabs(x); }
inline double abs(double x) { return std::fabs(x); }
inline int abs(int x) { return x < 0 ? -x : x; }
inline int64_t abs(int64_t x) { return x < 0 ? -x : x; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline float floor(float x) { return std::floor(x); }
inline double floor(double x) { return std::floor(x); }
inline float trunc(float x) { return std::trunc(x); }
inline double trunc(double x) { return std::trunc(x); }
// GLSL roundEven: halfway cases to even, as nearbyint in the default rounding mode.
inline float roundEven(float x) { return std::nearbyint(x); }
inline double roundEven(double x) { return std::nearbyint(x); }
inline float sqrt(float x) { return std::sqrt(x); }
inline double sqrt(double x) { return std::sqrt(x); }
inline bool isnan(float x) { return std::isnan(x); }
inline bool isnan(double x) { return std::isnan(x); }
inline bool isinf(float x) { return std::isinf(x); }
inline bool isinf(double x) { return std::isinf(x); }

inline uint floatBitsToUint(float x) { return std::bit_cast<uint>(x); }
inline int floatBitsToInt(float x) { return std::bit_cast<int>(x); }
inline float uintBitsToFloat(uint x) { return std::bit_cast<float>(x); }
inline float intBitsToFloat(int x) { return std::bit_cast<float>(x); }
inline uint64_t doubleBitsToUint64(double x) { return std::bit_cast<uint64_t>(x); }
inline int64_t doubleBitsToInt64(double x) { return std::bit_cast<int64_t>(x); }
inline double uint64BitsToDouble(uint64_t x) { return std::bit_cast<double>(x); }
inline double int64BitsToDouble(int64_t x) { return std::bit_cast<double>(x); }

}  // namespace burn::vulkan::glsl
