#!/usr/bin/python3
# Writes fixtures/elementwise_composites.json (group elementwise_composites): the PyTorch references of the elementwise
# ops built from the core table: hypot, fmod / fmod_scalar, deg2rad / rad2deg, asinh / acosh / atanh,
# sign of Int tensors, maximum / minimum (max_pair / min_pair) with NaN, max_abs / max_abs_dim,
# is_close / all_close, and the composite activations (celu, glu, hard_shrink, soft_shrink, hard_swish,
# hardtanh, relu6, prelu, softsign, tanhshrink, threshold, quiet_softmax).
# Run with Debian's python3-torch: /usr/bin/python3 burn-tensor/conformance/gen_fixtures_elementwise_composites.py
#
# References that torch cannot give: fmod(INT64_MIN, -1) traps in torch (SIGFPE); C's answer 0 is used.
# quiet_softmax (Burn's, no torch op) is computed by its formula in float64.
import sys

import torch
import torch.nn.functional as F

from gen_fixtures import (INF, NAN, TRANS, Gen, Group, f32, f64, i32, i64, lbl, rand, randbool, randint, randn,
                          sampled, t)

PE23 = [{"kind": "expand", "dims": [2, 3]}]
SHAPES = [("same", [2, 3], [2, 3]), ("row", [2, 3], [3]), ("outer", [2, 1], [1, 3]), ("rank3", [4, 1, 3], [2, 1])]


def away0(*shape, dtype=f32, lo=0.3, hi=3.0):
    """|x| in [lo, hi] with a random sign."""
    s = torch.where(randbool(*shape), 1.0, -1.0).to(f64)
    return (rand(*shape, lo=lo, hi=hi, dtype=f64) * s).to(dtype)


# ============================================================================ hypot, fmod
def gen_hypot(g):
    for sn, sa, sb in SHAPES:
        for dt in [f32, f64]:
            a, b = randn(*sa, dtype=dt, scale=3.0), randn(*sb, dtype=dt, scale=3.0)
            g.add(f"hypot_{sn}_{lbl(dt)}", "hypot", "hypot", [a, b], torch.hypot(a, b), torch_expr="torch.hypot(a, b)")
    # no overflow or underflow of the squares; inf wins over NaN
    a = t([3e38, 2e38, 1e-30, 1e-40, 0.0, -0.0, INF, NAN, -INF, NAN, 3.0, 1e38], f32)
    b = t([1e38, 2e38, 1e-30, 1e-40, 0.0, 5.0, NAN, INF, 1.0, 1.0, -4.0, 1e-38], f32)
    g.add("hypot_edges_f32", "hypot", "hypot", [a, b], torch.hypot(a, b), torch_expr="torch.hypot(a, b): no overflow, inf beats nan")
    a = t([1e300, 1e-300, 5e-324, INF, 0.0, -3.0], f64)
    b = t([1e300, 1e-300, 5e-324, NAN, 0.0, 4.0], f64)
    g.add("hypot_edges_f64", "hypot", "hypot", [a, b], torch.hypot(a, b), torch_expr="torch.hypot(a, b)")
    a, b = t([1e-30, 3e-25, 2e38, 1e-20, 5.0], f32), t([1e-30, -4e-25, 2e38, 1e20, 1e-20], f32)
    g.add("hypot_relative_f32", "hypot", "hypot", [a, b], torch.hypot(a, b), atol=0.0, rtol=1e-6,
          torch_expr="torch.hypot(a, b): relative accuracy where the squares under- or overflow")
    a, b = randn(3, 2), randn(2, 3)
    g.add("hypot_transposed_f32", "hypot", "hypot", [a, b], torch.hypot(a.t(), b), pre={0: TRANS},
          torch_expr="torch.hypot(a.t(), b)")
    g.add("hypot_empty_f32", "hypot", "hypot", [torch.zeros(0, 3), torch.ones(3)], torch.zeros(0, 3),
          torch_expr="torch.hypot on [0, 3] and [3]")
    g.add("hypot_dtype_mismatch_error", "hypot", "hypot", [randn(2), randn(2, dtype=f64)], error="DTypeError",
          torch_expr="f32 with f64: burn refuses")
    g.add("hypot_int_error", "hypot", "hypot", [t([3, 4], i64), t([4, 3], i64)], error="DTypeError",
          torch_expr="Int tensors: float only")
    g.add("hypot_shape_error", "hypot", "hypot", [randn(2, 3), randn(4)], error="ShapeError",
          torch_expr="[2, 3] with [4] does not broadcast")
    x = Gen([300, 257], f32, 0.004)
    y = Gen([257], f32, 0.003, offset=0.1)
    g.add("hypot_large_f32", "hypot", "hypot", [x, y], sampled(torch.hypot(x.tensor, y.tensor)),
          torch_expr="torch.hypot(a, b), 77k elements")


