// f64 transcendental functions: GLSL has exp, log, sin, ... for 32-bit floats only, so the dialect
// implements them for double here, within about an ulp of a correctly rounded result (README: the
// measured maximum per function). The same text compiles as C++ (tests/glsl_shim.hpp) for the
// device-free accuracy test: scalars, structs and the builtins of that shim only. An unsuffixed literal
// is a double where a double is expected (glslang keeps its double value), but an expression of literals
// alone is a float in GLSL: no ternary between two literals, no call whose only floats are literals
// (`double(1)` picks the double overload); the device test catches a slip.
// Polynomial coefficients come from tools/fit_math.py; the algorithms are the classic ones (Cody-Waite
// and Payne-Hanek argument reduction, error-free transformations), each written down where it is used.
#ifdef HAS_F64

#define F64_NAN uint64BitsToDouble(0x7ff8000000000000ul)
#define F64_INF uint64BitsToDouble(0x7ff0000000000000ul)

// ---- error-free transformations: a double-double hi + lo carries about 106 bits ----
// `precise` keeps a driver from contracting or reassociating them: Vulkan lets fma round twice and lets
// an optimiser simplify (a + b) - a to b, either of which would lose the error term.
struct bm_dd {
  double hi;
  double lo;
};

// a + b == s + e exactly (Knuth).
bm_dd bm_two_sum(double a, double b) {
  precise double s = a + b;
  precise double bb = s - a;
  precise double e = (a - (s - bb)) + (b - bb);
  return bm_dd(s, e);
}

// a + b == s + e exactly when |a| >= |b| or a == 0 (Dekker).
bm_dd bm_fast_two_sum(double a, double b) {
  precise double s = a + b;
  precise double e = b - (s - a);
  return bm_dd(s, e);
}

// a == hi + lo with 26-bit halves, so that products of halves are exact (Veltkamp); |a| < 2^995.
bm_dd bm_split(double a) {
  precise double c = 134217729.0 * a;  // 2^27 + 1
  precise double hi = c - (c - a);
  precise double lo = a - hi;
  return bm_dd(hi, lo);
}

// a * b == p + e exactly (Dekker), without a fused multiply-add.
bm_dd bm_two_prod(double a, double b) {
  const bm_dd x = bm_split(a);
  const bm_dd y = bm_split(b);
  precise double p = a * b;
  precise double e = ((x.hi * y.hi - p) + x.hi * y.lo + x.lo * y.hi) + x.lo * y.lo;
  return bm_dd(p, e);
}

// 2^k for -1022 <= k <= 1023.
double bm_pow2(int k) { return uint64BitsToDouble(uint64_t(k + 1023) << 52); }

// x * 2^k with one rounding, for x in [2^-60, 2^60] and -1140 <= k <= 2046: over- and underflow give
// inf and correctly rounded subnormals.
double bm_ldexp(double x, int k) {
  if (k > 1023) return (x * bm_pow2(1023)) * bm_pow2(min(k - 1023, 1023));
  if (k < -1022) return (x * bm_pow2(max(k + 64, -1022))) * bm_pow2(-64);
  return x * bm_pow2(k);
}

// ---- exp, expm1 ----
// ln2 = LN2_HI + LN2_LO with a 32-bit LN2_HI: k * LN2_HI is exact for |k| < 2^21.
const double BM_LN2_HI = 0.6931471806019545;
const double BM_LN2_LO = -4.2009150726810846e-11;
const double BM_INV_LN2 = 1.4426950408889634;

// (e^r - 1 - r) / r^2 on |r| <= ln2/2.
double bm_exp_q(double r) {
  return 0.5000000000000001 +
         r * (0.16666666666666669 +
              r * (0.04166666666662216 +
                   r * (0.00833333333332991 +
                        r * (0.001388888891819165 +
                             r * (0.00019841269863805664 +
                                  r * (2.4801519785022954e-05 +
                                       r * (2.7557267298072677e-06 +
                                            r * (2.762080306789032e-07 + r * 2.510093504703457e-08))))))));
}

// e^(hi + lo), the core of exp, pow and erf, for |lo| below an ulp of hi and hi in [-746, 710] (outside,
// the caller decides): hi + lo == k ln2 + r + rlo with |r| <= ln2/2, and e^r = 1 + r + q summed with
// the error of 1 + r kept, so that the result rounds about once before the exact scaling by 2^k.
double bm_exp_dd(double hi, double lo) {
  const double k = roundEven(hi * BM_INV_LN2);
  precise double rh = hi - k * BM_LN2_HI;  // exact (Sterbenz)
  precise double rl = lo - k * BM_LN2_LO;
  precise double r = rh + rl;
  precise double rlo = (rh - r) + rl;
  const double q = r * r * bm_exp_q(r);
  const bm_dd s = bm_two_sum(1.0, r);
  return bm_ldexp(s.hi + (s.lo + (q + rlo * (1.0 + r))), int(k));
}

double b_exp(double x) {
  if (isnan(x)) return x;
  if (x > 710.0) return F64_INF;
  if (x < -746.0) return 0.0;
  return bm_exp_dd(x, 0.0);
}

