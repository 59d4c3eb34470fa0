#!/usr/bin/python3
# Writes fixtures/bitwise.json (group bitwise): PyTorch references of the bitwise ops of Int tensors
# (and, or, xor, not, left and right shifts, with a tensor or a scalar) on i64, i32, i8 and u8.
# Run with Debian's python3-torch: /usr/bin/python3 burn-tensor/conformance/gen_fixtures_bitwise.py
#
# Shift counts outside [0, width) and negative ones are references of torch 1.13 on x86-64: the count
# is taken modulo the promoted width (64 for i64, 32 for the rest), see burn/tensor/detail/bitwise.hpp.
import sys

import torch

from gen_fixtures import TRANS, Gen, Group, f32, i32, i64, lbl, randbool, randint, sampled, t

i8, u8, bool_ = torch.int8, torch.uint8, torch.bool
INTS = [i64, i32, i8, u8]
RANGE = {i64: (-2**63, 2**63 - 1), i32: (-2**31, 2**31 - 1), i8: (-128, 127), u8: (0, 255)}
SHAPES = [("same", [2, 3], [2, 3]), ("row", [2, 3], [3]), ("outer", [2, 1], [1, 3]), ("rank3", [4, 1, 3], [2, 1])]
BINARY = {"bitwise_and": (torch.bitwise_and, "&"), "bitwise_or": (torch.bitwise_or, "|"),
          "bitwise_xor": (torch.bitwise_xor, "^"), "bitwise_left_shift": (torch.bitwise_left_shift, "<<"),
          "bitwise_right_shift": (torch.bitwise_right_shift, ">>")}


def values(dt, *shape, lo=None, hi=None):
    """Random values over the dtype's whole range (extremes included now and then)."""
    rlo, rhi = RANGE[dt]
    lo = rlo if lo is None else lo
    hi = rhi if hi is None else hi
    if dt == i64:
        v = randint(-2**62, 2**62, *shape) * 2 + randint(0, 2, *shape)  # full 64-bit spread
        return v
    return randint(lo, hi + 1, *shape).to(dt)


def counts(dt, *shape):
    """Shift counts: mostly in range, some negative or past the width."""
    w = 64 if dt == i64 else 32
    lo = 0 if dt == u8 else -w - 3
    hi = min(2 * w + 3, 255 if dt == u8 else 127)
    return randint(lo, hi + 1, *shape).to(dt)