def gen_fmod(g):
    # Divisors in [0.5, 4] (|b| small): the composite's r - b step then rounds below atol (see defaults).
    for sn, sa, sb in SHAPES:
        for dt in [f32, f64]:
            a, b = randn(*sa, dtype=dt, scale=4.0), away0(*sb, dtype=dt, lo=0.5, hi=4.0)
            g.add(f"fmod_{sn}_{lbl(dt)}", "fmod", "fmod", [a, b], torch.fmod(a, b), torch_expr="torch.fmod(a, b)")
        for dt in [i64, i32]:
            a, b = randint(-40, 40, *sa, dtype=dt), randint(1, 7, *sb, dtype=dt)
            b = b * torch.where(randbool(*sb), 1, -1).to(dt)
            g.add(f"fmod_{sn}_{lbl(dt)}", "fmod", "fmod", [a, b], torch.fmod(a, b), torch_expr="torch.fmod(a, b)")
    a = t([-2.0, 5.5, -5.5, 5.5, -5.5, 1.0, INF, -1.0, 0.0, -0.0, NAN, 3.0, 7.0, -7.0, 1e-6], f32)
    b = t([1.0, -2.0, 2.0, 2.0, -2.0, INF, 1.0, INF, 2.0, 2.0, 1.0, 0.0, NAN, 0.5, -3.0], f32)
    g.add("fmod_edges_f32", "fmod", "fmod", [a, b], torch.fmod(a, b),
          torch_expr="torch.fmod(a, b): sign of a, b = 0 gives nan, b = inf gives a")
    g.add("fmod_edges_f64", "fmod", "fmod", [a.to(f64), b.to(f64)], torch.fmod(a.to(f64), b.to(f64)),
          torch_expr="torch.fmod(a, b)")
    a, b = t([7, -7, 7, -7, 0, 1, -1, 2**62 + 1], i64), t([2, 2, -2, -2, 3, -3, 3, 7], i64)
    g.add("fmod_signs_i64", "fmod", "fmod", [a, b], torch.fmod(a, b), torch_expr="torch.fmod(a, b): truncating")
    g.add("fmod_signs_i32", "fmod", "fmod", [a[:7].to(i32), b[:7].to(i32)], torch.fmod(a[:7], b[:7]).to(i32),
          torch_expr="torch.fmod(a, b)")
    # torch.fmod(INT64_MIN, -1) traps (SIGFPE); C's fmod and burn give 0.
    g.add("fmod_int_min_by_minus_one_i64", "fmod", "fmod", [t([-2**63, -2**63, 5], i64), t([-1, 1, -1], i64)],
          t([0, 0, 0], i64), torch_expr="C fmod: INT64_MIN % -1 = 0 (torch traps)")
    g.add("fmod_int_min_by_minus_one_i32", "fmod", "fmod", [t([-2**31], i32), t([-1], i32)], t([0], i32),
          torch_expr="C fmod: INT32_MIN % -1 = 0")
    g.add("fmod_by_zero_i64_error", "fmod", "fmod", [t([1, 2], i64), t([1, 0], i64)], error="ValueError",
          torch_expr="int fmod by zero")
    g.add("fmod_bool_error", "fmod", "fmod", [t([True], torch.bool), t([True], torch.bool)], error="DTypeError",
          torch_expr="bool tensors")
    g.add("fmod_dtype_mismatch_error", "fmod", "fmod", [randn(2), randn(2, dtype=f64)], error="DTypeError",
          torch_expr="f32 with f64: burn refuses")
    a, b = randn(3, 2, scale=3.0), away0(2, 3, lo=0.5, hi=2.0)
    g.add("fmod_transposed_f32", "fmod", "fmod", [a, b], torch.fmod(a.t(), b), pre={0: TRANS},
          torch_expr="torch.fmod(a.t(), b)")
    a = randn(1, 3, dtype=f64, scale=3.0)
    b = away0(2, 3, dtype=f64, lo=0.5, hi=2.0)
    g.add("fmod_expanded_f64", "fmod", "fmod", [a, b], torch.fmod(a.expand(2, 3), b), pre={0: PE23},
          torch_expr="torch.fmod(a.expand(2, 3), b)")
    g.add("fmod_empty_i64", "fmod", "fmod", [torch.zeros(0, 3, dtype=i64), torch.ones(3, dtype=i64)],
          torch.zeros(0, 3, dtype=i64), torch_expr="torch.fmod on [0, 3]")
    ai, bi = Gen([70001], i64, 1), Gen([70001], i64, 2, offset=1)
    g.add("fmod_large_i64", "fmod", "fmod", [ai, bi], sampled(torch.fmod(ai.tensor, bi.tensor)),
          torch_expr="torch.fmod(a, b), 70k elements")
    x, y = Gen([300, 257], f32, 0.01), Gen([257], f32, 0.002, offset=1.5)
    g.add("fmod_large_f32", "fmod", "fmod", [x, y], sampled(torch.fmod(x.tensor, y.tensor)),
          torch_expr="torch.fmod(a, b), 77k elements")
    # fmod_scalar
    x, xd = randn(2, 3, scale=4.0), randn(2, 3, dtype=f64, scale=4.0)
    xi, xi32 = randint(-20, 20, 2, 3), randint(-20, 20, 2, 3, dtype=i32)
    g.add("fmod_scalar_f32", "fmod_scalar", "fmod_scalar", [x], torch.fmod(x, 2.5), attrs={"scalar": 2.5},
          torch_expr="torch.fmod(x, 2.5)")
    g.add("fmod_scalar_f64_negative", "fmod_scalar", "fmod_scalar", [xd], torch.fmod(xd, -1.5), attrs={"scalar": -1.5},
          torch_expr="torch.fmod(x, -1.5)")
    g.add("fmod_scalar_f32_int_scalar", "fmod_scalar", "fmod_scalar", [x], torch.fmod(x, 3.0), attrs={"scalar": 3},
          torch_expr="torch.fmod(x, 3)")
    g.add("fmod_scalar_i64_negative", "fmod_scalar", "fmod_scalar", [xi], torch.fmod(xi, -3), attrs={"scalar": -3},
          torch_expr="torch.fmod(x, -3)")
    g.add("fmod_scalar_i32", "fmod_scalar", "fmod_scalar", [xi32], torch.fmod(xi32, 4), attrs={"scalar": 4},
          torch_expr="torch.fmod(x, 4)")
    g.add("fmod_scalar_transposed_f32", "fmod_scalar", "fmod_scalar", [x], torch.fmod(x.t(), 1.25),
          attrs={"scalar": 1.25}, pre={0: TRANS}, torch_expr="torch.fmod(x.t(), 1.25)")
    g.add("fmod_scalar_zero_f32", "fmod_scalar", "fmod_scalar", [t([1.0, -1.0, 0.0], f32)], t([NAN, NAN, NAN], f32),
          attrs={"scalar": 0.0}, torch_expr="torch.fmod(x, 0.0)")
    g.add("fmod_scalar_zero_i64_error", "fmod_scalar", "fmod_scalar", [xi], error="ValueError", attrs={"scalar": 0},
          torch_expr="int fmod by zero")


