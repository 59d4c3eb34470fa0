#!/usr/bin/python3
# Writes the reference fixtures of the quant group (quantized_linear, matmul_integer): fixtures/quant.json (group
# "quant").
# Run with Debian's python3-torch: /usr/bin/python3 burn-tensor/conformance/gen_fixtures_quant.py
# PyTorch has no op with quantized_linear's exact contract (burn/tensor/quant.hpp: x quantized per row to u8 in
# f32 arithmetic, the integer sum exact, (sa * sb) * sum + bias in double, rounded once), so the expected values
# are that definition written out here in NumPy (float32 arithmetic for the quantization, float64 for the rest)
# and compared bitwise (rtol = atol = 0). torch's quantize_dynamic is the check against PyTorch itself
# (burn-nn/tests/quant_test.cpp).
import sys

import numpy as np
import torch

from gen_fixtures import Group, f32, i64, randint, randn

i8 = torch.int8


def reference(x, w, sb, zb=None, bias=None):
    k, n = w.shape
    xs = x.numpy().astype(np.float32).reshape(-1, k)
    finite = np.isfinite(xs)
    bad = ~finite.all(axis=1)
    xc = np.where(finite, xs, np.float32(0))
    lo = np.minimum(xc.min(axis=1, keepdims=True, initial=np.float32(0)), np.float32(0))
    hi = np.maximum(xc.max(axis=1, keepdims=True, initial=np.float32(0)), np.float32(0))
    scale = np.maximum((hi - lo) / np.float32(255), np.float32(2.0 ** -126))
    zp = np.clip(np.round(-lo / scale), np.float32(0), np.float32(255))
    q = np.clip(np.round(xc / scale) + zp, np.float32(0), np.float32(255))
    qa = (q - zp).astype(np.float64)
    wb = w.numpy().astype(np.float64)
    if zb is not None:
        wb = wb - zb.numpy().astype(np.float64).reshape(1, -1)
    acc = qa @ wb
    assert np.all(np.abs(acc) < 2.0 ** 53)
    out = (scale.astype(np.float64) * sb.numpy().astype(np.float64).reshape(1, -1)) * acc
    if bias is not None:
        out = out + bias.numpy().astype(np.float64).reshape(1, -1)
    out = out.astype(np.float32)
    out[bad, :] = np.nan
    return torch.from_numpy(out.reshape(tuple(x.shape[:-1]) + (n,)))


def add(g, name, x, w, sb, zb=None, bias=None, expr=""):
    inputs = [x, w, sb] + ([zb] if zb is not None else []) + ([bias] if bias is not None else [])
    g.add(name, "quantized_linear", "quantized_linear", inputs, reference(x, w, sb, zb, bias),
          attrs={"zero_points": zb is not None, "bias": bias is not None}, rtol=0.0, atol=0.0,
          torch_expr=expr or "quantized_linear definition (NumPy)")


def gen_quant():
    g = Group("quant")
    x = randn(5, 16)
    w = randint(-127, 128, 16, 8, dtype=i8)
    add(g, "ql_per_tensor_symmetric_bias", x, w, torch.tensor([0.0123], dtype=f32), bias=randn(8))
    add(g, "ql_per_tensor_symmetric", x, w, torch.tensor([0.05], dtype=f32))
    # Full-range int8 weights (-128 included), per-output scales and zero points, a rank-3 x.
    x3 = randn(2, 3, 20, scale=3.0)
    w3 = randint(-128, 128, 20, 6, dtype=i8)
    add(g, "ql_per_channel_affine_rank3", x3, w3, torch.rand(6, dtype=f32) * 0.1 + 0.001,
        zb=randint(-5, 6, 6, dtype=torch.int32), bias=randn(6))
    # The saturation corner: every activation quantizes to 255, every weight is -128 (or 127).
    xs = torch.ones(3, 64, dtype=f32) * torch.tensor([[1.0], [2.5], [1e-3]], dtype=f32)
    ws = torch.full((64, 5), -128, dtype=i8)
    ws[:, 1] = 127
    add(g, "ql_saturation_corner", xs, ws, torch.tensor([0.5], dtype=f32), expr="u8 activations 255 x weights -128/127")
    # All-negative rows (zero point 255), a zero row (the smallest scale), a constant row.
    xe = torch.tensor([[-1.0, -2.0, -0.5, -3.0], [0.0, 0.0, 0.0, 0.0], [0.7, 0.7, 0.7, 0.7]], dtype=f32)
    add(g, "ql_negative_zero_constant_rows", xe, randint(-128, 128, 4, 3, dtype=i8), torch.tensor([0.02], dtype=f32),
        bias=torch.tensor([1.0, -2.0, 0.25], dtype=f32))
    # Rows with a NaN or an infinity give NaN rows; the others are untouched.
    xn = randn(4, 6)
    xn[1, 2] = float("nan")
    xn[3, 0] = float("inf")
    add(g, "ql_nonfinite_rows", xn, randint(-128, 128, 6, 4, dtype=i8), torch.tensor([0.01], dtype=f32),
        expr="NaN / infinity in a row: that row is NaN")
    # Sizes past the kernels' tiles: K not a multiple of 4, N not a multiple of 8.
    xl = randn(33, 300)
    add(g, "ql_larger", xl, randint(-128, 128, 300, 17, dtype=i8), torch.rand(17, dtype=f32) * 0.01 + 1e-4,
        zb=randint(-128, 128, 17, dtype=torch.int32), bias=randn(17))
    add(g, "ql_no_rows", torch.zeros(0, 8, dtype=f32), w[:8], torch.tensor([0.1], dtype=f32))
    add(g, "ql_rank1_x", randn(16), w, torch.tensor([0.03], dtype=f32))
    ok = torch.tensor([0.1], dtype=f32)
    g.add("ql_int_x", "quantized_linear", "quantized_linear", [randint(0, 3, 2, 16), w, ok], error="DTypeError",
          attrs={}, torch_expr="x i64")
    g.add("ql_float_weight", "quantized_linear", "quantized_linear", [x, w.to(f32), ok], error="DTypeError",
          attrs={}, torch_expr="weight values f32")
    g.add("ql_inner_dim", "quantized_linear", "quantized_linear", [randn(2, 15), w, ok], error="ShapeError",
          attrs={}, torch_expr="x [2, 15], weight [16, 8]")
    g.add("ql_scales_shape", "quantized_linear", "quantized_linear", [x, w, torch.ones(3, dtype=f32)],
          error="ShapeError", attrs={}, torch_expr="scales [3] for 8 outputs")
    g.add("ql_bias_dtype", "quantized_linear", "quantized_linear", [x, w, ok, torch.zeros(8, dtype=torch.float64)],
          error="DTypeError", attrs={"bias": True}, torch_expr="bias f64, x f32")
    g.add("ql_zero_points_shape", "quantized_linear", "quantized_linear",
          [x, w, ok, torch.zeros(8, dtype=torch.int32)], error="ShapeError", attrs={"zero_points": True},
          torch_expr="zero points [8], scales [1]")
    gen_matmul_integer(g)
    return g