def gen():
    g = Group("bitwise")
    for op, (fn, sym) in BINARY.items():
        shift = "shift" in op
        for sn, sa, sb in SHAPES:
            for dt in INTS:
                a = values(dt, *sa)
                b = counts(dt, *sb) if shift else values(dt, *sb)
                g.add(f"{op}_{sn}_{lbl(dt)}", op, op, [a, b], fn(a, b), torch_expr=f"a {sym} b")
        a, b = values(i64, 3, 2), (counts(i64, 2, 3) if shift else values(i64, 2, 3))
        g.add(f"{op}_transposed_lhs_i64", op, op, [a, b], fn(a.t(), b), pre={0: TRANS}, torch_expr=f"a.t() {sym} b")
        a, b = values(i32, 1, 3), (counts(i32, 2, 3) if shift else values(i32, 2, 3))
        pe = [{"kind": "expand", "dims": [2, 3]}]
        g.add(f"{op}_expanded_lhs_i32", op, op, [a, b], fn(a.expand(2, 3), b), pre={0: pe},
              torch_expr=f"a.expand(2, 3) {sym} b")
        g.add(f"{op}_empty_i64", op, op, [torch.zeros(0, 3, dtype=i64), torch.ones(3, dtype=i64)],
              torch.zeros(0, 3, dtype=i64),
              torch_expr=f"[0, 3] {sym} [3]")
        g.add(f"{op}_float_error", op, op, [t([1.0], f32), t([1.0], f32)], error="DTypeError",
              torch_expr="float tensors raise")
        g.add(f"{op}_bool_error", op, op, [t([True], bool_), t([True], bool_)], error="DTypeError",
              torch_expr="bool tensors: burn has bool_and/bool_or/bool_xor")
        g.add(f"{op}_dtype_mismatch_error", op, op, [t([1], i64), t([1], i32)], error="DTypeError",
              torch_expr="i64 with i32: burn refuses")
        g.add(f"{op}_shape_error", op, op, [values(i64, 2, 3), values(i64, 4)], error="ShapeError",
              torch_expr="[2, 3] with [4] does not broadcast")
        # scalar forms: the scalar is converted to the tensor's dtype (wrapping)
        sop = op + "_scalar"
        for dt in INTS:
            a = values(dt, 2, 3)
            for k, s in enumerate([5, -1, 300, 0] if not shift else [1, 7, 33, -1, 200]):
                sname = f"m{-s}" if s < 0 else str(s)
                g.add(f"{sop}_{sname}_{lbl(dt)}", op, sop, [a], fn(a, s), attrs={"scalar": s},
                      torch_expr=f"a {sym} {s}")
        a = values(i64, 3, 2)
        g.add(f"{sop}_transposed_i64", op, sop, [a], fn(a.t(), 3), attrs={"scalar": 3}, pre={0: TRANS},
              torch_expr=f"a.t() {sym} 3")
        g.add(f"{sop}_float_scalar_error", op, sop, [values(i64, 2)], error="DTypeError", attrs={"scalar": 2.5},
              torch_expr="a float scalar raises")
        g.add(f"{sop}_float_tensor_error", op, sop, [t([1.0], f32)], error="DTypeError", attrs={"scalar": 1},
              torch_expr="float tensors raise")
    # shift edges, every dtype: counts 0 .. 2 * width, negative counts, on positive, negative and extreme values
    for dt in INTS:
        lo, hi = RANGE[dt]
        w = 64 if dt == i64 else 32
        cs = [0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100] + ([] if dt == u8 else [-1, -2, -31, -32, -33, -64, -100])
        cs = [c for c in cs if RANGE[dt][0] <= c <= RANGE[dt][1]]
        av = [5, lo, hi, 1] + ([] if dt == u8 else [-5, -1])
        a = t([[v] * len(cs) for v in av], dt)
        c = t([cs] * len(av), dt)
        for op in ["bitwise_left_shift", "bitwise_right_shift"]:
            fn, sym = BINARY[op]
            g.add(f"{op}_edges_{lbl(dt)}", op, op, [a, c], fn(a, c),
                  torch_expr=f"a {sym} c for counts {cs[0]}..{cs[-1]}: the count is taken modulo {w}")
    # and/or/xor truth tables on the extremes
    for dt in INTS:
        lo, hi = RANGE[dt]
        p55, paa = 0x5555555555555555, -0x5555555555555556  # 0101... and 1010... (wrapped to the dtype)
        a = t([lo, hi, 0, -1, p55, paa], i64).to(dt)
        b = t([hi, lo, -1, 0, paa, p55], i64).to(dt)
        for op in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
            fn, sym = BINARY[op]
            g.add(f"{op}_extremes_{lbl(dt)}", op, op, [a, b], fn(a, b), torch_expr=f"a {sym} b on the extremes")
    # bitwise_not
    for dt in INTS:
        lo, hi = RANGE[dt]
        a = t([lo, hi, 0, 1, 5, 85, -1], i64).to(dt)
        g.add(f"bitwise_not_{lbl(dt)}", "bitwise_not", "unary", [a], torch.bitwise_not(a), attrs={"op": "bitwise_not"},
              torch_expr="~x")
        x = values(dt, 3, 4)
        g.add(f"bitwise_not_random_{lbl(dt)}", "bitwise_not", "unary", [x], torch.bitwise_not(x),
              attrs={"op": "bitwise_not"}, torch_expr="~x")
    x = values(i64, 3, 4)
    g.add("bitwise_not_transposed_i64", "bitwise_not", "unary", [x], torch.bitwise_not(x.t()), attrs={"op": "bitwise_not"},
          pre={0: TRANS}, torch_expr="~x.t()")
    g.add("bitwise_not_empty_i32", "bitwise_not", "unary", [torch.zeros(0, 2, dtype=i32)], torch.zeros(0, 2, dtype=i32),
          attrs={"op": "bitwise_not"}, torch_expr="~empty")
    g.add("bitwise_not_float_error", "bitwise_not", "unary", [t([1.0], f32)], error="DTypeError",
          attrs={"op": "bitwise_not"}, torch_expr="float tensors raise")
    g.add("bitwise_not_bool_error", "bitwise_not", "unary", [randbool(3)], error="DTypeError",
          attrs={"op": "bitwise_not"}, torch_expr="bool tensors: burn has bool_not")
    # large: the vectorised and threaded paths
    a, b = Gen([300, 257], i64, 7919), Gen([257], i64, 3, offset=1)
    for op in ["bitwise_and", "bitwise_xor"]:
        fn, sym = BINARY[op]
        g.add(f"{op}_large_i64", op, op, [a, b], sampled(fn(a.tensor, b.tensor)), torch_expr=f"a {sym} b, 77k elements")
    c = Gen([70001], i64, 1)
    v = Gen([70001], i64, 123457, offset=11)
    for op in ["bitwise_left_shift", "bitwise_right_shift"]:
        fn, sym = BINARY[op]
        g.add(f"{op}_large_i64", op, op, [v, c], sampled(fn(v.tensor, c.tensor)), torch_expr=f"a {sym} c, 70k elements")
    c32, v32 = Gen([70001], i32, 1), Gen([70001], i32, 1234, offset=7)
    g.add("bitwise_left_shift_large_i32", "bitwise_left_shift", "bitwise_left_shift", [v32, c32],
          sampled(torch.bitwise_left_shift(v32.tensor, c32.tensor)), torch_expr="a << c, 70k elements")
    g.add("bitwise_not_large_i32", "bitwise_not", "unary", [v32], sampled(torch.bitwise_not(v32.tensor)),
          attrs={"op": "bitwise_not"}, torch_expr="~x, 70k elements")
    g.write()


if __name__ == "__main__":
    sys.exit(gen())
