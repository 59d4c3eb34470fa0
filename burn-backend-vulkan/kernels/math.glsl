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

// NaN tests for kernels written once over every dtype (reductions, sort): ints and bools are never NaN.
bool b_isnan(int x) { return false; }
bool b_isnan(int64_t x) { return false; }
bool b_isnan(uint x) { return false; }
bool b_isnan(float x) { return isnan(x); }
#ifdef HAS_F64
bool b_isnan(double x) { return isnan(x); }
#endif

// A float to an integer type as the cpu backend (convert.hpp's to_integer): truncates toward zero, NaN gives
// 0, values beyond the i64 range saturate (GLSL leaves those conversions undefined: a driver may give
// anything, and gives different things in different kernels). Narrower integer types take the low bits.
// (The bounds are 2^63 exactly in float and double.)
#define BURN_TO_INT(T)                                                                       \
  int64_t b_to_int(T x) {                                                                    \
    if (isnan(x)) return int64_t(0);                                                         \
    if (x >= T(9.223372036854775807e18)) return int64_t(~(uint64_t(1u) << 63u));             \
    if (x <= T(-9.223372036854775808e18)) return int64_t(uint64_t(1u) << 63u);               \
    return int64_t(x);                                                                       \
  }
BURN_TO_INT(float)
#ifdef HAS_F64
BURN_TO_INT(double)
#endif

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
// Computed in f32 with their own argument reductions and polynomials (tools/fit_math.py), not with
// GLSL's builtins, whose precision Vulkan leaves loose (sin and cos: 2^-11 absolute; exp, log, pow:
// several ulp growing with the argument), nor through double, which many GPUs lack or run slowly. Within
// about an ulp of the correctly rounded result (README: the measured maximum per function). The text
// also compiles as C++ (tests/glsl_shim.hpp): scalars, structs and that shim's builtins only; float
// literals carry the f suffix.
#define F32_NAN uintBitsToFloat(0x7fc00000u)
#define F32_INF uintBitsToFloat(0x7f800000u)

// 2/pi in 32-bit limbs after the binary point (0.a2f9836e 4e441529 ...), for Payne-Hanek reduction of
// large arguments: 7 limbs serve every float, 37 every double.
const uint BM_TWO_OVER_PI[40] = {
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u,
    0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u,
    0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu,
    0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu,
    0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du};

// ---- error-free transformations in f32: a float-float hi + lo carries about 48 bits ----
// `precise`: Vulkan lets fma round twice and an optimiser simplify (a + b) - a to b.
struct bm_ff {
  float hi;
  float lo;
};

bm_ff bm_two_sum(float a, float b) {
  precise float s = a + b;
  precise float bb = s - a;
  precise float e = (a - (s - bb)) + (b - bb);
  return bm_ff(s, e);
}

bm_ff bm_fast_two_sum(float a, float b) {  // |a| >= |b| or a == 0
  precise float s = a + b;
  precise float e = b - (s - a);
  return bm_ff(s, e);
}

bm_ff bm_split(float a) {  // 12-bit halves; |a| < 2^114
  precise float c = 4097.0f * a;
  precise float hi = c - (c - a);
  precise float lo = a - hi;
  return bm_ff(hi, lo);
}

bm_ff bm_two_prod(float a, float b) {
  const bm_ff x = bm_split(a);
  const bm_ff y = bm_split(b);
  precise float p = a * b;
  precise float e = ((x.hi * y.hi - p) + x.hi * y.lo + x.lo * y.hi) + x.lo * y.lo;
  return bm_ff(p, e);
}

// 2^k for -126 <= k <= 127.
float bm_pow2f(int k) { return uintBitsToFloat(uint(k + 127) << 23); }

// x * 2^k with one rounding, for x in [2^-30, 2^30] and -180 <= k <= 254.
float bm_ldexp(float x, int k) {
  if (k > 127) return (x * bm_pow2f(127)) * bm_pow2f(min(k - 127, 127));
  if (k < -126) return (x * bm_pow2f(max(k + 32, -126))) * bm_pow2f(-32);
  return x * bm_pow2f(k);
}

// ---- exp, expm1 ----
// ln2 with a 16-bit head: k * BM_LN2_HI_F is exact for |k| < 2^8.
const float BM_LN2_HI_F = 0.693145752f;
const float BM_LN2_LO_F = 1.42860677e-06f;
const float BM_INV_LN2_F = 1.44269502f;

