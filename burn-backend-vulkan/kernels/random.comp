// random: element i of a contiguous Y drawn from Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC11) with counter (i, attempt, 0) and the 64-bit key the host drew
// from the backend's seeded generator, so the values do not depend on the grid. KIND (host define):
//  UNIFORM_FLOAT: a + (b - a) * u, u in [0, 1) from 24 (R_T float) or 53 (double) bits; a value that
//                 rounds up to b in Y's dtype becomes `top`, the largest value below b.
//  UNIFORM_INT:   lo + r mod range, r 64 bits, draws below 2^64 mod range rejected (no modulo bias).
//  NORMAL:        a + b * z, z from Box-Muller on the pair of elements (2p, 2p + 1) (cos, sin).
//  BERNOULLI:     1 when 53 random bits are below threshold = ceil(p * 2^53), else 0.
// Integer dtypes take the value truncated toward zero and saturated to [sat_lo, sat_hi] (NaN -> 0);
// bool stores value != 0 (TO_BOOL).
#define KIND_UNIFORM_FLOAT 1
#define KIND_UNIFORM_INT 2
#define KIND_NORMAL 3
#define KIND_BERNOULLI 4

layout(push_constant) uniform Push {
  ADDR Y;
  int64_t n;
  uint key0;
  uint key1;
  uint64_t a_bits;  // R_T bits of a (uniform low, normal mean)
  uint64_t b_bits;  // R_T bits of b (uniform high, normal std)
  uint64_t top_bits;
  int64_t lo;
  uint64_t range;
  uint64_t threshold;  // UNIFORM_INT: 2^64 mod range; BERNOULLI: ceil(p * 2^53)
  int64_t sat_lo;
  int64_t sat_hi;
} pc;

#ifdef R_F64
#define R_T double
#define R_DECODE(bits) uint64BitsToDouble(bits)
#else
#define R_T float
#define R_DECODE(bits) uintBitsToFloat(uint(bits))
#endif

// One Philox4x32-10 block: ten rounds of two 32x32->64 multiplies (hi and lo halves) and xors, the key
// bumped by the Weyl constants between rounds.
uvec4 philox4x32_10(uvec4 c, uint k0, uint k1) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t(0xD2511F53u) * uint64_t(c.x);
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * uint64_t(c.z);
    c = uvec4(uint(p1 >> 32) ^ c.y ^ k0, uint(p1), uint(p0 >> 32) ^ c.w ^ k1, uint(p0));
  }
  return c;
}

uvec4 block(int64_t i, uint attempt) {
  return philox4x32_10(uvec4(uint(uint64_t(i)), uint(uint64_t(i) >> 32), attempt, 0u), pc.key0, pc.key1);
}

// u in [0, 1) from two words (53 bits for double, 24 for float).
R_T unit(uint hi, uint lo) {
#ifdef R_F64
  return double((uint64_t(hi) << 21) | uint64_t(lo >> 11)) * 1.1102230246251565e-16;  // 2^-53
#else
  return float(hi >> 8) * 5.9604645e-08;  // 2^-24
#endif
}

R_T value(int64_t i) {
  const R_T a = R_DECODE(pc.a_bits), b = R_DECODE(pc.b_bits);
#if KIND == KIND_UNIFORM_FLOAT
  const uvec4 w = block(i, 0u);
  return a + (b - a) * unit(w.x, w.y);
#elif KIND == KIND_NORMAL
  // Both elements of pair p draw the same block: u1 in (0, 1] so log(u1) is finite; computed in R_T with
  // the dialect's math (kernels/math*.glsl), so f64 normals have f64 precision.
  const uvec4 w = block(i >> 1, 0u);
  const R_T u1 = R_T(1) - unit(w.x, w.y);
  const R_T u2 = unit(w.z, w.w);
  const R_T r = sqrt(R_T(-2) * b_log(u1));
  const R_T t = R_T(6.283185307179586476925286766559) * u2;
  const R_T z = (i & 1) == 0 ? r * b_cos(t) : r * b_sin(t);
  return a + b * z;
#elif KIND == KIND_BERNOULLI
  const uvec4 w = block(i, 0u);
  const uint64_t bits53 = (uint64_t(w.x) << 21) | uint64_t(w.y >> 11);
  return bits53 < pc.threshold ? R_T(1) : R_T(0);
#else
  return R_T(0);
#endif
}

#if KIND == KIND_UNIFORM_INT
int64_t int_value(int64_t i) {
  for (uint attempt = 0u;; ++attempt) {
    const uvec4 w = block(i, attempt);
    const uint64_t r0 = (uint64_t(w.x) << 32) | uint64_t(w.y);
    if (r0 >= pc.threshold) return pc.lo + int64_t(r0 % pc.range);
    const uint64_t r1 = (uint64_t(w.z) << 32) | uint64_t(w.w);
    if (r1 >= pc.threshold) return pc.lo + int64_t(r1 % pc.range);
  }
  return pc.lo;
}
#endif

void main() {
  for (idx_t i = gid(); i < idx_t(pc.n); i += gstride()) {
#if KIND == KIND_UNIFORM_INT
    const int64_t v = int_value(int64_t(i));
#ifdef TO_BOOL
    STORE(Y, i, v != 0 ? 1u : 0u);
#else
    STORE(Y, i, CVT(Y_C, v));
#endif
#else
    const R_T v = value(int64_t(i));
#if defined(TO_BOOL)
    STORE(Y, i, v != R_T(0) ? 1u : 0u);
#elif defined(TO_INT)
    const R_T t = isnan(v) ? R_T(0) : trunc(v);
    const int64_t s = t <= R_T(pc.sat_lo) ? pc.sat_lo : t >= R_T(pc.sat_hi) ? pc.sat_hi : int64_t(t);
    STORE(Y, i, CVT(Y_C, s));
#else
    // Rounded to Y's dtype first: a value that rounds up to the bound b is replaced by `top`.
    Y_C y = CVT(Y_C, CVT(Y_T, v));
#if KIND == KIND_UNIFORM_FLOAT
    if (y >= CVT(Y_C, R_DECODE(pc.b_bits))) y = CVT(Y_C, R_DECODE(pc.top_bits));
#endif
    STORE(Y, i, y);
#endif
#endif
  }
}
