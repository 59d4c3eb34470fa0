// Helpers shared by the cpu backend's numeric, float-math, activation and reduce kernels: numeric
// dtype checks and dispatch, and the (outer, n, inner) lane view of a dim. Builds on elementwise.hpp.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cpu_tensor.hpp"
#include "elementwise.hpp"

namespace burn::cpu {

// Elements per parallel task: big enough to hide the pool's hand-off, small enough to balance.
inline constexpr int64_t kGrain = 32768;

// f16/bf16 are storage-only here; every other non-computing dtype is the caller's mistake.
[[noreturn]] inline void throw_dtype(const char* op, const char* want, DType got) {
  if (got == DType::F16 || got == DType::BF16)
    throw Unsupported(op, "dtype " + std::string(dtype_name(got)) +
                              " is storage-only on the cpu backend; cast it to f32 first");
  throw DTypeError(op, std::string("expected a ") + want + " tensor, got " + std::string(dtype_name(got)));
}

inline void require_numeric(const char* op, DType d) {
  if (d != DType::F32 && d != DType::F64 && d != DType::I64 && d != DType::I32) throw_dtype(op, "numeric", d);
}
// exp for f32 written without branches or libm calls, so loops over it vectorise (about 1 ulp; NaN
// and +-inf behave as std::exp, results below FLT_MIN come out denormal or 0).
// c ? a : b through bit masks: GCC (with -ftrapping-math) will not if-convert a float ?: that feeds
// more float math, which keeps such loops scalar.
template <typename T>
[[gnu::always_inline]] inline T vselect(bool c, T a, T b) {
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  const I m = -static_cast<I>(c);
  return std::bit_cast<T>((std::bit_cast<I>(a) & m) | (std::bit_cast<I>(b) & ~m));
}

[[gnu::always_inline]] inline float vexp(float x) {
  x = vselect(x > 89.0f, 89.0f, x);
  x = vselect(x < -104.0f, -104.0f, x);
  constexpr float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer held in the low bits
  const float t = x * 1.44269504088896341f + kShift;
  const float nf = t - kShift;
  const int32_t ni = std::bit_cast<int32_t>(t) - std::bit_cast<int32_t>(kShift);
  float r = x - nf * 0.693359375f;
  r = r - nf * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  // 2^n in two factors so that n down to -150 (denormals) and up to 128 (overflow to inf) both work.
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  return y * std::bit_cast<float>((n1 + 127) << 23) * std::bit_cast<float>((n2 + 127) << 23);
}

// Runs kernel(in, out, count) over x's elements in parallel chunks. Writes into x's buffer when it
// is reusable, or into the contiguous copy made of a strided x; else into a new buffer.
template <typename T, typename K>
Prim map_flat(Prim x, const char* op, K kernel) {
  const Shape shape = x->shape();
  const DType dt = x->dtype();
  CpuPtr out = output_for(x, shape, dt);
  CpuPtr src = out;
  if (!src) {
    src = contiguous(as_cpu(x, op));
    if (src.get() != x.get()) out = src;
  }
  x.reset();
  if (!out) out = alloc(shape, dt);
  const T* in = src->template data<T>();
  T* o = out->template data<T>();
  parallel_for(shape.num_elements(), kGrain, [&](int64_t s, int64_t e) { kernel(in + s, o + s, e - s); });
  return out;
}

// Checks `dim` against the rank; IndexError naming the op otherwise.
inline void check_dim(const char* op, const Shape& s, size_t dim) {
  if (dim >= s.rank())
    throw IndexError(op, "dim " + std::to_string(dim) + " is out of range for a tensor of rank " +
                             std::to_string(s.rank()) + " " + s.to_string());
}

// A tensor seen along `dim` as outer x n x inner (row-major): lane (o, j) is x[o, :, j].
struct Lanes {
  int64_t outer = 1, n = 1, inner = 1;
};
inline Lanes lanes_of(const Shape& s, size_t dim) {
  Lanes l;
  for (size_t d = 0; d < s.rank(); ++d) {
    if (d < dim) l.outer *= s[d];
    else if (d == dim) l.n = s[d];
    else l.inner *= s[d];
  }
  return l;
}
inline Shape with_dim(const Shape& s, size_t dim, int64_t size) {
  Shape r = s;
  r[dim] = size;
  return r;
}

}  // namespace burn::cpu

// Binds `T` to the C++ type of a numeric dtype (f32, f64, i64, i32); anything else throws naming OP.
#define BURN_CPU_NUMERIC(DTYPE, OP, ...)                                       \
  [&] {                                                                        \
    switch (DTYPE) {                                                           \
      case ::burn::DType::F32: { using T = float; return __VA_ARGS__(); }      \
      case ::burn::DType::F64: { using T = double; return __VA_ARGS__(); }     \
      case ::burn::DType::I64: { using T = int64_t; return __VA_ARGS__(); }    \
      case ::burn::DType::I32: { using T = int32_t; return __VA_ARGS__(); }    \
      default: ::burn::cpu::throw_dtype(OP, "numeric", DTYPE);                 \
    }                                                                          \
  }()