// (e^r - 1 - r) / r^2 on |r| <= ln2/2.
float bm_exp_q(float r) {
  return 0.5f + r * (0.166666672f + r * (0.0416664593f + r * (0.00833331048f + r * (0.00139341597f + r * 0.000198915572f))));
}

// e^(hi + lo), |lo| below an ulp of hi, hi in [-104, 89] (see bm_exp_dd in math_f64.glsl).
float bm_exp_ff(float hi, float lo) {
  const float k = roundEven(hi * BM_INV_LN2_F);
  precise float rh = hi - k * BM_LN2_HI_F;
  precise float rl = lo - k * BM_LN2_LO_F;
  precise float r = rh + rl;
  precise float rlo = (rh - r) + rl;
  const float q = r * r * bm_exp_q(r);
  const bm_ff s = bm_two_sum(1.0f, r);
  return bm_ldexp(s.hi + (s.lo + (q + rlo * (1.0f + r))), int(k));
}

float b_exp(float x) {
  if (isnan(x)) return x;
  if (x > 89.0f) return F32_INF;
  if (x < -104.0f) return 0.0f;
  return bm_exp_ff(x, 0.0f);
}

float b_expm1(float x) {
  if (isnan(x)) return x;
  if (x > 89.0f) return F32_INF;
  if (x < -17.5f) return -1.0f;
  if (abs(x) < 2.98023224e-08f) return x;  // 2^-25
  const float k = roundEven(x * BM_INV_LN2_F);
  precise float rh = x - k * BM_LN2_HI_F;
  const float rl = -k * BM_LN2_LO_F;
  precise float r = rh + rl;
  precise float rlo = (rh - r) + rl;
  const float q = r * r * bm_exp_q(r);
  const float c = rlo * (1.0f + (r + q));
  const int ki = int(k);
  if (ki >= -1 && ki <= 24) {
    const bm_ff s = bm_two_sum(1.0f - bm_pow2f(-ki), r);
    return (s.hi + (s.lo + (q + c))) * bm_pow2f(ki);
  }
  if (ki > 24) {
    const bm_ff s = bm_two_sum(1.0f, r);
    return bm_ldexp(s.hi + (s.lo + ((q + c) - bm_ldexp(1.0f, -ki))), ki);
  }
  return bm_ldexp(1.0f + (r + (q + c)), ki) - 1.0f;
}

// ---- log, log1p ----
float bm_log_l(float z) { return 0.666666865f + z * (0.399887592f + z * 0.295809865f); }

// e ln2 + log1p(f) + c, |f| <= sqrt(2) - 1 (see math_f64.glsl).
float bm_log_reduced(float e, float f, float c) {
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float hfsq = 0.5f * f * f;
  const float r = z * bm_log_l(z);
  precise float v = e * BM_LN2_HI_F + (f - (hfsq - (s * (hfsq + r) + (e * BM_LN2_LO_F + c))));
  return v;
}

struct bm_frexpf {
  float m;
  int e;
};
bm_frexpf bm_split_exponent(float x) {  // x == 2^e m, m in [sqrt(1/2), sqrt(2)), finite x > 0
  uint bits = floatBitsToUint(x);
  int e = -127;
  if (bits < 0x00800000u) {
    bits = floatBitsToUint(x * 4294967296.0f);  // 2^32
    e -= 32;
  }
  e += int(bits >> 23);
  bits = (bits & 0x007fffffu) | 0x3f800000u;
  if (bits > 0x3fb504f3u) {
    bits -= 0x00800000u;
    e += 1;
  }
  return bm_frexpf(uintBitsToFloat(bits), e);
}

float b_log(float x) {
  if (isnan(x) || x == F32_INF) return x;
  if (x <= 0.0f) return x == 0.0f ? -F32_INF : F32_NAN;
  const bm_frexpf d = bm_split_exponent(x);
  return bm_log_reduced(float(d.e), d.m - 1.0f, 0.0f);
}

float b_log1p(float x) {
  if (isnan(x) || x == F32_INF) return x;
  if (x <= -1.0f) return x == -1.0f ? -F32_INF : F32_NAN;
  if (abs(x) < 2.98023224e-08f) return x;
  if (x > -0.292893231f && x < 0.414213538f) return bm_log_reduced(0.0f, x, 0.0f);
  precise float u = 1.0f + x;  // precise: an optimiser would fold (1 + x) - 1 to x and lose the correction
  precise float c = u >= 2.0f ? (1.0f - (u - x)) / u : (x - (u - 1.0f)) / u;
  const bm_frexpf d = bm_split_exponent(u);
  return bm_log_reduced(float(d.e), d.m - 1.0f, c);
}