// e^x - 1 without the cancellation of exp(x) - 1 near 0.
double b_expm1(double x) {
  if (isnan(x)) return x;
  if (x > 710.0) return F64_INF;
  if (x < -38.0) return -1.0;  // e^x is below half an ulp of 1
  if (abs(x) < 5.551115123125783e-17) return x;  // 2^-54: keeps -0 and subnormals
  const double k = roundEven(x * BM_INV_LN2);
  // x == k ln2 + r + rlo: x - k LN2_HI is exact, r rounds its sum with -k LN2_LO, rlo keeps the error.
  precise double rh = x - k * BM_LN2_HI;
  const double rl = -k * BM_LN2_LO;
  precise double r = rh + rl;
  precise double rlo = (rh - r) + rl;
  const double q = r * r * bm_exp_q(r);  // e^r - 1 == r + q
  const double c = rlo * (1.0 + (r + q)); // e^(r + rlo) - e^r, to first order
  const int ki = int(k);
  if (ki >= -1 && ki <= 53) {
    // 2^k (1 - 2^-k + r + q + c): 1 - 2^-k is exact here and two_sum keeps the sum's error.
    const bm_dd s = bm_two_sum(1.0 - bm_pow2(-ki), r);
    return (s.hi + (s.lo + (q + c))) * bm_pow2(ki);
  }
  if (ki > 53) {
    // 2^k (1 + r + q + c - 2^-k), one rounding before the exact scaling.
    const bm_dd s = bm_two_sum(1.0, r);
    return bm_ldexp(s.hi + (s.lo + ((q + c) - bm_ldexp(double(1), -ki))), ki);
  }
  // 2^k e^r is below 1/4: subtracting 1 loses nothing that matters.
  return bm_ldexp(1.0 + (r + (q + c)), ki) - 1.0;
}

// ---- log, log1p ----
// 2 atanh(s) == 2s + s z L(z) with z = s^2, |s| <= 3 - 2 sqrt(2).
double bm_log_l(double z) {
  return 0.666666666666667 +
         z * (0.3999999999989889 +
              z * (0.28571428626253836 +
                   z * (0.22222211089379496 +
                        z * (0.1818289243253687 + z * (0.15331611722055008 + z * 0.14617807153417325)))));
}

// e ln2 + log1p(f) + c for |f| <= sqrt(2) - 1 (f exact) and a small correction c: with s = f / (2 + f),
// log1p(f) = 2 atanh(s) = f - (f^2/2 - s (f^2/2 + z L(z))), where s's rounding only reaches the small
// last term.
double bm_log_reduced(double e, double f, double c) {
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double hfsq = 0.5 * f * f;
  const double r = z * bm_log_l(z);
  precise double v = e * BM_LN2_HI + (f - (hfsq - (s * (hfsq + r) + (e * BM_LN2_LO + c))));
  return v;
}

// x == 2^e m with m in [sqrt(1/2), sqrt(2)), for finite x > 0 (subnormals included).
struct bm_frexp {
  double m;
  int e;
};
bm_frexp bm_split_exponent(double x) {
  uint64_t bits = doubleBitsToUint64(x);
  int e = -1023;
  if (bits < 0x0010000000000000ul) {  // subnormal: scale by 2^64 first
    bits = doubleBitsToUint64(x * 18446744073709551616.0);
    e -= 64;
  }
  e += int(bits >> 52);
  bits = (bits & 0x000ffffffffffffful) | 0x3ff0000000000000ul;  // m in [1, 2)
  if (bits > 0x3ff6a09e667f3bcdul) {                            // m > sqrt(2): halve it
    bits -= 0x0010000000000000ul;
    e += 1;
  }
  return bm_frexp(uint64BitsToDouble(bits), e);
}

double b_log(double x) {
  if (isnan(x) || x == F64_INF) return x;
  if (x <= 0.0) return x == 0.0 ? -F64_INF : F64_NAN;
  const bm_frexp d = bm_split_exponent(x);
  return bm_log_reduced(double(d.e), d.m - 1.0, 0.0);
}

double b_log1p(double x) {
  if (isnan(x) || x == F64_INF) return x;
  if (x <= -1.0) return x == -1.0 ? -F64_INF : F64_NAN;
  if (abs(x) < 5.551115123125783e-17) return x;  // 2^-54: keeps -0 and subnormals
  if (x > -0.2928932188134524 && x < 0.41421356237309503) return bm_log_reduced(0.0, x, 0.0);
  // u = 1 + x rounds; c = (1 + x - u) / u corrects log(u) to first order (both subtractions exact).
  precise double u = 1.0 + x;
  precise double c = u >= 2.0 ? (1.0 - (u - x)) / u : (x - (u - 1.0)) / u;
  const bm_frexp d = bm_split_exponent(u);
  return bm_log_reduced(double(d.e), d.m - 1.0, c);
}

