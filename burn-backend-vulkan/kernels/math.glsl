// The dialect's math, after the prelude: b_* functions with one spelling for every dtype, matching the
// cpu backend's semantics (burn-backend-cpu/src/ops/elementwise_fns.hpp): PyTorch's remainder and pow,
// NaN-propagating max/min, integer division that reports division by zero as a fault.

// ---- integers (int and int64_t): truncating division; b == -1 negates so that MIN / -1 wraps ----
#define BURN_INT_OPS(T)                                                                      \
  T b_idiv(T a, T b, ADDR faults, uint tag) {                                                \
    if (b == T(0)) {                                                                         \
      raise_fault(faults, tag, FAULT_DIV_ZERO, int64_t(a), 0);                               \
      return T(0);                                                                           \
    }                                                                                        \
    return b == T(-1) ? T(0) - a : a / b;                                                    \
  }                                                                                          \
  T b_iremainder(T a, T b, ADDR faults, uint tag) {                                          \
    if (b == T(0)) {                                                                         \
      raise_fault(faults, tag, FAULT_DIV_ZERO, int64_t(a), 0);                               \
      return T(0);                                                                           \
    }                                                                                        \
    if (b == T(-1)) return T(0);                                                             \
    const T r = a % b;                                                                       \
    return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? r + b : r;                           \
  }                                                                                          \
  T b_ifmod(T a, T b, ADDR faults, uint tag) {                                               \
    if (b == T(0)) {                                                                         \
      raise_fault(faults, tag, FAULT_DIV_ZERO, int64_t(a), 0);                               \
      return T(0);                                                                           \
    }                                                                                        \
    return b == T(-1) ? T(0) : a % b;                                                        \
  }                                                                                          \
  T b_pow(T a, T b) {                                                                        \
    if (b < T(0)) return a == T(1) ? T(1) : a == T(-1) ? (((T(0) - (b + T(1))) % T(2)) == T(0) ? T(-1) : T(1)) : T(0); \
    T r = T(1), base = a;                                                                    \
    for (T e = b; e != T(0); e = e >> 1) {                                                   \
      if ((e & T(1)) != T(0)) r *= base;                                                     \
      base *= base;                                                                          \
    }                                                                                        \
    return r;                                                                                \
  }                                                                                          \
  T b_max(T a, T b) { return a > b ? a : b; }                                                \
  T b_min(T a, T b) { return a < b ? a : b; }                                                \
  T b_sign(T a) { return a > T(0) ? T(1) : a < T(0) ? T(-1) : T(0); }                        \
  T b_clamp(T a, T lo, T hi) {                                                               \
    const T v = a < lo ? lo : a;                                                             \
    return v > hi ? hi : v;                                                                  \
  }
BURN_INT_OPS(int)
BURN_INT_OPS(int64_t)

// ---- floats: shared by float and double where GLSL has the builtin for both ----
#define BURN_FLOAT_OPS(T)                                                                    \
  T b_max(T a, T b) { return (a > b || isnan(a)) ? a : b; }                                  \
  T b_min(T a, T b) { return (a < b || isnan(a)) ? a : b; }                                  \
  T b_sign(T a) { return a > T(0) ? T(1) : a < T(0) ? T(-1) : a; }                           \
  T b_clamp(T a, T lo, T hi) {                                                               \
    const T v = a < lo ? lo : a;                                                             \
    return v > hi ? hi : v;                                                                  \
  }
BURN_FLOAT_OPS(float)
#ifdef HAS_F64
BURN_FLOAT_OPS(double)
#endif