// ---- sin, cos, tan ----
// pi/2 in four parts, the first three of 17 bits (k * part exact for |k| <= 128): Cody-Waite.
const float BM_PIO2_1F = 1.57080078f;
const float BM_PIO2_2F = -4.45445767e-06f;
const float BM_PIO2_3F = 2.56333843e-12f;
const float BM_PIO2_4F = 5.72118892e-18f;
const float BM_PIO2_HI_F = 1.57079637f;
const float BM_PIO2_LO_F = -4.37113883e-08f;

struct bm_reducedf {
  float hi;
  float lo;
  int q;
};

// Payne-Hanek for |x| >= 200 (see math_f64.glsl): x = m 2^ex with a 24-bit m; 160 bits of 2/pi from
// limb j0 give the quadrant and 96 bits of fraction (the closest float to a multiple of pi/2 leaves
// about 2^-30 of it).
bm_reducedf bm_reduce_largef(float x) {
  const uint bits = floatBitsToUint(x);
  const int ex = int((bits >> 23) & 0xffu) - 150;
  const uint64_t m = uint64_t((bits & 0x007fffffu) | 0x00800000u);
  const int j0 = max(0, (ex - 2) / 32);
  uint acc[6];
  uint64_t carry = 0ul;
  for (int p = 0; p < 5; ++p) {
    const uint64_t t = uint64_t(BM_TWO_OVER_PI[j0 + 4 - p]) * m + carry;
    acc[p] = uint(t);
    carry = t >> 32;
  }
  acc[5] = uint(carry);
  const int point = 32 * (j0 + 5) - ex;  // 127 <= point <= 176
  uint w[3];
  for (int i = 0; i < 3; ++i) {
    const int pos = point - 32 * (i + 1);
    const int li = pos >> 5;
    const int sh = pos & 31;
    const uint lo = acc[li];
    const uint hi = li + 1 < 6 ? acc[li + 1] : 0u;
    w[i] = sh == 0 ? lo : (lo >> sh) | (hi << (32 - sh));
  }
  const int li = point >> 5;
  const int sh = point & 31;
  uint qbits = acc[li] >> sh;
  if (sh > 30 && li + 1 < 6) qbits |= acc[li + 1] << (32 - sh);
  int q = int(qbits & 3u);
  const bool negative = (w[0] >> 31) != 0u;
  if (negative) {  // fraction - 1: negate the 96-bit fraction
    w[2] = ~w[2] + 1u;
    const uint c1 = w[2] == 0u ? 1u : 0u;
    w[1] = ~w[1] + c1;
    const uint c0 = (c1 == 1u && w[1] == 0u) ? 1u : 0u;
    w[0] = ~w[0] + c0;
    q += 1;
  }
  const float f1 = float(w[0] >> 8) * bm_pow2f(-24);
  const float f2 = float(((w[0] & 0xffu) << 16) | (w[1] >> 16)) * bm_pow2f(-48);
  const float f3 = float(((w[1] & 0xffffu) << 8) | (w[2] >> 24)) * bm_pow2f(-72);
  const float f4 = float(w[2] & 0xffffffu) * bm_pow2f(-96);
  const bm_ff s1 = bm_two_sum(f1, f2);
  const bm_ff s2 = bm_two_sum(s1.hi, f3);
  const bm_ff f = bm_fast_two_sum(s2.hi, s2.lo + (s1.lo + f4));
  const bm_ff p = bm_two_prod(f.hi, BM_PIO2_HI_F);
  const bm_ff r = bm_fast_two_sum(p.hi, p.lo + (f.hi * BM_PIO2_LO_F + f.lo * BM_PIO2_HI_F));
  float rh = negative ? -r.hi : r.hi;
  float rl = negative ? -r.lo : r.lo;
  if (x < 0.0f) {
    rh = -rh;
    rl = -rl;
    q = -q;
  }
  return bm_reducedf(rh, rl, q & 3);
}