// ---- sin, cos, tan ----
// pi/2 in four parts, the first three of 32 bits (k * part exact for |k| < 2^21): Cody-Waite.
const double BM_PIO2_1 = 1.5707963267341256;
const double BM_PIO2_2 = 6.077100506303966e-11;
const double BM_PIO2_3 = 2.0222662487111665e-21;
const double BM_PIO2_4 = 8.478427660348229e-32;
const double BM_PIO2_HI = 1.5707963267948966;
const double BM_PIO2_LO = 6.123233995736766e-17;

// x == k pi/2 + (hi + lo) with |hi + lo| <= pi/4 (about), q = k mod 4.
struct bm_reduced {
  double hi;
  double lo;
  int q;
};

// Payne-Hanek for |x| >= 2^20 pi/2: x = m 2^ex with a 53-bit integer m, and only 224 bits of 2/pi
// (BM_TWO_OVER_PI, math.glsl) matter: the ones before them make m 2^ex 2/pi move by multiples of 4
// (whole turns), the ones after it by less than 2^-138. The product, 288 bits in 32-bit limbs, holds
// the quadrant at its binary point and 128 bits of the fraction below it.
bm_reduced bm_reduce_large(double x) {
  const uint64_t bits = doubleBitsToUint64(x);
  const int ex = int((bits >> 52) & 0x7fful) - 1075;
  const uint64_t m = (bits & 0x000ffffffffffffful) | 0x0010000000000000ul;
  const uint64_t mlo = m & 0xfffffffful;
  const uint64_t mhi = m >> 32;
  const int j0 = max(0, (ex - 2) / 32);
  uint acc[9];
  // acc = mlo * W, then += (mhi * W) << 32, where W = limbs j0 .. j0 + 6 (W's lowest limb is j0 + 6).
  uint64_t carry = 0ul;
  for (int p = 0; p < 7; ++p) {
    const uint64_t t = uint64_t(BM_TWO_OVER_PI[j0 + 6 - p]) * mlo + carry;
    acc[p] = uint(t);
    carry = t >> 32;
  }
  acc[7] = uint(carry);
  acc[8] = 0u;
  carry = 0ul;
  for (int p = 0; p < 7; ++p) {
    const uint64_t t = uint64_t(BM_TWO_OVER_PI[j0 + 6 - p]) * mhi + uint64_t(acc[p + 1]) + carry;
    acc[p + 1] = uint(t);
    carry = t >> 32;
  }
  acc[8] = uint(carry);
  // The binary point of the product: bit `point` (191 <= point <= 257).
  const int point = 32 * (j0 + 7) - ex;
  uint w[4];  // the four 32-bit words below the point, w[0] first
  for (int i = 0; i < 4; ++i) {
    const int pos = point - 32 * (i + 1);
    const int li = pos >> 5;
    const int sh = pos & 31;
    const uint lo = acc[li];
    const uint hi = li + 1 < 9 ? acc[li + 1] : 0u;
    w[i] = sh == 0 ? lo : (lo >> sh) | (hi << (32 - sh));
  }
  const int li = point >> 5;
  const int sh = point & 31;
  uint qbits = acc[li] >> sh;
  if (sh > 30 && li + 1 < 9) qbits |= acc[li + 1] << (32 - sh);
  int q = int(qbits & 3u);
  uint64_t a = (uint64_t(w[0]) << 32) | uint64_t(w[1]);
  uint64_t b = (uint64_t(w[2]) << 32) | uint64_t(w[3]);
  // Round to the nearest quadrant: a fraction of 1/2 or more becomes fraction - 1, negated here.
  const bool negative = (a >> 63) != 0ul;
  if (negative) {
    b = ~b + 1ul;
    a = ~a + (b == 0ul ? 1ul : 0ul);
    q += 1;
  }
  // The 128-bit fraction a.b as exact doubles, summed into a double-double.
  const double d1 = double(a >> 11) * 1.1102230246251565e-16;                  // 2^-53
  const double d2 = double(a & 0x7fful) * 5.421010862427522e-20;              // 2^-64
  const double d3 = double(b >> 11) * 6.018531076210112e-36;                  // 2^-117
  const double d4 = double(b & 0x7fful) * 2.938735877055719e-39;              // 2^-128
  const bm_dd s1 = bm_two_sum(d1, d2);
  const bm_dd s2 = bm_two_sum(s1.hi, d3);
  const bm_dd f = bm_fast_two_sum(s2.hi, s2.lo + (s1.lo + d4));
  // r = f pi/2
  const bm_dd p = bm_two_prod(f.hi, BM_PIO2_HI);
  const bm_dd r = bm_fast_two_sum(p.hi, p.lo + (f.hi * BM_PIO2_LO + f.lo * BM_PIO2_HI));
  double rh = negative ? -r.hi : r.hi;
  double rl = negative ? -r.lo : r.lo;
  if (x < 0.0) {
    rh = -rh;
    rl = -rl;
    q = -q;
  }
  return bm_reduced(rh, rl, q & 3);
}