# ============================================================================ unary float math
def gen_unary_float(g):
    x = randn(2, 3, dtype=f64, scale=200.0)
    for dt in [f32, f64]:
        xx = x.to(dt)
        g.add(f"deg2rad_{lbl(dt)}", "api:deg2rad", "deg2rad", [xx], torch.deg2rad(xx), torch_expr="torch.deg2rad(x)")
        g.add(f"rad2deg_{lbl(dt)}", "api:rad2deg", "rad2deg", [xx / 50], torch.rad2deg(xx / 50),
              torch_expr="torch.rad2deg(x)")
    e = t([0.0, -0.0, 180.0, -90.0, 360.0, INF, NAN], f32)
    g.add("deg2rad_edges_f32", "api:deg2rad", "deg2rad", [e], torch.deg2rad(e), torch_expr="torch.deg2rad(x)")
    g.add("rad2deg_edges_f32", "api:rad2deg", "rad2deg", [e / 100], torch.rad2deg(e / 100), torch_expr="torch.rad2deg(x)")
    g.add("deg2rad_transposed_f32", "api:deg2rad", "deg2rad", [x.to(f32)], torch.deg2rad(x.to(f32).t()),
          pre={0: TRANS}, torch_expr="torch.deg2rad(x.t())")
    g.add("deg2rad_int_error", "api:deg2rad", "deg2rad", [t([1, 2], i64)], error="DTypeError",
          torch_expr="Int tensors: burn's deg2rad is float only")
    g.add("rad2deg_int_error", "api:rad2deg", "rad2deg", [t([1, 2], i32)], error="DTypeError",
          torch_expr="Int tensors: float only")
    big, tiny = 2.0 ** 28, 2.0 ** -30
    domains = {
        "asinh": (-6, 6, [0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-4, 0.5, -0.999, 1.0, -1.0, 30.0, big, -big, 2 * big,
                          1e30, -1e30, 3e38, INF, -INF, NAN]),
        "acosh": (1, 8, [1.0, 1.0 + 1e-6, 1.0 + tiny, 1.5, 2.0, 30.0, big, 2 * big, 1e30, 3e38, INF, 0.5, 0.0, -1.0,
                         -3.0, -INF, NAN]),
        "atanh": (-0.95, 0.95, [0.0, -0.0, 1e-30, -1e-8, 1e-4, 0.5, -0.5, 0.999, -0.999, 0.99999994, -0.99999994,
                                1.0, -1.0, 1.5, -2.0, INF, NAN]),
    }
    for op, (lo, hi, edges) in domains.items():
        fn = getattr(torch, op)
        for dt in [f32, f64]:
            xx = rand(3, 4, lo=lo, hi=hi, dtype=dt)
            g.add(f"{op}_{lbl(dt)}", op, "unary", [xx], fn(xx), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
            ee = t(edges, dt)
            g.add(f"{op}_edges_{lbl(dt)}", op, "unary", [ee], fn(ee), attrs={"op": op}, torch_expr=f"torch.{op}(x)")
        xx = rand(4, 3, lo=lo, hi=hi)
        g.add(f"{op}_transposed_f32", op, "unary", [xx], fn(xx.t()), attrs={"op": op}, pre={0: TRANS},
              torch_expr=f"torch.{op}(x.t())")
        xx = rand(1, 3, lo=lo, hi=hi, dtype=f64)
        g.add(f"{op}_expanded_f64", op, "unary", [xx], fn(xx.expand(2, 3)), attrs={"op": op}, pre={0: PE23},
              torch_expr=f"torch.{op}(x.expand(2, 3))")
        g.add(f"{op}_empty_f32", op, "unary", [torch.zeros(0, 2)], fn(torch.zeros(0, 2)), attrs={"op": op},
              torch_expr=f"torch.{op}(empty)")
        g.add(f"{op}_int_error", op, "unary", [t([1, 2], i64)], error="DTypeError", attrs={"op": op},
              torch_expr="Int tensors: float only")
        # relative accuracy where naive formulas cancel (atol 0): asinh/atanh near 0, acosh near 1
        near = {"asinh": [1e-30, -1e-20, 1e-10, -1e-8, 3e-5, -1e-3, 0.25],
                "atanh": [1e-30, -1e-20, 1e-10, -1e-8, 3e-5, -1e-3, 0.25, 0.9999, -0.9999],
                "acosh": [1.0 + 2.0 ** -20, 1.0 + 2.0 ** -12, 1.0001, 1.001, 1.01, 1.5]}[op]
        for dt in [f32, f64]:
            ee = t(near, dt)
            g.add(f"{op}_relative_{lbl(dt)}", op, "unary", [ee], fn(ee), attrs={"op": op}, atol=0.0,
                  rtol=1e-6 if dt == f32 else 1e-12, torch_expr=f"torch.{op}(x) where naive formulas cancel")
        xl = Gen([300, 257], f32, 0.0009 if op == "atanh" else 0.01, offset=5.0 if op == "acosh" else 0.0)
        g.add(f"{op}_large_f32", op, "unary", [xl], sampled(fn(xl.tensor)), attrs={"op": op},
              torch_expr=f"torch.{op}(x), 77k elements")


# ============================================================================ sign, max_pair/min_pair
def gen_int_and_pairs(g):
    lo64, hi64, lo32, hi32 = -2**63, 2**63 - 1, -2**31, 2**31 - 1
    x = t([lo64, -5, -1, 0, 1, 7, hi64], i64)
    g.add("sign_extremes_i64", "sign", "unary", [x], torch.sign(x), attrs={"op": "sign"}, torch_expr="torch.sign(x)")
    x = t([lo32, -5, -1, 0, 1, 7, hi32], i32)
    g.add("sign_extremes_i32", "sign", "unary", [x], torch.sign(x), attrs={"op": "sign"}, torch_expr="torch.sign(x)")
    x = randint(-5, 6, 3, 4)
    g.add("sign_transposed_i64", "sign", "unary", [x], torch.sign(x.t()), attrs={"op": "sign"}, pre={0: TRANS},
          torch_expr="torch.sign(x.t())")
    g.add("sign_empty_i32", "sign", "unary", [torch.zeros(0, 2, dtype=i32)], torch.zeros(0, 2, dtype=i32),
          attrs={"op": "sign"}, torch_expr="torch.sign(empty)")
    xl = Gen([70001], i64, 1)
    g.add("sign_large_i64", "sign", "unary", [xl], sampled(torch.sign(xl.tensor)), attrs={"op": "sign"},
          torch_expr="torch.sign(x), 70k elements")
    g.add("sign_large_i32", "sign", "unary", [Gen([70001], i32, 1)], sampled(torch.sign(Gen([70001], i32, 1).tensor)),
          attrs={"op": "sign"}, torch_expr="torch.sign(x), 70k elements")
    # torch.maximum / torch.minimum: NaN from either side wins
    for op, fn in [("maximum", torch.maximum), ("minimum", torch.minimum)]:
        a = t([1.0, NAN, NAN, -INF, INF, 2.0, -0.0, 3.0], f64)
        b = t([NAN, 2.0, NAN, 0.0, NAN, 2.0, 0.0, -INF], f64)
        g.add(f"{op}_nan_f64", op, op, [a, b], fn(a, b), torch_expr=f"torch.{op}(a, b): nan wins")
        g.add(f"{op}_nan_both_f32", op, op, [a.to(f32), b.to(f32)], fn(a.to(f32), b.to(f32)),
              torch_expr=f"torch.{op}(a, b): nan wins")
        a, b = randn(2, 3), t([NAN], f32)
        g.add(f"{op}_nan_broadcast_f32", op, op, [a, b], fn(a, b), torch_expr=f"torch.{op}(a, nan[1])")
        g.add(f"{op}_nan_broadcast_lhs_f32", op, op, [b, a], fn(b, a), torch_expr=f"torch.{op}(nan[1], a)")
        a, b = t([lo64, hi64, -3, 4], i64), t([hi64, lo64, 3, -4], i64)
        g.add(f"{op}_extremes_i64", op, op, [a, b], fn(a, b), torch_expr=f"torch.{op}(a, b)")
        a, b = randint(-9, 9, 3, 1, dtype=i32), randint(-9, 9, 4, dtype=i32)
        g.add(f"{op}_outer_i32", op, op, [a, b], fn(a, b), torch_expr=f"torch.{op}(a, b)")
        g.add(f"{op}_bool_error", op, op, [t([True], torch.bool), t([False], torch.bool)], error="DTypeError",
              torch_expr="bool tensors: burn refuses")


# ============================================================================ max_abs
def gen_max_abs(g):
    x = randn(3, 4, 5)
    g.add("max_abs_f32", "api:max_abs", "max_abs", [x], x.abs().max().reshape(1), torch_expr="x.abs().max()")
    xd = t([[1.0, -7.5, 3.0], [6.0, 0.0, -2.0]], f64)
    g.add("max_abs_negative_f64", "api:max_abs", "max_abs", [xd], xd.abs().max().reshape(1),
          torch_expr="x.abs().max(): a negative element wins")
    xn = t([1.0, NAN, -5.0], f32)
    g.add("max_abs_nan_f32", "api:max_abs", "max_abs", [xn], t([NAN], f32), torch_expr="x.abs().max() is nan")
    xi = t([[3, -9], [4, 8]], i64)
    g.add("max_abs_i64", "api:max_abs", "max_abs", [xi], xi.abs().max().reshape(1), torch_expr="x.abs().max()")
    xm = t([-2**63, 5, -7], i64)
    g.add("max_abs_int_min_i64", "api:max_abs", "max_abs", [xm], xm.abs().max().reshape(1),
          torch_expr="x.abs().max(): abs(INT64_MIN) wraps, as torch")
    xi32 = randint(-50, 50, 4, 3, dtype=i32)
    g.add("max_abs_transposed_i32", "api:max_abs", "max_abs", [xi32], xi32.abs().max().reshape(1), pre={0: TRANS},
          torch_expr="x.t().abs().max()")
    g.add("max_abs_empty_error", "api:max_abs", "max_abs", [torch.zeros(0, 3)], error="ValueError",
          torch_expr="max of an empty tensor")
    g.add("max_abs_bool_error", "api:max_abs", "max_abs", [t([True], torch.bool)], error="DTypeError",
          torch_expr="bool tensors")
    for d in [0, 1, -1]:
        dn = f"dim{d}" if d >= 0 else "dimm1"
        g.add(f"max_abs_dim_{dn}_f32", "api:max_abs_dim", "max_abs_dim", [x], x.abs().amax(d, keepdim=True),
              attrs={"dim": d}, torch_expr=f"x.abs().amax({d}, keepdim=True)")
    g.add("max_abs_dim_i64", "api:max_abs_dim", "max_abs_dim", [xi], xi.abs().amax(1, keepdim=True), attrs={"dim": 1},
          torch_expr="x.abs().amax(1, keepdim=True)")
    xn2 = t([[1.0, NAN], [-3.0, 2.0]], f64)
    g.add("max_abs_dim_nan_f64", "api:max_abs_dim", "max_abs_dim", [xn2], t([[NAN], [3.0]], f64), attrs={"dim": 1},
          torch_expr="x.abs().amax(1, keepdim=True): nan wins")
    g.add("max_abs_dim_transposed_f32", "api:max_abs_dim", "max_abs_dim", [x[0]], x[0].t().abs().amax(0, keepdim=True),
          attrs={"dim": 0}, pre={0: TRANS}, torch_expr="x.t().abs().amax(0, keepdim=True)")
    g.add("max_abs_dim_empty_error", "api:max_abs_dim", "max_abs_dim", [torch.zeros(2, 0)], error="ValueError",
          attrs={"dim": 1}, torch_expr="max over an empty dim")
    g.add("max_abs_dim_index_error", "api:max_abs_dim", "max_abs_dim", [x], error="IndexError", attrs={"dim": 3},
          torch_expr="dim 3 of a rank-3 tensor")
    xl = Gen([300, 257], f32, 0.01)
    g.add("max_abs_dim_large_f32", "api:max_abs_dim", "max_abs_dim", [xl], xl.tensor.abs().amax(0, keepdim=True),
          attrs={"dim": 0}, torch_expr="x.abs().amax(0, keepdim=True), [300, 257]")


# ============================================================================ is_close / all_close
def gen_close(g):
    def add_close(name, a, b, rtol=1e-5, atol=1e-8, equal_nan=False, pre=None, expect=None):
        attrs = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan}
        aa = a.t() if pre else a
        ref = torch.isclose(aa, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
        g.add(f"is_close_{name}", "api:is_close", "is_close", [a, b], ref, attrs=attrs, pre={0: TRANS} if pre else None,
              torch_expr=f"torch.isclose(a, b, rtol={rtol}, atol={atol}, equal_nan={equal_nan})")
        g.add(f"all_close_{name}", "api:all_close", "all_close", [a, b],
              t([torch.allclose(aa, b, rtol=rtol, atol=atol, equal_nan=equal_nan)], torch.bool), attrs=attrs,
              pre={0: TRANS} if pre else None,
              torch_expr=f"torch.allclose(a, b, rtol={rtol}, atol={atol}, equal_nan={equal_nan})")

    a = randn(3, 4)
    noise = randn(3, 4) * 1e-5
    add_close("near_f32", a, a + noise, rtol=1e-5, atol=1e-5)
    add_close("exact_f32", a, a.clone())
    add_close("default_tol_f64", a.to(f64), (a + noise).to(f64))
    add_close("wide_f64", a.to(f64), (a + noise).to(f64), rtol=1e-3, atol=1e-4)
    add_close("zero_tol_f32", a, a + noise * t([[0.0, 1.0, 0.0, 1.0]], f32), rtol=0.0, atol=0.0)
    sp_a = t([INF, -INF, INF, NAN, NAN, 1.0, 0.0, 1e-9, 1.0, 100.0, -100.0], f32)
    sp_b = t([INF, INF, NAN, NAN, 1.0, NAN, 1e-9, 0.0, 1.0 + 1e-6, 101.0, -100.5], f32)
    add_close("special_f32", sp_a, sp_b, rtol=0.01, atol=1e-8)
    add_close("special_equal_nan_f32", sp_a, sp_b, rtol=0.01, atol=1e-8, equal_nan=True)
    add_close("special_equal_nan_f64", sp_a.to(f64), sp_b.to(f64), rtol=1e-5, atol=1e-8, equal_nan=True)
    add_close("broadcast_f32", a, a[0] + 1e-7, rtol=1e-5, atol=1e-6)
    add_close("int_i64", t([1, 2, 100, -5, 7], i64), t([1, 3, 101, -5, 9], i64), rtol=0.01, atol=0.5)
    add_close("int_i32_zero_tol", t([1, 2, 3], i32), t([1, 2, 4], i32), rtol=0.0, atol=0.0)
    add_close("int_i32_atol", randint(-5, 5, 2, 3, dtype=i32), randint(-5, 5, 2, 3, dtype=i32), rtol=0.0, atol=2.0)
    at = randn(4, 3)
    add_close("transposed_f32", at, at.t() + 2e-6, rtol=0.0, atol=1e-6, pre=True)
    add_close("empty_f32", torch.zeros(0, 3), torch.zeros(0, 3))
    for op in ["is_close", "all_close"]:
        attrs = {"rtol": 1e-5, "atol": 1e-8, "equal_nan": False}
        g.add(f"{op}_negative_rtol_error", f"api:{op}", op, [a, a], error="ValueError",
              attrs=dict(attrs, rtol=-1.0), torch_expr="rtol < 0 raises")
        g.add(f"{op}_negative_atol_error", f"api:{op}", op, [a, a], error="ValueError",
              attrs=dict(attrs, atol=-1e-8), torch_expr="atol < 0 raises")
        g.add(f"{op}_dtype_mismatch_error", f"api:{op}", op, [a, a.to(f64)], error="DTypeError", attrs=attrs,
              torch_expr="f32 with f64 raises")
        g.add(f"{op}_shape_error", f"api:{op}", op, [a, randn(3)], error="ShapeError", attrs=attrs,
              torch_expr="[3, 4] with [3] does not broadcast")
        g.add(f"{op}_bool_error", f"api:{op}", op, [t([True], torch.bool), t([True], torch.bool)], error="DTypeError",
              attrs=attrs, torch_expr="bool tensors: burn's is_close is numeric")


# ============================================================================ activations
def quiet_softmax_ref(x, d):
    xd = x.to(f64)
    m = xd.amax(d, keepdim=True)
    e = (xd - m).exp()
    return (e / (e.sum(d, keepdim=True) + (-m).exp())).to(x.dtype)


def gen_activations(g):
    edges = [NAN, INF, -INF, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 6.0, 7.5, -50.0, 50.0]
    simple = {
        "hard_swish": (F.hardswish, "F.hardswish(x)", {}),
        "relu6": (F.relu6, "F.relu6(x)", {}),
        "softsign": (F.softsign, "F.softsign(x)", {}),
        "tanhshrink": (F.tanhshrink, "F.tanhshrink(x)", {}),
    }
    for op, (fn, expr, attrs) in simple.items():
        for dt in [f32, f64]:
            x = randn(3, 4, dtype=dt, scale=4.0)
            g.add(f"{op}_{lbl(dt)}", f"api:{op}", op, [x], fn(x), attrs=attrs, torch_expr=expr)
            e = t(edges, dt)
            g.add(f"{op}_edges_{lbl(dt)}", f"api:{op}", op, [e], fn(e), attrs=attrs, torch_expr=expr + " at the edges")
        x = randn(4, 3, scale=4.0)
        g.add(f"{op}_transposed_f32", f"api:{op}", op, [x], fn(x.t()), attrs=attrs, pre={0: TRANS},
              torch_expr=expr.replace("(x", "(x.t()"))
        g.add(f"{op}_int_error", f"api:{op}", op, [t([1, 2], i64)], error="DTypeError", attrs=attrs,
              torch_expr="Int tensors: float only")
    # tanhshrink cancels near 0 in torch as in burn (same formula): small inputs only at f64
    xs = t([1e-3, -2e-3, 0.01, -0.05], f64)
    g.add("tanhshrink_small_f64", "api:tanhshrink", "tanhshrink", [xs], F.tanhshrink(xs), torch_expr="F.tanhshrink(x), small x")
    # parameterised
    for dt in [f32, f64]:
        x = randn(3, 4, dtype=dt, scale=3.0)
        e = t(edges, dt)
        for alpha in [1.0, 2.0, 0.5, -1.0]:
            an = str(alpha).replace(".", "p").replace("-", "m")
            g.add(f"celu_a{an}_{lbl(dt)}", "api:celu", "celu", [x], F.celu(x, alpha), attrs={"alpha": alpha},
                  torch_expr=f"F.celu(x, {alpha})")
        g.add(f"celu_edges_{lbl(dt)}", "api:celu", "celu", [e], F.celu(e, 2.0), attrs={"alpha": 2.0},
              torch_expr="F.celu(x, 2.0) at the edges")
        for lam in [0.5, 1.0, 0.0]:
            ln = str(lam).replace(".", "p")
            g.add(f"hard_shrink_l{ln}_{lbl(dt)}", "api:hard_shrink", "hard_shrink", [e], F.hardshrink(e, lam),
                  attrs={"lambda": lam}, torch_expr=f"F.hardshrink(x, {lam}): |x| = lambda gives 0")
            g.add(f"soft_shrink_l{ln}_{lbl(dt)}", "api:soft_shrink", "soft_shrink", [e], F.softshrink(e, lam),
                  attrs={"lambda": lam}, torch_expr=f"F.softshrink(x, {lam}): nan gives 0, as torch")
        g.add(f"hard_shrink_negative_lambda_{lbl(dt)}", "api:hard_shrink", "hard_shrink", [x], F.hardshrink(x, -1.0),
              attrs={"lambda": -1.0}, torch_expr="F.hardshrink(x, -1): keeps everything")
        g.add(f"soft_shrink_{lbl(dt)}", "api:soft_shrink", "soft_shrink", [x], F.softshrink(x, 0.5),
              attrs={"lambda": 0.5}, torch_expr="F.softshrink(x, 0.5)")
        for lo, hi in [(-1.0, 1.0), (-2.0, 0.5), (1.0, -1.0), (0.0, 0.0)]:
            nm = f"{lo}_{hi}".replace(".", "p").replace("-", "m")
            g.add(f"hardtanh_{nm}_{lbl(dt)}", "api:hardtanh", "hardtanh", [e], F.hardtanh(e, lo, hi),
                  attrs={"min": lo, "max": hi}, torch_expr=f"F.hardtanh(x, {lo}, {hi}): max wins when min > max")
        for th, v in [(0.5, -7.0), (0.0, 0.0), (-1.0, 2.5)]:
            nm = f"{th}_{v}".replace(".", "p").replace("-", "m")
            g.add(f"threshold_{nm}_{lbl(dt)}", "api:threshold", "threshold", [e], F.threshold(e, th, v),
                  attrs={"threshold": th, "value": v}, torch_expr=f"F.threshold(x, {th}, {v}): x <= threshold gives value")
        g.add(f"threshold_random_{lbl(dt)}", "api:threshold", "threshold", [x], F.threshold(x, 0.1, 20.0),
              attrs={"threshold": 0.1, "value": 20.0}, torch_expr="F.threshold(x, 0.1, 20)")
        # glu
        x3 = randn(2, 4, 6, dtype=dt)
        for d in [0, 1, 2, -1]:
            dn = f"dim{d}" if d >= 0 else "dimm1"
            g.add(f"glu_{dn}_{lbl(dt)}", "api:glu", "glu", [x3], F.glu(x3, d), attrs={"dim": d}, torch_expr=f"F.glu(x, {d})")
        # prelu
        x4 = randn(2, 3, 4, 2, dtype=dt, scale=2.0)
        w3 = t([0.25, -0.5, 2.0], dt)
        g.add(f"prelu_channels_4d_{lbl(dt)}", "api:prelu", "prelu", [x4, w3], F.prelu(x4, w3),
              torch_expr="F.prelu(x [2, 3, 4, 2], w [3])")
        g.add(f"prelu_single_{lbl(dt)}", "api:prelu", "prelu", [x4, t([0.1], dt)], F.prelu(x4, t([0.1], dt)),
              torch_expr="F.prelu(x, w [1])")
        x2 = randn(5, 3, dtype=dt)
        g.add(f"prelu_channels_2d_{lbl(dt)}", "api:prelu", "prelu", [x2, w3], F.prelu(x2, w3),
              torch_expr="F.prelu(x [5, 3], w [3])")
        x1 = t([-2.0, -0.5, 0.0, 1.5, NAN, -INF, INF], dt)
        g.add(f"prelu_rank1_{lbl(dt)}", "api:prelu", "prelu", [x1, t([0.2], dt)], F.prelu(x1, t([0.2], dt)),
              torch_expr="F.prelu(x [7], w [1]): one channel")
        # quiet_softmax (Burn's; reference by its formula in float64)
        x3s = randn(2, 3, 4, dtype=dt, scale=2.0)
        for d in [0, 1, -1]:
            dn = f"dim{d}" if d >= 0 else "dimm1"
            g.add(f"quiet_softmax_{dn}_{lbl(dt)}", "api:quiet_softmax", "quiet_softmax", [x3s], quiet_softmax_ref(x3s, d),
                  attrs={"dim": d}, torch_expr=f"exp(x - m) / (exp(-m) + sum exp(x - m)), m = x.amax({d})")
        xl = t([[1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -1002.0], [0.0, 0.0, 0.0], [-30.0, -40.0, -50.0]], dt)
        g.add(f"quiet_softmax_large_{lbl(dt)}", "api:quiet_softmax", "quiet_softmax", [xl], quiet_softmax_ref(xl, 1),
              attrs={"dim": 1}, torch_expr="quiet softmax with |x| ~ 1000: very negative rows give ~0")
    x = randn(4, 3, scale=3.0)
    g.add("celu_transposed_f32", "api:celu", "celu", [x], F.celu(x.t(), 1.5), attrs={"alpha": 1.5}, pre={0: TRANS},
          torch_expr="F.celu(x.t(), 1.5)")
    g.add("hardtanh_transposed_f32", "api:hardtanh", "hardtanh", [x], F.hardtanh(x.t(), -0.5, 0.5),
          attrs={"min": -0.5, "max": 0.5}, pre={0: TRANS}, torch_expr="F.hardtanh(x.t(), -0.5, 0.5)")
    xg = randn(6, 4)
    g.add("glu_transposed_f32", "api:glu", "glu", [xg], F.glu(xg.t(), 1), attrs={"dim": 1}, pre={0: TRANS},
          torch_expr="F.glu(x.t(), 1)")
    g.add("quiet_softmax_transposed_f32", "api:quiet_softmax", "quiet_softmax", [x], quiet_softmax_ref(x.t(), 1),
          attrs={"dim": 1}, pre={0: TRANS}, torch_expr="quiet softmax of x.t() along 1")
    w = t([0.3, -0.2, 0.6, 1.5], f32)
    g.add("prelu_transposed_f32", "api:prelu", "prelu", [x, w], F.prelu(x.t(), w), pre={0: TRANS},
          torch_expr="F.prelu(x.t(), w [4])")
    # errors
    g.add("celu_alpha_zero_error", "api:celu", "celu", [x], error="ValueError", attrs={"alpha": 0.0},
          torch_expr="alpha 0 raises (ZeroDivisionError in torch)")
    g.add("glu_odd_error", "api:glu", "glu", [randn(2, 3)], error="ShapeError", attrs={"dim": 1},
          torch_expr="halving dim 1 of size 3 raises")
    g.add("glu_dim_error", "api:glu", "glu", [randn(2, 4)], error="IndexError", attrs={"dim": 2},
          torch_expr="dim 2 of a rank-2 tensor")
    g.add("soft_shrink_negative_lambda_error", "api:soft_shrink", "soft_shrink", [x], error="ValueError",
          attrs={"lambda": -1.0}, torch_expr="lambda < 0 raises")
    g.add("prelu_count_error", "api:prelu", "prelu", [randn(2, 3), t([0.1, 0.2], f32)], error="ShapeError",
          torch_expr="2 weights for 3 channels raises")
    g.add("prelu_rank1_count_error", "api:prelu", "prelu", [randn(3), t([0.1, 0.2, 0.3], f32)], error="ShapeError",
          torch_expr="3 weights for a 1-D input (one channel) raises")
    g.add("prelu_weight_rank_error", "api:prelu", "prelu", [randn(2, 3), randn(1, 3)], error="ShapeError",
          torch_expr="a 2-D weight raises")
    g.add("prelu_dtype_error", "api:prelu", "prelu", [randn(2, 3), t([0.1], f64)], error="DTypeError",
          torch_expr="f32 input with an f64 weight: burn refuses")
    g.add("quiet_softmax_dim_error", "api:quiet_softmax", "quiet_softmax", [x], error="IndexError", attrs={"dim": 2},
          torch_expr="dim 2 of a rank-2 tensor")
    g.add("quiet_softmax_empty_f32", "api:quiet_softmax", "quiet_softmax", [torch.zeros(0, 3)], torch.zeros(0, 3),
          attrs={"dim": 1}, torch_expr="empty stays empty")
    g.add("threshold_int_error", "api:threshold", "threshold", [t([1, 2], i32)], error="DTypeError",
          attrs={"threshold": 0.0, "value": 1.0}, torch_expr="Int tensors: float only")
    for op, fn in [("hard_swish", F.hardswish), ("softsign", F.softsign)]:
        xl = Gen([300, 257], f32, 0.01)
        g.add(f"{op}_large_f32", f"api:{op}", op, [xl], sampled(fn(xl.tensor)), torch_expr=f"{op}(x), 77k elements")
    xl = Gen([70, 1001], f32, 0.01)
    g.add("quiet_softmax_rows_large_f32", "api:quiet_softmax", "quiet_softmax", [xl],
          sampled(quiet_softmax_ref(xl.tensor, 1)), attrs={"dim": 1}, torch_expr="quiet softmax along rows of 1001")


def main():
    g = Group("elementwise_composites")
    gen_hypot(g)
    gen_fmod(g)
    gen_unary_float(g)
    gen_int_and_pairs(g)
    gen_max_abs(g)
    gen_close(g)
    gen_activations(g)
    g.write()


if __name__ == "__main__":
    sys.exit(main())