bm_reducedf bm_reduce_pio2(float x) {
  if (abs(x) <= 0.785398163f) return bm_reducedf(x, 0.0f, 0);
  if (abs(x) >= 200.0f) return bm_reduce_largef(x);
  const float k = roundEven(x * 0.636619747f);
  precise float y = x - k * BM_PIO2_1F;
  const bm_ff a = bm_two_sum(y, -k * BM_PIO2_2F);
  const bm_ff b = bm_two_sum(a.hi, -k * BM_PIO2_3F);
  precise float t = (a.lo + b.lo) - k * BM_PIO2_4F;
  const bm_ff r = bm_fast_two_sum(b.hi, t);
  return bm_reducedf(r.hi, r.lo, int(k) & 3);
}

float bm_sin_kernel(float x, float y) {
  const float z = x * x;
  const float s = -0.166666672f + z * (0.00833333191f + z * (-0.000198400812f + z * 2.72491479e-06f));
  return x + (x * z * s + y * (1.0f - 0.5f * z));
}
float bm_cos_kernel(float x, float y) {
  const float z = x * x;
  const float c = 0.0416666642f + z * (-0.00138883002f + z * 2.45472984e-05f);
  const float hz = 0.5f * z;
  precise float w = 1.0f - hz;
  precise float err = (1.0f - w) - hz;
  return w + (err + (z * z * c - x * y));
}

float b_sin(float x) {
  if (isnan(x) || isinf(x)) return F32_NAN;
  if (abs(x) < 0.000244140625f) return x;  // 2^-12
  const bm_reducedf r = bm_reduce_pio2(x);
  const float v = (r.q & 1) == 0 ? bm_sin_kernel(r.hi, r.lo) : bm_cos_kernel(r.hi, r.lo);
  return r.q >= 2 ? -v : v;
}

float b_cos(float x) {
  if (isnan(x) || isinf(x)) return F32_NAN;
  if (abs(x) < 0.000244140625f) return 1.0f;
  const bm_reducedf r = bm_reduce_pio2(x);
  const float v = (r.q & 1) == 0 ? bm_cos_kernel(r.hi, r.lo) : bm_sin_kernel(r.hi, r.lo);
  return (r.q == 1 || r.q == 2) ? -v : v;
}

// a / b with the quotient's rounding error fed back: within about half an ulp even where a device's
// division is not correctly rounded (Vulkan allows 2.5 ulp).
float bm_div(float a, float b) {
  const float q = a / b;
  const bm_ff p = bm_two_prod(q, b);
  precise float residual = (a - p.hi) - p.lo;
  return q + residual / b;
}

float b_tan(float x) {
  if (isnan(x) || isinf(x)) return F32_NAN;
  if (abs(x) < 0.000244140625f) return x;
  const bm_reducedf r = bm_reduce_pio2(x);
  const float s = bm_sin_kernel(r.hi, r.lo);
  const float c = bm_cos_kernel(r.hi, r.lo);
  return (r.q & 1) == 0 ? bm_div(s, c) : -bm_div(c, s);
}

// ---- sinh, cosh, tanh: odd polynomials near 0, expm1 and exp beyond (see math_f64.glsl) ----
float b_sinh(float x) {
  if (isnan(x)) return x;
  const float a = abs(x);
  float r;
  if (a < 0.000244140625f) return x;
  if (a < 1.0f) {
    const float z = x * x;
    return x + x * z * (0.166666672f + z * (0.00833333936f + z * (0.000198381022f + z * 2.80628024e-06f)));
  }
  if (a < 9.0f) {
    const float t = b_expm1(a);
    r = 0.5f * (t + t / (t + 1.0f));
  } else if (a < 90.0f) {
    r = bm_exp_ff(a - BM_LN2_HI_F, -BM_LN2_LO_F);  // e^a / 2
  } else {
    r = F32_INF;
  }
  return x < 0.0f ? -r : r;
}

float b_cosh(float x) {
  if (isnan(x)) return x;
  const float a = abs(x);
  if (a < 0.346573591f) {
    const float t = b_expm1(a);
    return 1.0f + (t * t) / (2.0f * (1.0f + t));
  }
  if (a < 9.0f) {
    const float t = b_exp(a);
    return 0.5f * t + 0.5f / t;
  }
  if (a < 90.0f) return bm_exp_ff(a - BM_LN2_HI_F, -BM_LN2_LO_F);  // e^a / 2
  return F32_INF;
}