bm_reduced bm_reduce_pio2(double x) {
  if (abs(x) <= 0.7853981633974483) return bm_reduced(x, 0.0, 0);
  if (abs(x) >= 1647099.3291652855) return bm_reduce_large(x);  // 2^20 pi/2
  const double k = roundEven(x * 0.6366197723675814);
  // x - k P1 is exact (Sterbenz); the next parts are subtracted keeping every rounding error.
  precise double y = x - k * BM_PIO2_1;
  const bm_dd a = bm_two_sum(y, -k * BM_PIO2_2);
  const bm_dd b = bm_two_sum(a.hi, -k * BM_PIO2_3);
  precise double t = (a.lo + b.lo) - k * BM_PIO2_4;
  const bm_dd r = bm_fast_two_sum(b.hi, t);
  return bm_reduced(r.hi, r.lo, int(k) & 3);
}

// sin(x + y) and cos(x + y) for |x| <= pi/4 and |y| below an ulp of x.
double bm_sin_kernel(double x, double y) {
  const double z = x * x;
  const double s = -0.16666666666666666 +
                   z * (0.008333333333333331 +
                        z * (-0.00019841269841265003 +
                             z * (2.7557319219291695e-06 +
                                  z * (-2.5052106215978872e-08 +
                                       z * (1.6058529011960858e-10 + z * -7.586543634101903e-13)))));
  return x + (x * z * s + y * (1.0 - 0.5 * z));
}
double bm_cos_kernel(double x, double y) {
  const double z = x * x;
  const double c = 0.041666666666666664 +
                   z * (-0.0013888888888887378 +
                        z * (2.4801587298736863e-05 +
                             z * (-2.755731725679604e-07 + z * (2.087614315990944e-09 + z * -1.1382408754153254e-11))));
  // 1 - z/2 rounds; (1 - w) - z/2 is its error, exact.
  const double hz = 0.5 * z;
  precise double w = 1.0 - hz;
  precise double err = (1.0 - w) - hz;
  return w + (err + (z * z * c - x * y));
}

double b_sin(double x) {
  if (isnan(x) || isinf(x)) return F64_NAN;
  if (abs(x) < 7.450580596923828e-09) return x;  // 2^-27: sin(x) rounds to x
  const bm_reduced r = bm_reduce_pio2(x);
  const double v = (r.q & 1) == 0 ? bm_sin_kernel(r.hi, r.lo) : bm_cos_kernel(r.hi, r.lo);
  return r.q >= 2 ? -v : v;
}

double b_cos(double x) {
  if (isnan(x) || isinf(x)) return F64_NAN;
  if (abs(x) < 7.450580596923828e-09) return 1.0;
  const bm_reduced r = bm_reduce_pio2(x);
  const double v = (r.q & 1) == 0 ? bm_cos_kernel(r.hi, r.lo) : bm_sin_kernel(r.hi, r.lo);
  return (r.q == 1 || r.q == 2) ? -v : v;
}

// a / b with the quotient's rounding error fed back: within about half an ulp even where a device's
// division is not correctly rounded (Vulkan allows 2.5 ulp).
double bm_div(double a, double b) {
  const double q = a / b;
  const bm_dd p = bm_two_prod(q, b);
  precise double residual = (a - p.hi) - p.lo;
  return q + residual / b;
}

double b_tan(double x) {
  if (isnan(x) || isinf(x)) return F64_NAN;
  if (abs(x) < 7.450580596923828e-09) return x;
  const bm_reduced r = bm_reduce_pio2(x);
  const double s = bm_sin_kernel(r.hi, r.lo);
  const double c = bm_cos_kernel(r.hi, r.lo);
  return (r.q & 1) == 0 ? bm_div(s, c) : -bm_div(c, s);
}

// ---- sinh, cosh, tanh: odd polynomials near 0, expm1 and exp beyond ----
double b_sinh(double x) {
  if (isnan(x)) return x;
  const double a = abs(x);
  double r;
  if (a < 7.450580596923828e-09) return x;  // 2^-27
  if (a < 1.0) {
    // sinh(x) == x + x z H(z), z = x^2
    const double z = x * x;
    const double h = 0.16666666666666666 +
                     z * (0.008333333333333299 +
                          z * (0.00019841269841324198 +
                               z * (2.7557319191381816e-06 +
                                    z * (2.5052117695907823e-08 + z * (1.6057679623801638e-10 + z * 7.746178593018827e-13)))));
    return x + x * z * h;
  }
  if (a < 22.0) {
    // (e^a - e^-a) / 2 with t = e^a - 1: (t + t / (t + 1)) / 2
    const double t = b_expm1(a);
    r = 0.5 * (t + t / (t + 1.0));
  } else if (a < 711.0) {
    r = bm_exp_dd(a - BM_LN2_HI, -BM_LN2_LO);  // e^a / 2, exact subtraction: e^a overflows before sinh
  } else {
    r = F64_INF;
  }
  return x < 0.0 ? -r : r;
}