def mi_reference(a, b, za=None, zb=None):
    """matmul_integer's definition: sum_k (a - za)(b - zb) in int64, wrapped to int32."""
    k = b.shape[0]
    a64 = a.numpy().astype(np.int64)
    if za is not None:
        a64 = a64 - za.numpy().astype(np.int64).reshape(-1, 1)
    b64 = b.numpy().astype(np.int64)
    if zb is not None:
        b64 = b64 - zb.numpy().astype(np.int64).reshape(1, -1)
    acc = (a64.reshape(-1, k) @ b64).reshape(tuple(a.shape[:-1]) + (b.shape[1],))
    return torch.from_numpy(acc.astype(np.int32))  # wraps modulo 2^32


def add_mi(g, name, a, b, za=None, zb=None, expr=""):
    inputs = [a, b] + ([za] if za is not None else []) + ([zb] if zb is not None else [])
    g.add(name, "matmul_integer", "matmul_integer", inputs, mi_reference(a, b, za, zb),
          attrs={"a_zero_points": za is not None, "b_zero_points": zb is not None}, rtol=0.0, atol=0.0,
          torch_expr=expr or "sum_k (a - za)(b - zb), int64 (NumPy)")


def gen_matmul_integer(g):
    u8 = torch.uint8
    a = randint(0, 256, 6, 20, dtype=u8)
    b = randint(-128, 128, 20, 9, dtype=i8)
    add_mi(g, "mi_u8_s8", a, b)
    add_mi(g, "mi_u8_s8_zero_points", a, b, za=torch.tensor([131], dtype=u8), zb=torch.tensor([-3], dtype=i8))
    # Per-row zero points of a batched a, per-column ones of a u8 b, K not a multiple of 4, N not of 8.
    a3 = randint(-128, 128, 2, 5, 13, dtype=i8)
    b3 = randint(0, 256, 13, 11, dtype=u8)
    add_mi(g, "mi_s8_u8_per_row_column", a3, b3, za=randint(-128, 128, 5, dtype=i8), zb=randint(0, 256, 11, dtype=u8))
    # The saturation corner: 255 x -128 and 255 x 127 over a K whose pair sums overflow a 16-bit intermediate.
    ac = torch.full((3, 1000), 255, dtype=u8)
    ac[1, ::2] = 0
    bc = torch.full((1000, 4), -128, dtype=i8)
    bc[:, 1] = 127
    add_mi(g, "mi_saturation_corner", ac, bc, expr="u8 255 x s8 -128 / 127 over K = 1000")
    # Zero points at the range ends, i32 zero points (the table's dtype), a sum that wraps int32.
    add_mi(g, "mi_u8_u8_extreme_zero_points", randint(0, 256, 4, 7, dtype=u8), randint(0, 256, 7, 3, dtype=u8),
           za=torch.tensor([255], dtype=torch.int32), zb=torch.tensor([0, 255, 128], dtype=torch.int32))
    aw = torch.full((1, 33100), 255, dtype=u8)
    bw = torch.full((33100, 1), 0, dtype=u8)
    add_mi(g, "mi_wraps_int32", aw, bw, zb=torch.tensor([255], dtype=u8),
           expr="255 x -255 over K = 33,100: -2,152,327,500, wrapped to int32")
    add_mi(g, "mi_no_rows", torch.zeros(0, 8, dtype=u8), b[:8])
    g.add("mi_float_a", "matmul_integer", "matmul_integer", [a.to(f32), b], error="DTypeError", attrs={},
          torch_expr="a f32")
    g.add("mi_i32_b", "matmul_integer", "matmul_integer", [a, b.to(torch.int32)], error="DTypeError", attrs={},
          torch_expr="b i32")
    g.add("mi_inner_dim", "matmul_integer", "matmul_integer", [a[:, :19], b], error="ShapeError", attrs={},
          torch_expr="a [6, 19], b [20, 9]")
    g.add("mi_rank1_a", "matmul_integer", "matmul_integer", [a[0], b], error="ShapeError", attrs={},
          torch_expr="a [20]")
    g.add("mi_b_zero_points_shape", "matmul_integer", "matmul_integer",
          [a, b, torch.zeros(4, dtype=i8)], error="ShapeError", attrs={"b_zero_points": True},
          torch_expr="b's zero points [4] for 9 columns")


def main():
    gen_quant().write()


if __name__ == "__main__":
    sys.exit(main())