float b_tanh(float x) {
  if (isnan(x)) return x;
  const float a = abs(x);
  float r;
  if (a < 0.000244140625f) return x;
  if (a >= 9.1f) {
    r = 1.0f;
  } else if (a >= 0.55f) {
    r = 1.0f - 2.0f / (b_expm1(2.0f * a) + 2.0f);
  } else {
    const float z = x * x;
    return x + x * z * (-0.333333313f + z * (0.133331135f + z * (-0.0539094284f + z * (0.0213093888f + z * -0.00661022775f))));
  }
  return x < 0.0f ? -r : r;
}

// ---- asin, acos ----
float bm_asin_p(float z) {
  return 0.166666657f +
         z * (0.0750009418f + z * (0.0445994027f + z * (0.0311006624f + z * (0.0171492379f + z * 0.0336908475f))));
}

bm_ff bm_sqrt_ff(float z) {  // sqrt(z) as s + c, s of 12 bits (see math_f64.glsl)
  const float r = sqrt(z);
  if (r == 0.0f) return bm_ff(0.0f, 0.0f);
  const float s = uintBitsToFloat(floatBitsToUint(r) & 0xfffff000u);
  precise float c = (z - s * s) / (r + s);
  return bm_ff(s, c);
}

const float BM_PI_HI_F = 3.14159274f;
const float BM_PI_LO_F = -8.74227766e-08f;

float b_asin(float x) {
  if (isnan(x)) return x;
  const float a = abs(x);
  if (a > 1.0f) return F32_NAN;
  if (a < 0.000244140625f) return x;
  if (a <= 0.5f) {
    const float z = x * x;
    return x + x * z * bm_asin_p(z);
  }
  const float z = 0.5f * (1.0f - a);
  const bm_ff s = bm_sqrt_ff(z);
  const float tail = 2.0f * (s.lo + (s.hi + s.lo) * z * bm_asin_p(z));
  const bm_ff h = bm_two_sum(BM_PIO2_HI_F, -2.0f * s.hi);
  precise float r = h.hi + (h.lo - (tail - BM_PIO2_LO_F));
  return x < 0.0f ? -r : r;
}

float b_acos(float x) {
  if (isnan(x)) return x;
  const float a = abs(x);
  if (a > 1.0f) return F32_NAN;
  if (a <= 0.5f) {
    const float z = x * x;
    precise float r = BM_PIO2_HI_F - (x - (BM_PIO2_LO_F - x * z * bm_asin_p(z)));
    return r;
  }
  const float z = 0.5f * (1.0f - a);
  const bm_ff s = bm_sqrt_ff(z);
  const float tail = s.lo + (s.hi + s.lo) * z * bm_asin_p(z);
  if (x > 0.0f) return 2.0f * (s.hi + tail);
  precise float r = BM_PI_HI_F - 2.0f * (s.hi + (tail - 0.5f * BM_PI_LO_F));
  return r;
}

// ---- atan, atan2 ----
float bm_atan_a(float z) {
  return -0.333333313f + z * (0.199993119f + z * (-0.142564982f + z * (0.106676362f + z * -0.0621358864f)));
}

// atan(a + da) == hi + lo for a >= 0 (see math_f64.glsl).
bm_ff bm_atan_parts(float a, float da) {
  if (a >= 33554432.0f) return bm_ff(BM_PIO2_HI_F, BM_PIO2_LO_F);  // 2^25
  float u, off_hi, off_lo;
  if (a < 0.4375f) {
    u = a;
    off_hi = 0.0f;
    off_lo = 0.0f;
  } else if (a < 0.6875f) {
    u = (2.0f * a - 1.0f) / (2.0f + a);
    off_hi = 0.463647604f;
    off_lo = 5.01215869e-09f;
  } else if (a < 1.1875f) {
    u = (a - 1.0f) / (a + 1.0f);
    off_hi = 0.785398185f;
    off_lo = -2.18556941e-08f;
  } else if (a < 2.4375f) {
    u = (2.0f * a - 3.0f) / (2.0f + 3.0f * a);
    off_hi = 0.982793748f;
    off_lo = -2.51314241e-08f;
  } else {
    u = -1.0f / a;
    off_hi = BM_PIO2_HI_F;
    off_lo = BM_PIO2_LO_F;
  }
  const float z = u * u;
  const float tail = da / (1.0f + a * a);
  precise float lo = u + (u * z * bm_atan_a(z) + (off_lo + tail));
  return bm_ff(off_hi, lo);
}