double b_cosh(double x) {
  if (isnan(x)) return x;
  const double a = abs(x);
  if (a < 0.34657359027997264) {  // ln2/2: 1 + t^2 / (2 (1 + t))
    const double t = b_expm1(a);
    return 1.0 + (t * t) / (2.0 * (1.0 + t));
  }
  if (a < 22.0) {
    const double t = b_exp(a);
    return 0.5 * t + 0.5 / t;
  }
  if (a < 711.0) return bm_exp_dd(a - BM_LN2_HI, -BM_LN2_LO);  // e^a / 2
  return F64_INF;
}

double b_tanh(double x) {
  if (isnan(x)) return x;
  const double a = abs(x);
  double r;
  if (a < 5.551115123125783e-17) return x;  // 2^-54
  if (a >= 22.0) {
    r = 1.0;
  } else if (a >= 0.55) {
    r = 1.0 - 2.0 / (b_expm1(2.0 * a) + 2.0);  // 2 / (e^2a + 1) <= 1/2: its errors shrink
  } else {
    // tanh(x) == x + x z T(z), z = x^2
    const double z = x * x;
    const double t = -0.3333333333333333 +
                     z * (0.13333333333332714 +
                          z * (-0.053968253967434016 +
                               z * (0.021869488493666944 +
                                    z * (-0.008863234397814355 +
                                         z * (0.003592110378689024 +
                                              z * (-0.001455661830100716 +
                                                   z * (0.0005889360520074057 +
                                                        z * (-0.0002346347410887237 +
                                                             z * (8.511313685577672e-05 + z * -2.060276537636634e-05)))))))));
    return x + x * z * t;
  }
  return x < 0.0 ? -r : r;
}

// ---- asin, acos ----
// asin(x) == x + x z P(z) with z = x^2, |x| <= 1/2.
double bm_asin_p(double z) {
  return 0.16666666666666669 +
         z * (0.07499999999998433 +
              z * (0.04464285714635543 +
                   z * (0.030381944138531247 +
                        z * (0.02237217294214989 +
                             z * (0.017352392720869973 +
                                  z * (0.013971212973552933 +
                                       z * (0.011479177415184906 +
                                            z * (0.01032281435018578 +
                                                 z * (0.005457506718640358 +
                                                      z * (0.01740087944269402 +
                                                           z * (-0.014851887071247204 +
                                                                z * 0.028757851367421566)))))))))));
}

// sqrt(z) as s + c to about 2^-80 relative: s keeps 26 bits so s^2 is exact and c = (z - s^2) / (s + sqrt(z)).
bm_dd bm_sqrt_dd(double z) {
  const double r = sqrt(z);
  if (r == 0.0) return bm_dd(0.0, 0.0);
  const double s = uint64BitsToDouble(doubleBitsToUint64(r) & 0xfffffffff8000000ul);
  precise double c = (z - s * s) / (r + s);
  return bm_dd(s, c);
}

const double BM_PI_HI = 3.141592653589793;
const double BM_PIO4 = 0.7853981633974483;
const double BM_3PIO4 = 2.356194490192345;
const double BM_PI_LO = 1.2246467991473532e-16;

double b_asin(double x) {
  if (isnan(x)) return x;
  const double a = abs(x);
  if (a > 1.0) return F64_NAN;
  if (a < 7.450580596923828e-09) return x;  // 2^-27
  if (a <= 0.5) {
    const double z = x * x;
    return x + x * z * bm_asin_p(z);
  }
  // asin(a) = pi/2 - 2 asin(sqrt((1 - a) / 2)); 1 - a is exact.
  const double z = 0.5 * (1.0 - a);
  const bm_dd s = bm_sqrt_dd(z);
  const double tail = 2.0 * (s.lo + (s.hi + s.lo) * z * bm_asin_p(z));
  const bm_dd h = bm_two_sum(BM_PIO2_HI, -2.0 * s.hi);
  precise double r = h.hi + (h.lo - (tail - BM_PIO2_LO));
  return x < 0.0 ? -r : r;
}

double b_acos(double x) {
  if (isnan(x)) return x;
  const double a = abs(x);
  if (a > 1.0) return F64_NAN;
  // The hi + lo constants are combined in `precise` sums, which no optimiser may regroup.
  if (a <= 0.5) {
    const double z = x * x;
    precise double r = BM_PIO2_HI - (x - (BM_PIO2_LO - x * z * bm_asin_p(z)));
    return r;
  }
  const double z = 0.5 * (1.0 - a);
  const bm_dd s = bm_sqrt_dd(z);
  const double tail = s.lo + (s.hi + s.lo) * z * bm_asin_p(z);  // asin(sqrt(z)) - s.hi
  if (x > 0.0) return 2.0 * (s.hi + tail);                         // 2 asin(sqrt((1 - x) / 2))
  precise double r = BM_PI_HI - 2.0 * (s.hi + (tail - 0.5 * BM_PI_LO));  // pi - 2 asin(sqrt((1 + x) / 2))
  return r;
}

