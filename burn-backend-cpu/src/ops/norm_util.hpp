// Private helpers of the cpu norm and attention kernels: row sums and maxima written so that GCC
// vectorises them (independent accumulator lanes, since it may not reassociate one float sum).
#pragma once

#include <cstdint>
#include <limits>

namespace burn::cpu::rowk {

inline constexpr int kLanes = 16;

// sum_{j < n} f(j), accumulated in kLanes independent lanes.
template <typename T, typename F>
[[gnu::always_inline]] inline T sum(int64_t n, F f) {
  T acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += f(j + l);
  T s = 0;
  for (; j < n; ++j) s += f(j);
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  return s;
}

// max_{j < n} x[j]; -inf for n = 0.
template <typename T>
[[gnu::always_inline]] inline T max(const T* x, int64_t n) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  T acc[kLanes];
  for (int l = 0; l < kLanes; ++l) acc[l] = kNegInf;
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] = acc[l] > x[j + l] ? acc[l] : x[j + l];
  T m = kNegInf;
  for (; j < n; ++j) m = m > x[j] ? m : x[j];
  for (int l = 0; l < kLanes; ++l) m = m > acc[l] ? m : acc[l];
  return m;
}

}  // namespace burn::cpu::rowk