float b_atan(float x) {
  if (isnan(x)) return x;
  if (abs(x) < 0.000244140625f) return x;
  const bm_ff p = bm_atan_parts(abs(x), 0.0f);
  precise float r = p.hi + p.lo;
  return x < 0.0f ? -r : r;
}

float b_atan2(float y, float x) {
  if (isnan(x) || isnan(y)) return x + y;
  const bool yneg = (floatBitsToUint(y) >> 31) != 0u;
  const bool xneg = (floatBitsToUint(x) >> 31) != 0u;
  const float ay = abs(y);
  const float ax = abs(x);
  float r;
  if (ay == 0.0f) {
    r = xneg ? BM_PI_HI_F : 0.0f;
  } else if (isinf(ay)) {
    r = isinf(ax) ? (xneg ? 2.35619450f : 0.785398185f) : BM_PIO2_HI_F;
  } else if (ax == 0.0f) {
    r = BM_PIO2_HI_F;
  } else if (isinf(ax)) {
    r = xneg ? BM_PI_HI_F : 0.0f;
  } else {
    const float q = ay / ax;
    float dq = 0.0f;
    if (q > 1e-29f && q < 1e30f && ax < 1e30f && ay > 1e-29f) {
      const bm_ff p = bm_two_prod(q, ax);
      precise float residual = (ay - p.hi) - p.lo;
      dq = residual / ax;
    }
    if (q < 1.17549435e-38f && !xneg) {
      r = q;
    } else {
      // atan(q) == hi + lo; pi - atan(q) keeps both parts (two_sum makes pi - hi exact).
      const bm_ff p = bm_atan_parts(q, dq);
      const bm_ff t = bm_two_sum(BM_PI_HI_F, -p.hi);
      precise float direct = p.hi + p.lo;
      precise float flipped = t.hi + ((t.lo + BM_PI_LO_F) - p.lo);
      r = xneg ? flipped : direct;
    }
  }
  return yneg ? -r : r;
}

// ---- erf ----
float b_erf(float x) {
  if (isnan(x)) return x;
  const float a = abs(x);
  if (a < 0.84375f) {
    const float z = x * x;
    const float e0 =
        0.128379166f +
        z * (-0.376126379f +
             z * (0.112837516f + z * (-0.0268627685f + z * (0.00521012023f + z * (-0.000825512107f + z * 8.88962531e-05f)))));
    return x + x * e0;
  }
  float r;
  if (a < 1.25f) {
    const float s = a - 1.0f;
    const float e1 =
        1.05333857e-08f +
        s * (0.415107489f +
             s * (-0.415105611f + s * (0.138367474f + s * (0.0690065101f + s * (-0.0687658414f + s * 0.00888705906f)))));
    precise float v = 0.842700779f + e1;
    r = v;
  } else if (a >= 4.0f) {
    r = 1.0f;
  } else {
    float g;
    if (a < 2.5f) {
      const float s = a - 1.875f;
      g = 0.269429982f +
          s * (-0.11801672f +
               s * (0.0481498688f +
                    s * (-0.0184923988f +
                         s * (0.00672225608f + s * (-0.00233856076f + s * (0.000845180068f + s * -0.000269943033f))))));
    } else {
      const float s = a - 3.25f;
      g = 0.166335672f +
          s * (-0.0471994765f + s * (0.0129271513f + s * (-0.00343305315f + s * (0.000933593314f + s * -0.000233737184f))));
    }
    const bm_ff sq = bm_two_prod(a, a);
    r = 1.0f - bm_exp_ff(-sq.hi, -sq.lo) * g;
  }
  return x < 0.0f ? -r : r;
}