// ---- atan, atan2 ----
// atan(u) == u + u z A(z), z = u^2, |u| <= 7/16.
double bm_atan_a(double z) {
  return -0.3333333333333333 +
         z * (0.19999999999999404 +
              z * (-0.14285714285565465 +
                   z * (0.111111110965279 +
                        z * (-0.09090908350382436 +
                             z * (0.07692285419714515 +
                                  z * (-0.06666239748865294 +
                                       z * (0.05876924062763387 +
                                            z * (-0.05216532007308444 +
                                                 z * (0.044916556747777434 +
                                                      z * (-0.033114228762660534 + z * 0.014759380407779155))))))))));
}

// atan(a + da) == hi + lo for a >= 0 (finite or inf) and a tail da below an ulp of a: atan(c) + atan(u)
// with u = (a - c) / (1 + a c), c in {0, 1/2, 1, 3/2, inf} by the interval of a, |u| <= 7/16; hi is
// atan(c)'s leading part, so that atan2 can subtract it from pi exactly.
bm_dd bm_atan_parts(double a, double da) {
  if (a >= 7.378697629483821e19) return bm_dd(BM_PIO2_HI, BM_PIO2_LO);  // 2^66
  double u, off_hi, off_lo;
  if (a < 0.4375) {
    u = a;
    off_hi = 0.0;
    off_lo = 0.0;
  } else if (a < 0.6875) {
    u = (2.0 * a - 1.0) / (2.0 + a);
    off_hi = 0.4636476090008061;  // atan(1/2)
    off_lo = 2.2698777452961687e-17;
  } else if (a < 1.1875) {
    u = (a - 1.0) / (a + 1.0);
    off_hi = 0.7853981633974483;  // pi/4
    off_lo = 3.061616997868383e-17;
  } else if (a < 2.4375) {
    u = (2.0 * a - 3.0) / (2.0 + 3.0 * a);
    off_hi = 0.982793723247329;  // atan(3/2)
    off_lo = 1.3903311031230998e-17;
  } else {
    u = -1.0 / a;
    off_hi = BM_PIO2_HI;
    off_lo = BM_PIO2_LO;
  }
  const double z = u * u;
  // The tail moves atan by da / (1 + a^2); a^2 may overflow, which makes the term 0 as it should.
  const double tail = da / (1.0 + a * a);
  precise double lo = u + (u * z * bm_atan_a(z) + (off_lo + tail));
  return bm_dd(off_hi, lo);
}

double b_atan(double x) {
  if (isnan(x)) return x;
  if (abs(x) < 7.450580596923828e-09) return x;  // 2^-27
  const bm_dd p = bm_atan_parts(abs(x), 0.0);
  precise double r = p.hi + p.lo;
  return x < 0.0 ? -r : r;
}

// C's atan2 (Annex F special cases), atan2(y, x) for the point (x, y).
double b_atan2(double y, double x) {
  if (isnan(x) || isnan(y)) return x + y;
  const bool yneg = (doubleBitsToUint64(y) >> 63) != 0ul;
  const bool xneg = (doubleBitsToUint64(x) >> 63) != 0ul;
  const double ay = abs(y);
  const double ax = abs(x);
  double r;
  if (ay == 0.0) {
    r = xneg ? BM_PI_HI : 0.0;
  } else if (isinf(ay)) {
    r = isinf(ax) ? (xneg ? BM_3PIO4 : BM_PIO4) : BM_PIO2_HI;
  } else if (ax == 0.0) {
    r = BM_PIO2_HI;
  } else if (isinf(ax)) {
    r = xneg ? BM_PI_HI : 0.0;
  } else {
    // atan(ay / ax) with the quotient's rounding error fed back: q + dq == ay / ax to ~2^-106 where the
    // products of the correction neither overflow nor underflow (elsewhere the quotient's rounding is
    // all there is, or does not matter).
    const double q = ay / ax;
    double dq = 0.0;
    if (q > 1e-290 && q < 1e290 && ax < 1e290 && ay > 1e-290) {
      const bm_dd p = bm_two_prod(q, ax);
      precise double residual = (ay - p.hi) - p.lo;
      dq = residual / ax;
    }
    if (q < 2.2250738585072014e-308 && !xneg) {
      r = q;  // atan(q) == q here
    } else {
      // atan(q) == hi + lo; pi - atan(q) keeps both parts (two_sum makes pi - hi exact).
      const bm_dd p = bm_atan_parts(q, dq);
      const bm_dd t = bm_two_sum(BM_PI_HI, -p.hi);
      precise double direct = p.hi + p.lo;
      precise double flipped = t.hi + ((t.lo + BM_PI_LO) - p.lo);
      r = xneg ? flipped : direct;
    }
  }
  return yneg ? -r : r;
}

