// The machine's int8 multiply-add limit on one thread: a register-only loop of vpdpbusd (u8 x s8, 4 products
// per 32-bit lane added into int32) on zmm and on ymm, with 12 independent accumulators (throughput) and with
// one (latency), no loads. The int8 GEMM's achieved rate is read against the zmm figure.
// Prints one JSON object: {"zmm_macs_per_s":..., "ymm_macs_per_s":..., "zmm_chain_ns":...}. Needs AVX512-VNNI.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

#define VNNI __attribute__((target("avx512f,avx512vl,avx512vnni"), noinline))

// 12 chains x `iters`, 64 multiply-adds each (zmm). The asm keeps every accumulator in its register.
VNNI int64_t zmm_throughput(int64_t iters) {
  __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-5);
  __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0, c9 = c0,
          c10 = c0, c11 = c0;
  for (int64_t i = 0; i < iters; ++i)
    asm volatile(
        "vpdpbusd %[b], %[a], %[c0]\n vpdpbusd %[b], %[a], %[c1]\n vpdpbusd %[b], %[a], %[c2]\n"
        "vpdpbusd %[b], %[a], %[c3]\n vpdpbusd %[b], %[a], %[c4]\n vpdpbusd %[b], %[a], %[c5]\n"
        "vpdpbusd %[b], %[a], %[c6]\n vpdpbusd %[b], %[a], %[c7]\n vpdpbusd %[b], %[a], %[c8]\n"
        "vpdpbusd %[b], %[a], %[c9]\n vpdpbusd %[b], %[a], %[c10]\n vpdpbusd %[b], %[a], %[c11]\n"
        : [c0] "+v"(c0), [c1] "+v"(c1), [c2] "+v"(c2), [c3] "+v"(c3), [c4] "+v"(c4), [c5] "+v"(c5), [c6] "+v"(c6),
          [c7] "+v"(c7), [c8] "+v"(c8), [c9] "+v"(c9), [c10] "+v"(c10), [c11] "+v"(c11)
        : [a] "v"(a), [b] "v"(b));
  const __m512i s = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(c0, c1), _mm512_add_epi32(c2, c3)),
                                     _mm512_add_epi32(_mm512_add_epi32(c4, c5), _mm512_add_epi32(c6, c7)));
  return _mm512_reduce_add_epi32(_mm512_add_epi32(s, _mm512_add_epi32(_mm512_add_epi32(c8, c9), c10))) +
         _mm512_reduce_add_epi32(c11);
}

VNNI int64_t ymm_throughput(int64_t iters) {
  __m256i a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(-5);
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0, c9 = c0,
          c10 = c0, c11 = c0;
  for (int64_t i = 0; i < iters; ++i)
    asm volatile(
        "vpdpbusd %[b], %[a], %[c0]\n vpdpbusd %[b], %[a], %[c1]\n vpdpbusd %[b], %[a], %[c2]\n"
        "vpdpbusd %[b], %[a], %[c3]\n vpdpbusd %[b], %[a], %[c4]\n vpdpbusd %[b], %[a], %[c5]\n"
        "vpdpbusd %[b], %[a], %[c6]\n vpdpbusd %[b], %[a], %[c7]\n vpdpbusd %[b], %[a], %[c8]\n"
        "vpdpbusd %[b], %[a], %[c9]\n vpdpbusd %[b], %[a], %[c10]\n vpdpbusd %[b], %[a], %[c11]\n"
        : [c0] "+v"(c0), [c1] "+v"(c1), [c2] "+v"(c2), [c3] "+v"(c3), [c4] "+v"(c4), [c5] "+v"(c5), [c6] "+v"(c6),
          [c7] "+v"(c7), [c8] "+v"(c8), [c9] "+v"(c9), [c10] "+v"(c10), [c11] "+v"(c11)
        : [a] "v"(a), [b] "v"(b));
  __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3)),
                               _mm256_add_epi32(_mm256_add_epi32(c4, c5), _mm256_add_epi32(c6, c7)));
  s = _mm256_add_epi32(s, _mm256_add_epi32(_mm256_add_epi32(c8, c9), _mm256_add_epi32(c10, c11)));
  alignas(32) int32_t v[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(v), s);
  int64_t t = 0;
  for (int32_t x : v) t += x;
  return t;
}

// One chain, 12 dependent vpdpbusd per iteration: its time per instruction is the latency.
VNNI int64_t zmm_chain(int64_t iters) {
  __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-5), c = _mm512_setzero_si512();
  for (int64_t i = 0; i < iters; ++i)
    asm volatile(
        "vpdpbusd %[b], %[a], %[c]\n vpdpbusd %[b], %[a], %[c]\n vpdpbusd %[b], %[a], %[c]\n"
        "vpdpbusd %[b], %[a], %[c]\n vpdpbusd %[b], %[a], %[c]\n vpdpbusd %[b], %[a], %[c]\n"
        "vpdpbusd %[b], %[a], %[c]\n vpdpbusd %[b], %[a], %[c]\n vpdpbusd %[b], %[a], %[c]\n"
        "vpdpbusd %[b], %[a], %[c]\n vpdpbusd %[b], %[a], %[c]\n vpdpbusd %[b], %[a], %[c]\n"
        : [c] "+v"(c)
        : [a] "v"(a), [b] "v"(b));
  return _mm512_reduce_add_epi32(c);
}

// The best of `reps` timings of fn(iters), in seconds.
template <typename F>
double best_seconds(F fn, int64_t iters, int reps, int64_t& sink) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    sink += fn(iters);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512vnni") || !__builtin_cpu_supports("avx512vl")) {
    std::printf("{\"error\": \"this CPU lacks AVX512-VNNI\"}\n");
    return 1;
  }
  const int64_t iters = argc > 1 ? std::atoll(argv[1]) : 4000000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  int64_t sink = 0;
  const double instr = 12.0 * static_cast<double>(iters);
  const double zmm = best_seconds(zmm_throughput, iters, reps, sink);
  const double ymm = best_seconds(ymm_throughput, iters, reps, sink);
  const double chain = best_seconds(zmm_chain, iters / 4, reps, sink);
  std::printf("{\"zmm_macs_per_s\": %.4g, \"ymm_macs_per_s\": %.4g, \"zmm_chain_ns\": %.4g, \"check\": %lld}\n",
              instr * 64 / zmm, instr * 32 / ymm, chain / (instr / 4) * 1e9, static_cast<long long>(sink));
}