// ---- f32 transcendental functions (f64: math_f64.glsl) ----
#define F32_NAN uintBitsToFloat(0x7fc00000u)
#define F32_INF uintBitsToFloat(0x7f800000u)
float b_exp(float x) { return exp(x); }
float b_log(float x) { return log(x); }
float b_log1p(float x) {
  // log(1 + x) loses x's low bits when |x| is small; this is exact in the rounding of 1 + x.
  const float u = 1.0 + x;
  return u == 1.0 ? x : log(u) * (x / (u - 1.0));
}
float b_sin(float x) { return sin(x); }
float b_cos(float x) { return cos(x); }
float b_tan(float x) { return tan(x); }
float b_sinh(float x) { return sinh(x); }
float b_cosh(float x) { return cosh(x); }
float b_tanh(float x) { return tanh(x); }
float b_asin(float x) { return asin(x); }
float b_acos(float x) { return acos(x); }
float b_atan(float x) { return atan(x); }
float b_atan2(float y, float x) { return atan(y, x); }
float b_erf(float x) {
  // Near 0 a rational fit of erf(x)/x - 1 in x^2 (the classic fdlibm form); beyond, the Chebyshev fit of
  // erfc from Numerical Recipes (relative error below 1.2e-7).
  const float ax = abs(x);
  if (ax < 0.84375) {
    const float z = x * x;
    const float r = 0.128379167 + z * (-0.325042108 + z * (-0.0284817498 + z * (-0.00577027029 + z * -2.37630166e-05)));
    const float s = 1.0 + z * (0.397917222 + z * (0.0650222525 + z * (0.00508130635 + z * (0.000132494738 + z * -3.96022827e-06))));
    return x + x * (r / s);
  }
  if (ax >= 6.0) return sign(x);
  const float t = 1.0 / (1.0 + 0.5 * ax);
  const float y = t * exp(-ax * ax - 1.26551223 +
                          t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 +
                          t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x < 0.0 ? y - 1.0 : 1.0 - y;
}
float b_fmod(float a, float b) {
  // C's fmod, exact: the remainder of an f32 division fits the f32 significand, computed by scaled
  // subtraction on the exponent difference.
  if (isnan(a) || isnan(b) || isinf(a) || b == 0.0) return F32_NAN;
  if (isinf(b) || abs(a) < abs(b)) return a;
  float r = abs(a);
  const float m = abs(b);
  int ea, em;
  frexp(r, ea);
  frexp(m, em);
  for (int e = ea - em; e >= 0; --e) {
    const float s = ldexp(m, e);
    if (r >= s) r -= s;
  }
  return a < 0.0 ? -r : r;
}
float b_remainder(float a, float b) {
  const float r = b_fmod(a, b);
  return (r != 0.0 && ((r < 0.0) != (b < 0.0))) ? r + b : r;
}
float b_pow(float a, float b) {
  if (b == 0.0 || a == 1.0) return 1.0;  // even for a NaN exponent or base, as C's pow
  if (isnan(a) || isnan(b)) return a + b;
  const bool odd_int = b == trunc(b) && abs(mod(b, 2.0)) == 1.0;
  if (a == 0.0) return b < 0.0 ? (odd_int && (floatBitsToUint(a) & 0x80000000u) != 0u ? -F32_INF : F32_INF) : (odd_int ? a : 0.0);
  if (a < 0.0) {
    if (b != trunc(b)) return F32_NAN;  // a negative base to a fractional power
    const float p = pow(-a, b);
    return odd_int ? -p : p;
  }
  return pow(a, b);
}

// ---- helpers of the activations (exprs.cpp), for float and, when the f64 math is there, double ----
float b_expm1(float x) {
  // exp(x) - 1 cancels for small |x|; u - 1 is exact here and log(u) corrects exp's rounding (Kahan).
  const float u = exp(x);
  if (u == 1.0 || isinf(u)) return u == 1.0 ? x : u;
  const float um1 = u - 1.0;
  if (um1 == -1.0) return -1.0;
  return um1 * x / log(u);
}
// The constants sqrt(2/pi) and 0.044715 come as literals of T's precision (GLSL cannot paste a suffix).
#define BURN_ACTIVATION_OPS(T, SQRT_2_OVER_PI, K)                                            \
  T b_gelu_tanh(T x) {                                                                       \
    const T u = SQRT_2_OVER_PI * (x + K * x * x * x);                                        \
    return x / (T(1) + b_exp(T(-2) * u));                                                    \
  }                                                                                          \
  T b_mish(T x) {                                                                            \
    const T e = b_exp(x > T(20) ? T(20) : x);                                                \
    const T n = e * (e + T(2));                                                              \
    return x > T(20) ? x : x * n / (n + T(2));                                               \
  }
BURN_ACTIVATION_OPS(float, 0.79788456080286535588, 0.044715)

// ---- workgroup reductions, for kernels that define WG_REDUCE_T: one value per invocation of a 1-D
// workgroup (WG_X a power of two) combined by a tree in shared memory, always in the same order, so a
// result does not depend on timing. Called in uniform control flow (by every invocation of the workgroup).
#ifdef WG_REDUCE_T
SHARED WG_REDUCE_T wg_red[WG_X];
#define BURN_WG_REDUCE(NAME, COMBINE)                             \
  WG_REDUCE_T NAME(WG_REDUCE_T v) {                               \
    const uint t = gl_LocalInvocationID.x;                        \
    wg_red[t] = v;                                                \
    BARRIER();                                                    \
    for (uint s = WG_X / 2; s > 0; s >>= 1) {                     \
      if (t < s) wg_red[t] = COMBINE(wg_red[t], wg_red[t + s]);   \
      BARRIER();                                                  \
    }                                                             \
    const WG_REDUCE_T r = wg_red[0];                              \
    BARRIER();                                                    \
    return r;                                                     \
  }
WG_REDUCE_T b_wg_add(WG_REDUCE_T a, WG_REDUCE_T b) { return a + b; }
BURN_WG_REDUCE(wg_sum, b_wg_add)
BURN_WG_REDUCE(wg_max, b_max)  // NaN-propagating
#endif
