#!/usr/bin/env python3
"""Fits the polynomial coefficients of kernels/math.glsl (f32) and kernels/math_f64.glsl (f64).

Each approximation is a Chebyshev fit (mpmath.chebyfit, near minimax) of a smooth function on the
reduced interval its kernel uses, rounded to the target precision. For each one the script raises the
degree until the rounded polynomial's error, weighted as the kernel uses it, is below the target, and
prints the coefficients (lowest degree first, as the kernels evaluate them with Horner's rule).

    python3 burn-backend-vulkan/tools/fit_math.py          # needs mpmath (Debian: python3-mpmath)

The kernels were written from this script's output; rerunning it prints the same numbers.
"""
import struct

import mpmath as mp

mp.mp.dps = 40


def round_to(x, bits):
    """x rounded to the nearest float (bits=24) or double (bits=53)."""
    if bits == 53:
        return mp.mpf(float(x))
    return mp.mpf(struct.unpack("f", struct.pack("f", float(x)))[0])


def fmt(x, bits):
    if bits == 53:
        return repr(float(x))
    f = struct.unpack("f", struct.pack("f", float(x)))[0]
    return ("%.9g" % f) + "f"


def fit(name, f, a, b, weight, bits, target, center=0, max_n=40):
    """The lowest-degree rounded Chebyshev fit of f on [a, b], as a polynomial in x - center, whose error
    times weight(x) stays below target on a dense grid; weight maps the polynomial's absolute error to the
    kernel's relative error."""
    c = mp.mpf(center)
    grid = [a + (b - a) * mp.mpf(i) / 400 for i in range(401)]
    for n in range(3, max_n):
        poly = mp.chebyfit(lambda u: f(u + c), [a - c, b - c], n)
        coeffs = [round_to(k, bits) for k in poly]  # highest degree first
        err = max(abs(mp.polyval(coeffs, x - c) - f(x)) * weight(x) for x in grid)
        if err < target:
            low_first = list(reversed(coeffs))
            print("// %s: degree %d on [%s, %s] in x - %s, weighted error %.3g"
                  % (name, n - 1, mp.nstr(a, 6), mp.nstr(b, 6), mp.nstr(c, 6), float(err)))
            print("  " + ", ".join(fmt(c, bits) for c in low_first))
            return low_first
    raise RuntimeError(name + ": no fit")


def series_guard(f, z0_value):
    """f(z) with its limit at z == 0 (Chebyshev nodes never hit it, the error grid does)."""
    return lambda z: z0_value if z == 0 else f(z)


LN2_HALF = mp.log(2) / 2 + mp.mpf("0.002")  # |r| after exp's reduction, with slack for rounding of k
PIO4 = mp.pi / 4 + mp.mpf("0.001")