// ---- erf ----
double b_erf(double x) {
  if (isnan(x)) return x;
  const double a = abs(x);
  if (a < 0.84375) {
    // erf(x) == x + x E0(x^2)
    const double z = x * x;
    const double e0 = 0.1283791670955126 +
                      z * (-0.3761263890318375 +
                           z * (0.11283791670954745 +
                                z * (-0.026866170645031 +
                                     z * (0.005223977624080742 +
                                          z * (-0.000854832691425112 +
                                               z * (0.00012055327421282683 +
                                                    z * (-1.4925463570287675e-05 +
                                                         z * (1.6457914349746103e-06 +
                                                              z * (-1.630309508468887e-07 +
                                                                   z * (1.4205594850504056e-08 +
                                                                        z * -8.879702704985848e-10))))))))));
    return x + x * e0;
  }
  double r;
  if (a < 1.25) {
    // erf(a) == C1 + E1(a - 1), a - 1 exact
    const double s = a - 1.0;
    const double e1 =
        -2.5281614226004374e-17 +
        s * (0.4151074974205947 +
             s * (-0.4151074974205935 +
                  s * (0.13836916580686642 +
                       s * (0.06918458290293396 +
                            s * (-0.06918458290289049 +
                                 s * (0.004612305602586737 +
                                      s * (0.015154717952365138 +
                                           s * (-0.004777035856883553 +
                                                s * (-0.0018851667279788675 +
                                                     s * (0.0012264355237814905 +
                                                          s * (8.461871552376003e-05 +
                                                               s * (-0.00020086312275290722 +
                                                                    s * 3.1933346569686056e-05))))))))))));
    precise double v = 0.8427007929497149 + e1;
    r = v;
  } else if (a >= 6.0) {
    r = 1.0;
  } else {
    // erf(a) == 1 - e^(-a^2) erfcx(a), erfcx fitted in three pieces; a^2 kept exact as a double-double.
    double g;
    if (a < 2.5) {
      const double s = a - 1.875;
      g = 0.2694299851646704 +
          s * (-0.11801672272799829 +
               s * (0.048148630049673465 +
                    s * (-0.018492027589918476 +
                         s * (0.006738039159301632 +
                              s * (-0.0023432816660799187 +
                                   s * (0.0007814620114456205 +
                                        s * (-0.0002508686908053884 +
                                             s * (7.777080873157675e-05 +
                                                  s * (-2.3344037678729828e-05 +
                                                       s * (6.800112888481204e-06 +
                                                            s * (-1.926424679421288e-06 +
                                                                 s * (5.314956137333542e-07 +
                                                                      s * (-1.4229947265883442e-07 +
                                                                           s * (3.742854093498199e-08 +
                                                                                s * (-1.072521230854785e-08 +
                                                                                     s * 2.6892969265628098e-09)))))))))))))));
    } else if (a < 4.0) {
      const double s = a - 3.25;
      g = 0.16633534842682265 +
          s * (-0.047199402321170536 +
               s * (0.01293729088288317 +
                    s * (-0.003435471300879913 +
                         s * (0.0008860045813692623 +
                              s * (-0.00022238257035434286 +
                                   s * (5.4420368004729355e-05 +
                                        s * (-1.3004631902462797e-05 +
                                             s * (3.0390383814543568e-06 +
                                                  s * (-6.95250370654345e-07 +
                                                       s * (1.5534713794770728e-07 +
                                                            s * (-3.418039920957254e-08 +
                                                                 s * (8.085890688639206e-09 +
                                                                      s * -1.7114559998816244e-09))))))))))));
    } else {
      const double s = a - 5.0;
      g = 0.11070463773306863 +
          s * (-0.02133278889724187 +
               s * (0.004040688762562392 +
                    s * (-0.0007529083568184031 +
                         s * (0.00013810436854186646 +
                              s * (-2.4912564214536956e-05 +
                                   s * (4.437361871085046e-06 +
                                        s * (-8.349948024549331e-07 + s * 1.444700332488069e-07)))))));
    }
    const bm_dd sq = bm_two_prod(a, a);
    r = 1.0 - bm_exp_dd(-sq.hi, -sq.lo) * g;
  }
  return x < 0.0 ? -r : r;
}

// ---- pow ----
// log(x) as a double-double to about 2^-64 relative, for finite x > 0: with s = f / (2 + f) held as a
// double-double, log1p(f) = 2s + (2/3) s^3 + s^5 M(s^2), the first two terms in double-double.
bm_dd bm_log_dd(double x) {
  const bm_frexp d = bm_split_exponent(x);
  const double f = d.m - 1.0;
  const bm_dd den = bm_two_sum(2.0, f);
  const double sh = f / den.hi;
  const bm_dd p = bm_two_prod(sh, den.hi);
  precise double residual = ((f - p.hi) - p.lo) - sh * den.lo;
  const double sl = residual / den.hi;
  const double z = sh * sh;
  const double m = 0.4 +
                   z * (0.2857142857142937 +
                        z * (0.22222222221652765 +
                             z * (0.18181818336099848 +
                                  z * (0.1538459488700718 +
                                       z * (0.1333480879881234 + z * (0.11706126464563398 + z * 0.11724327060846747))))));
  // s^3 = sh^3 + 3 sh^2 sl
  const bm_dd s2 = bm_two_prod(sh, sh);
  const bm_dd s3 = bm_two_prod(s2.hi, sh);
  const double s3lo = s3.lo + s2.lo * sh + 3.0 * s2.hi * sl;
  // (2/3) s^3 with 2/3 == C + c
  const bm_dd t3 = bm_two_prod(s3.hi, 0.6666666666666666);
  const double t3lo = t3.lo + (s3lo * 0.6666666666666666 + s3.hi * 3.700743415417188e-17);
  const double t5 = s3.hi * z * m;
  // e ln2 + 2s + t3 + t5, largest first
  const double e = double(d.e);
  const bm_dd a = bm_two_sum(e * BM_LN2_HI, 2.0 * sh);
  const bm_dd b = bm_two_sum(a.hi, t3.hi);
  const double lo = a.lo + b.lo + (2.0 * sl + (t3lo + (t5 + e * BM_LN2_LO)));
  return bm_fast_two_sum(b.hi, lo);
}