// ---- pow ----
// log(x) as a float-float to about 2^-36 relative (see bm_log_dd in math_f64.glsl).
bm_ff bm_log_ff(float x) {
  const bm_frexpf d = bm_split_exponent(x);
  const float f = d.m - 1.0f;
  const bm_ff den = bm_two_sum(2.0f, f);
  const float sh = f / den.hi;
  const bm_ff p = bm_two_prod(sh, den.hi);
  precise float residual = ((f - p.hi) - p.lo) - sh * den.lo;
  const float sl = residual / den.hi;
  const float z = sh * sh;
  const float m = 0.400000006f + z * (0.285715312f + z * (0.222047299f + z * 0.191213295f));
  const bm_ff s2 = bm_two_prod(sh, sh);
  const bm_ff s3 = bm_two_prod(s2.hi, sh);
  const float s3lo = s3.lo + s2.lo * sh + 3.0f * s2.hi * sl;
  const bm_ff t3 = bm_two_prod(s3.hi, 0.666666687f);
  const float t3lo = t3.lo + (s3lo * 0.666666687f + s3.hi * -1.98682155e-08f);
  const float t5 = s3.hi * z * m;
  const float e = float(d.e);
  const bm_ff a = bm_two_sum(e * BM_LN2_HI_F, 2.0f * sh);
  const bm_ff b = bm_two_sum(a.hi, t3.hi);
  const float lo = a.lo + b.lo + (2.0f * sl + (t3lo + (t5 + e * BM_LN2_LO_F)));
  return bm_fast_two_sum(b.hi, lo);
}

float bm_pow_pos(float x, float y) {
  if (x == 1.0f) return 1.0f;
  // |y| >= 2^32 makes |y log x| > 250 for every float x != 1.
  if (abs(y) >= 4294967296.0f) return ((x < 1.0f) == (y < 0.0f)) ? F32_INF : 0.0f;
  const bm_ff l = bm_log_ff(x);
  const bm_ff p = bm_two_prod(y, l.hi);
  const float plo = p.lo + y * l.lo;
  if (p.hi > 89.0f) return F32_INF;
  if (p.hi < -104.0f) return 0.0f;
  const bm_ff yl = bm_fast_two_sum(p.hi, plo);
  return bm_exp_ff(yl.hi, yl.lo);
}

// C's powf (Annex F special cases), as the cpu backend's std::pow.
float b_pow(float x, float y) {
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (isnan(x) || isnan(y)) return x + y;
  const float ay = abs(y);
  const bool yint = trunc(y) == y;
  const bool yodd = yint && ay < 16777216.0f && trunc(0.5f * y) != 0.5f * y;
  const bool xneg = (floatBitsToUint(x) >> 31) != 0u;
  if (isinf(y)) {
    const float ax = abs(x);
    if (ax == 1.0f) return 1.0f;
    return ((ax < 1.0f) == (y < 0.0f)) ? F32_INF : 0.0f;
  }
  if (x == 0.0f) {
    const float r = y < 0.0f ? F32_INF : 0.0f;
    return (yodd && xneg) ? -r : r;
  }
  if (isinf(x)) {
    const float r = y < 0.0f ? 0.0f : F32_INF;
    return (yodd && xneg) ? -r : r;
  }
  if (xneg && !yint) return F32_NAN;
  const float r = bm_pow_pos(abs(x), y);
  return (xneg && yodd) ? -r : r;
}

// ---- round ----
// Round half to even (torch.round); GLSL's roundEven is exact for floats (math_f64.glsl: not for doubles).
float b_round(float x) { return roundEven(x); }

// ---- fmod, remainder ----
// C's fmodf, exact (see math_f64.glsl): 8 bits of the exponent difference at a time in 32-bit integers.
float b_fmod(float a, float b) {
  if (isnan(a) || isnan(b) || isinf(a) || b == 0.0f) return F32_NAN;
  const float aa = abs(a);
  const float ab = abs(b);
  if (isinf(b) || aa < ab) return a;
  const uint ba = floatBitsToUint(aa);
  const uint bb = floatBitsToUint(ab);
  int ea = int(ba >> 23);
  int eb = int(bb >> 23);
  uint ma = ba & 0x007fffffu;
  uint mb = bb & 0x007fffffu;
  if (ea == 0) {
    ea = 1;
  } else {
    ma |= 0x00800000u;
  }
  if (eb == 0) {
    eb = 1;
  } else {
    mb |= 0x00800000u;
  }
  uint r = ma % mb;
  for (int d = ea - eb; d > 0;) {
    const int chunk = min(d, 8);  // r < 2^24, so r << 8 fits
    r = (r << chunk) % mb;
    d -= chunk;
  }
  const float v = bm_ldexp(float(r), eb - 150);
  return a < 0.0f ? -v : v;
}

float b_remainder(float a, float b) {
  const float r = b_fmod(a, b);
  return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
}

// ---- helpers of the activations (exprs.cpp); the double ones are at the end of math_f64.glsl ----
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
BURN_ACTIVATION_OPS(float, 0.79788456080286535588f, 0.044715f)