def fits(bits):
    eps = mp.mpf(2) ** (-(bits + 3))  # kernel target: a fraction of an ulp
    print("// ---- %s ----" % ("double" if bits == 53 else "float"))
    # exp/expm1: e^r = 1 + r + r^2 Q(r); Q's error enters the result as r^2 * err.
    fit("exp Q(r) = (e^r - 1 - r) / r^2", series_guard(lambda r: (mp.exp(r) - 1 - r) / r**2, mp.mpf(1) / 2),
        -LN2_HALF, LN2_HALF, lambda r: r * r, bits, eps)
    # log: log1p(f) = 2 atanh(s), s = f / (2 + f), |s| <= 3 - 2 sqrt(2); 2 atanh(s) = 2s + s z L(z), z = s^2.
    smax2 = (3 - 2 * mp.sqrt(2)) ** 2 * mp.mpf("1.001")
    L = series_guard(lambda z: (2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2) / z, mp.mpf(2) / 3)
    fit("log L(z) = (2 atanh(s)/s - 2) / s^2", L, mp.mpf(0), smax2, lambda z: z / 2, bits, eps)
    # pow's log: 2 atanh(s) = 2s + (2/3) s^3 + s^5 M(z) with M = (L - 2/3) / z, to 2^-(bits+8) relative.
    M = series_guard(lambda z: (L(z) - mp.mpf(2) / 3) / z, mp.mpf(2) / 5)
    fit("pow M(z) = (L(z) - 2/3) / z", M, mp.mpf(0), smax2, lambda z: z * z / 2, bits, eps / 2**8)
    # sin(r) = r + r z S(z), cos(r) = 1 - z/2 + z^2 C(z), |r| <= pi/4.
    z4 = PIO4**2
    fit("sin S(z)", series_guard(lambda z: (mp.sin(mp.sqrt(z)) / mp.sqrt(z) - 1) / z, -mp.mpf(1) / 6),
        mp.mpf(0), z4, lambda z: z, bits, eps)
    fit("cos C(z)", series_guard(lambda z: (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z**2, mp.mpf(1) / 24),
        mp.mpf(0), z4, lambda z: z * z / mp.cos(mp.sqrt(z)), bits, eps)
    # sinh(x) = x + x z H(z), |x| < 1; tanh(x) = x + x z T(z), |x| < 0.55.
    fit("sinh H(z)", series_guard(lambda z: (mp.sinh(mp.sqrt(z)) / mp.sqrt(z) - 1) / z, mp.mpf(1) / 6),
        mp.mpf(0), mp.mpf(1), lambda z: z, bits, eps)
    fit("tanh T(z)", series_guard(lambda z: (mp.tanh(mp.sqrt(z)) / mp.sqrt(z) - 1) / z, -mp.mpf(1) / 3),
        mp.mpf(0), mp.mpf("0.55") ** 2, lambda z: z, bits, eps)
    # asin(x) = x + x z P(z), |x| <= 1/2.
    fit("asin P(z)", series_guard(lambda z: (mp.asin(mp.sqrt(z)) / mp.sqrt(z) - 1) / z, mp.mpf(1) / 6),
        mp.mpf(0), mp.mpf(1) / 4, lambda z: z, bits, eps)
    # atan(u) = u + u z A(z), |u| <= 7/16.
    fit("atan A(z)", series_guard(lambda z: (mp.atan(mp.sqrt(z)) / mp.sqrt(z) - 1) / z, -mp.mpf(1) / 3),
        mp.mpf(0), (mp.mpf(7) / 16) ** 2 * mp.mpf("1.001"), lambda z: z, bits, eps)
    # erf(x) = x + x E0(z), |x| < 0.84375.
    x0 = mp.mpf("0.84375")
    fit("erf E0(z)", series_guard(lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z) - 1, 2 / mp.sqrt(mp.pi) - 1),
        mp.mpf(0), x0**2, lambda z: 1, bits, eps)
    # erf(1 + s) = C1 + E1(s) on [0.84375, 1.25]; C1 is erf(1) rounded, E1 absorbs the rounding.
    c1 = round_to(mp.erf(1), bits)
    print("// erf C1 = %s" % fmt(c1, bits))
    fit("erf E1(s)", lambda x: mp.erf(x) - c1, x0, mp.mpf("1.25"), lambda x: 1 / mp.erf(x), bits, eps, center=1)
    # erf(x) = 1 - exp(-x^2) erfcx(x) on [1.25, 6] (f32: [1.25, 4]); erfcx(x) = exp(x^2) erfc(x) is entire,
    # fitted in pieces centred so that x - centre is exact.
    erfcx = lambda x: mp.erfc(x) * mp.exp(x * x)
    erf_w = lambda x: mp.exp(-x * x) / mp.erf(x)  # absolute error of erfcx -> relative error of erf
    pieces = [(1.25, 2.5, 1.875), (2.5, 4, 3.25)] + ([(4, 6, 5)] if bits == 53 else [])
    for a, b, c in pieces:
        fit("erfcx piece", erfcx, mp.mpf(a), mp.mpf(b), erf_w, bits, eps, center=c)


def two_over_pi_limbs(n):
    """The first 32 n bits of 2/pi after the binary point, as 32-bit limbs."""
    mp.mp.dps = 32 * n // 3 + 40
    v = 2 / mp.pi
    limbs = []
    for _ in range(n):
        v *= 2**32
        d = int(mp.floor(v))
        limbs.append(d)
        v -= d
    mp.mp.dps = 40
    return limbs


def split_constant(name, value, chunk_bits, parts, bits):
    """value as `parts` numbers of chunk_bits significant bits each, the last rounded to the full precision."""
    out = []
    rest = mp.mpf(value)
    for i in range(parts):
        if i == parts - 1:
            c = round_to(rest, bits)
        else:
            e = mp.floor(mp.log(abs(rest), 2))
            scale = mp.mpf(2) ** (chunk_bits - 1 - e)
            c = mp.floor(rest * scale + mp.mpf(1) / 2) / scale
        out.append(c)
        rest -= c
    print("// %s in %d parts: %s" % (name, parts, ", ".join(fmt(c, bits) for c in out)))


if __name__ == "__main__":
    fits(53)
    fits(24)
    limbs = two_over_pi_limbs(40)
    print("// 2/pi, 32-bit limbs")
    print(", ".join("0x%08xu" % d for d in limbs))
    split_constant("pi/2 (f64 Cody-Waite)", mp.pi / 2, 33, 4, 53)
    split_constant("pi/2 (f32 Cody-Waite)", mp.pi / 2, 17, 4, 24)
    for name, v in [("pi/2", mp.pi / 2), ("pi", mp.pi), ("pi/4", mp.pi / 4), ("atan(1/2)", mp.atan(0.5)),
                    ("atan(3/2)", mp.atan(1.5)), ("ln2", mp.log(2)), ("2/3", mp.mpf(2) / 3)]:
        for bits in (53, 24):
            hi = round_to(v, bits)
            lo = round_to(v - hi, bits)
            print("// %s hi/lo (%d bits): %s, %s" % (name, bits, fmt(hi, bits), fmt(lo, bits)))
    split_constant("ln2 (f64, 32-bit head)", mp.log(2), 32, 2, 53)
    split_constant("ln2 (f32, 16-bit head)", mp.log(2), 16, 2, 24)