// x^y for finite x > 0, x != 1, finite y != 0: e^(y log x) with y log x as a double-double.
double bm_pow_pos(double x, double y) {
  if (x == 1.0) return 1.0;
  // |y| >= 2^64 makes |y log x| > 2000 for every double x != 1.
  if (abs(y) >= 1.8446744073709552e19) return ((x < 1.0) == (y < 0.0)) ? F64_INF : 0.0;
  const bm_dd l = bm_log_dd(x);
  const bm_dd p = bm_two_prod(y, l.hi);
  const double plo = p.lo + y * l.lo;
  if (p.hi > 710.0) return F64_INF;
  if (p.hi < -746.0) return 0.0;
  const bm_dd yl = bm_fast_two_sum(p.hi, plo);
  return bm_exp_dd(yl.hi, yl.lo);
}

// C's pow (Annex F special cases): what std::pow gives the cpu backend (elementwise_fns.hpp pow_of).
double b_pow(double x, double y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (isnan(x) || isnan(y)) return x + y;
  const double ay = abs(y);
  const bool yint = trunc(y) == y;
  const bool yodd = yint && ay < 9007199254740992.0 && trunc(0.5 * y) != 0.5 * y;
  const bool xneg = (doubleBitsToUint64(x) >> 63) != 0ul;
  if (isinf(y)) {
    const double ax = abs(x);
    if (ax == 1.0) return 1.0;
    return ((ax < 1.0) == (y < 0.0)) ? F64_INF : 0.0;
  }
  if (x == 0.0) {
    const double r = y < 0.0 ? F64_INF : 0.0;
    return (yodd && xneg) ? -r : r;
  }
  if (isinf(x)) {
    const double r = y < 0.0 ? 0.0 : F64_INF;
    return (yodd && xneg) ? -r : r;
  }
  if (xneg && !yint) return F64_NAN;  // a negative base to a non-integer power
  const double r = bm_pow_pos(abs(x), y);
  return (xneg && yodd) ? -r : r;
}

// ---- round ----
// Round half to even, as torch.round. Not GLSL's roundEven: lavapipe (Mesa 22) rounds the halves of
// doubles toward zero. Adding and subtracting 2^52 rounds |x| < 2^52 to an integer in the default mode.
double b_round(double x) {
  const double a = abs(x);
  if (!(a < 4503599627370496.0)) return x;  // 2^52 and above are integers; NaN, inf
  precise double r = (a + 4503599627370496.0) - 4503599627370496.0;
  return (doubleBitsToUint64(x) >> 63) != 0ul ? -r : r;
}

// ---- fmod, remainder ----
// C's fmod, exact: with a = ma 2^ea and b = mb 2^eb (integer significands), a mod b is
// (ma 2^(ea - eb) mod mb) 2^eb, computed 11 bits of the exponent difference at a time.
double b_fmod(double a, double b) {
  if (isnan(a) || isnan(b) || isinf(a) || b == 0.0) return F64_NAN;
  const double aa = abs(a);
  const double ab = abs(b);
  if (isinf(b) || aa < ab) return a;
  uint64_t ba = doubleBitsToUint64(aa);
  uint64_t bb = doubleBitsToUint64(ab);
  int ea = int(ba >> 52);
  int eb = int(bb >> 52);
  uint64_t ma = ba & 0x000ffffffffffffful;
  uint64_t mb = bb & 0x000ffffffffffffful;
  if (ea == 0) {
    ea = 1;  // subnormal: no implicit bit, the exponent of the smallest normal
  } else {
    ma |= 0x0010000000000000ul;
  }
  if (eb == 0) {
    eb = 1;
  } else {
    mb |= 0x0010000000000000ul;
  }
  uint64_t r = ma % mb;
  for (int d = ea - eb; d > 0;) {
    const int chunk = min(d, 11);  // r < 2^53, so r << 11 fits
    r = (r << chunk) % mb;
    d -= chunk;
  }
  const double v = bm_ldexp(double(r), eb - 1075);  // exact: a multiple of b's ulp below |b|
  return a < 0.0 ? -v : v;
}

// PyTorch's remainder: the sign of the divisor.
double b_remainder(double a, double b) {
  const double r = b_fmod(a, b);
  return (r != 0.0 && ((r < 0.0) != (b < 0.0))) ? r + b : r;
}

// The activations' helpers (math.glsl's macro), in double.
BURN_ACTIVATION_OPS(double, 0.79788456080286535588, 0.044715)

#endif  // HAS_F64
