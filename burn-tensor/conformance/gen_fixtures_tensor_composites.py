#!/usr/bin/python3
# Writes the PyTorch/NumPy reference fixtures of the composite ops median, cov, take, gather_nd,
# scatter_nd, mask_select, cartesian_grid, meshgrid, categorical, unfold(dim, size, step), movedim,
# iter_dim, split_with_sizes, einsum, cross and dot: fixtures/tensor_composites.json. Run with Debian's
# python3-torch:
#   /usr/bin/python3 burn-tensor/conformance/gen_fixtures_tensor_composites.py
# Burn conventions encoded here: torch's 0-d results are shape [1]; median and reductions over an empty
# tensor or a size-0 dim raise ValueError (torch returns NaN or raises IndexError); gather_nd and
# scatter_nd follow ONNX (batch_dims 0), with NumPy as the reference; categorical has no reference
# values: its cases check exact properties (sorted draws, classes drawn) and frequencies.
import itertools
import sys

import numpy as np
import torch

import gen_fixtures as gf
from gen_fixtures import (INF, NAN, TRANS, Gen, Group, bool_, enc_meta, f32, f64, i32, i64, lbl, rand, randbool,
                          randint, randn, sampled, t)

gf.gen.manual_seed(20250309)  # this file's own stream: the other generators' files do not move


def one(x):
    """torch's 0-d results are [1] tensors here."""
    return x.reshape(1) if x.dim() == 0 else x


def distinct(*shape, dtype=f32):
    """No ties: a shuffled ramp."""
    n = int(np.prod(shape))
    return (torch.randperm(n, generator=gf.gen).to(f64) * 0.25 - n / 8).reshape(shape).to(dtype)


# ============================================================================ reduce: median, cov
def gen_median(g):
    def med(x):
        return one(torch.median(x))

    cases = [("f32", randn(3, 4)), ("f64_odd", randn(5, dtype=f64)), ("f32_even", t([4.0, 1.0, 3.0, 2.0], f32)),
             ("i64_ties", t([[5, 1, 5], [1, 5, 1]], i64)), ("i32", randint(-9, 9, 7, dtype=i32)),
             ("nan", t([1.0, NAN, 3.0, 2.0], f32)), ("inf", t([INF, -INF, 1.0, 2.0, INF], f32)),
             ("single", t([[7.5]], f32))]
    for name, x in cases:
        g.add(f"median_{name}", "api:median", "median", [x], med(x), torch_expr="torch.median(x) (lower median; NaN wins)")
    x = randn(4, 3)
    g.add("median_transposed_f32", "api:median", "median", [x], med(x.t()), pre={0: TRANS}, torch_expr="torch.median(x.t())")
    g.add("median_empty_error", "api:median", "median", [torch.zeros(0, 3)], error="ValueError",
          torch_expr="torch.median of an empty tensor (torch: nan; here a ValueError as max/mean)")
    g.add("median_bool_error", "api:median", "median", [randbool(4)], error="DTypeError",
          torch_expr="torch.median(bool) is not implemented")

    def med_dim(x, d):
        v, i = torch.median(x, d, keepdim=True)
        # Ties resolve to the earliest of the equal elements at rank (n - 1) / 2 (a stable sort); pin
        # that torch agrees on every case written here.
        if not x.is_floating_point() or not torch.isnan(x).any():
            srt = torch.from_numpy(np.argsort(x.numpy(), axis=d, kind="stable"))
            want = srt.narrow(d, (x.shape[d] - 1) // 2, 1)
            assert torch.equal(i, want), (x, d, i, want)
        return [v, i]

    x = distinct(3, 5)
    for d in [0, 1, -1]:
        dn = f"dim{d}" if d >= 0 else "dimm1"
        g.add(f"median_dim_{dn}_f32", "api:median_dim", "median_dim", [x], med_dim(x, d), attrs={"dim": d},
              torch_expr=f"torch.median(x, {d}, keepdim=True)")
    xt = randint(0, 4, 4, 6)
    g.add("median_dim_ties_i64", "api:median_dim", "median_dim", [xt], med_dim(xt, 1), attrs={"dim": 1},
          torch_expr="torch.median(x, 1, keepdim=True) with ties: the earliest at the median's rank")
    xs = randint(-3, 3, 2, 6, dtype=i32)
    g.add("median_dim_ties_i32_dim0", "api:median_dim", "median_dim", [xs], med_dim(xs, 0), attrs={"dim": 0},
          torch_expr="torch.median(x, 0, keepdim=True)")
    xn = t([[3.0, NAN, 1.0, NAN], [2.0, 1.0, 4.0, 3.0], [NAN, 0.0, 0.0, 0.0]], f64)
    g.add("median_dim_nan_f64", "api:median_dim", "median_dim", [xn], med_dim(xn, 1), attrs={"dim": 1},
          torch_expr="torch.median(x, 1, keepdim=True): NaN rows give NaN at their first NaN")
    x3 = distinct(2, 3, 4)
    g.add("median_dim_transposed_f32", "api:median_dim", "median_dim", [x3], med_dim(x3.transpose(0, 1), 2),
          attrs={"dim": 2}, pre={0: [{"kind": "transpose", "a": 0, "b": 1}]},
          torch_expr="torch.median(x.transpose(0, 1), 2, keepdim=True)")
    x0 = torch.zeros(0, 3)
    g.add("median_dim_empty_rows_f32", "api:median_dim", "median_dim", [x0], med_dim(x0, 1), attrs={"dim": 1},
          torch_expr="torch.median(zeros(0, 3), 1, keepdim=True): empty results")
    g.add("median_dim_zero_size_error", "api:median_dim", "median_dim", [x0], error="ValueError", attrs={"dim": 0},
          torch_expr="torch.median(zeros(0, 3), 0) (torch: IndexError)")
    g.add("median_dim_range_error", "api:median_dim", "median_dim", [x], error="IndexError", attrs={"dim": 2},
          torch_expr="dim 2 of a rank-2 tensor")


def gen_cov(g):
    def add(name, x, correction=1, fw=None, aw=None, expr="", pre=None, error=None):
        inputs = [x] + [w for w in (fw, aw) if w is not None]
        attrs = {"correction": correction, "fweights": fw is not None, "aweights": aw is not None}
        exp = None
        if error is None:
            xx = apply(x, pre)
            ref = torch.cov(xx.double(), correction=correction,
                            fweights=fw, aweights=None if aw is None else aw.double())
            out_dt = xx.dtype if xx.is_floating_point() else f32
            exp = one(ref).to(out_dt)
        g.add(f"cov_{name}", "api:cov", "cov", inputs, exp, attrs=attrs, error=error, pre=pre,
              torch_expr=expr or f"torch.cov(x, correction={correction}, fweights, aweights)", rtol=1e-5, atol=1e-5)

    def apply(x, pre):
        return gf.apply_pre(x, pre[0]) if pre else x

    x = randn(3, 6)
    add("f32", x)
    add("f64", randn(2, 5, dtype=f64))
    add("correction0_f32", x, correction=0)
    add("correction2_f32", x, correction=2)
    add("correction_negative_f32", x, correction=-1, expr="torch.cov(x, correction=-1): n + 1 in the denominator")
    add("one_variable_f32", randn(7), expr="torch.cov(x) of a 1-D tensor: its variance, as [1]")
    add("int_input_i64", randint(-5, 5, 2, 4), expr="torch.cov(int tensor): float32 result")
    fw = t([1, 2, 0, 3, 1, 1], i64)
    aw = t([0.5, 1.0, 2.0, 0.25, 1.5, 1.0], f32)
    add("fweights_f32", x, fw=fw)
    add("aweights_f32", x, aw=aw)
    add("both_weights_f32", x, fw=fw, aw=aw)
    add("both_weights_correction0_f32", x, correction=0, fw=fw, aw=aw)
    add("dof_zero_f32", randn(2, 3), correction=3, expr="torch.cov(x, correction=3): no degrees of freedom -> inf/nan")
    add("no_variables_f32", torch.zeros(0, 4), expr="torch.cov(zeros(0, 4)): [0, 0]")
    xt = randn(5, 3)
    add("transposed_f32", xt, pre={0: TRANS}, expr="torch.cov(x.t())")
    add("rank3_error", randn(2, 3, 4), error="ShapeError", expr="torch.cov of a 3-D tensor")
    add("no_observations_error", torch.zeros(2, 0), error="ValueError", expr="torch.cov(zeros(2, 0)) (torch: nan)")
    add("fweights_float_error", x, fw=aw, error="DTypeError", expr="fweights must be integral")
    add("fweights_negative_error", x, fw=t([1, 2, -1, 3, 1, 1], i64), error="ValueError", expr="negative fweights")
    add("aweights_int_error", x, aw=fw, error="DTypeError", expr="aweights must be floating point")
    add("aweights_negative_error", x, aw=t([0.5, 1.0, -2.0, 0.25, 1.5, 1.0], f32), error="ValueError",
        expr="negative aweights")
    add("aweights_length_error", x, aw=t([1.0, 2.0], f32), error="ShapeError", expr="aweights of the wrong length")
    g.add("cov_bool_error", "api:cov", "cov", [randbool(2, 3)], error="DTypeError",
          attrs={"correction": 1, "fweights": False, "aweights": False}, torch_expr="torch.cov(bool tensor)")


# ============================================================================ indexing
def gather_nd_ref(data, idx):
    d, ix = data.numpy(), idx.numpy().astype(np.int64)
    k = ix.shape[-1]
    rows = [d[tuple(tp)] for tp in ix.reshape(-1, k)]
    out_shape = ix.shape[:-1] + d.shape[k:]
    out = np.stack(rows).reshape(out_shape) if rows else np.zeros(out_shape, dtype=d.dtype)
    return one(torch.from_numpy(np.ascontiguousarray(out)))


def scatter_nd_ref(data, idx, upd, reduction):
    out = data.numpy().copy()
    ix = idx.numpy().astype(np.int64)
    k = ix.shape[-1]
    u = upd.numpy().reshape((-1,) + out.shape[k:])
    for tp, val in zip(ix.reshape(-1, k), u):
        if reduction == "add":
            out[tuple(tp)] += val
        else:
            out[tuple(tp)] = val
    return torch.from_numpy(out)


def gen_indexing(g):
    x = randn(2, 3)
    idx = t([[-1, 0], [5, -6]], i64)
    g.add("take_f32", "api:take", "take", [x, idx], torch.take(x, idx), torch_expr="torch.take(x, idx), negative idx")
    xi = randint(0, 50, 3, 4)
    ii = randint(-12, 12, 5, dtype=i32)
    g.add("take_i64_idx_i32", "api:take", "take", [xi, ii], torch.take(xi, ii.long()), torch_expr="torch.take(x, idx), i32 idx")
    xb = randbool(2, 2, 2)
    ib = t([[[7]], [[0]]], i64)
    g.add("take_bool_3d_idx", "api:take", "take", [xb, ib], torch.take(xb, ib), torch_expr="torch.take(x, idx [2, 1, 1])")
    xt = randn(3, 4)
    it = t([0, 1, 4, 11, -1], i64)
    g.add("take_transposed_f32", "api:take", "take", [xt, it], torch.take(xt.t(), it), pre={0: TRANS},
          torch_expr="torch.take(x.t(), idx): row-major over the transposed tensor")
    g.add("take_empty_indices", "api:take", "take", [x, torch.zeros(0, 2, dtype=i64)],
          torch.take(x, torch.zeros(0, 2, dtype=i64)), torch_expr="torch.take(x, zeros(0, 2))")
    g.add("take_empty_both", "api:take", "take", [torch.zeros(0), torch.zeros(0, dtype=i64)], torch.zeros(0),
          torch_expr="torch.take(zeros(0), zeros(0))")
    g.add("take_high_error", "api:take", "take", [x, t([6], i64)], error="IndexError", torch_expr="index 6 of 6 elements")
    g.add("take_low_error", "api:take", "take", [x, t([-7], i64)], error="IndexError", torch_expr="index -7 of 6 elements")
    g.add("take_from_empty_error", "api:take", "take", [torch.zeros(0), t([0], i64)], error="IndexError",
          torch_expr="torch.take(zeros(0), [0])")
    g.add("take_float_index_error", "api:take", "take", [x, t([0.0], f32)], error="DTypeError", torch_expr="float indices")

    # gather_nd: ONNX GatherND, batch_dims = 0 (NumPy reference)
    data = randn(2, 3, 4)
    gcases = [("k1", data, t([[1], [0], [1]], i64)),
              ("k2", data, t([[0, 1], [1, 2], [-1, -3]], i64)),
              ("k3_batch", data, t([[[0, 1, 2], [1, 2, 3]], [[-2, 0, -1], [1, 1, 1]]], i64)),
              ("k3_single", data, t([1, 2, 3], i64)),
              ("k2_one_tuple_i32", data, t([1, 0], i32)),
              ("i64_data", randint(0, 99, 3, 3), t([[2, 2], [0, 1], [2, 2]], i64)),
              ("bool_data", randbool(2, 5), t([[1], [0], [1]], i64)),
              ("empty_indices", data, torch.zeros(0, 2, dtype=i64))]
    for name, d, ix in gcases:
        g.add(f"gather_nd_{name}", "api:gather_nd", "gather_nd", [d, ix], gather_nd_ref(d, ix),
              torch_expr=f"GatherND(data {list(d.shape)}, indices {list(ix.shape)}) via NumPy")
    dt_ = randn(4, 3)
    ixt = t([[2, 1], [0, 3]], i64)
    g.add("gather_nd_transposed_f32", "api:gather_nd", "gather_nd", [dt_, ixt], gather_nd_ref(dt_.t().contiguous(), ixt),
          pre={0: TRANS}, torch_expr="GatherND(x.t(), indices)")
    g.add("gather_nd_k_error", "api:gather_nd", "gather_nd", [data, t([[0, 0, 0, 0]], i64)], error="ShapeError",
          torch_expr="indices.shape[-1] = 4 > rank 3")
    g.add("gather_nd_range_error", "api:gather_nd", "gather_nd", [data, t([[0, 3]], i64)], error="IndexError",
          torch_expr="index 3 of dim 1 (size 3)")
    g.add("gather_nd_negative_range_error", "api:gather_nd", "gather_nd", [data, t([[-3, 0]], i64)], error="IndexError",
          torch_expr="index -3 of dim 0 (size 2)")
    g.add("gather_nd_float_index_error", "api:gather_nd", "gather_nd", [data, t([[0.0]], f32)], error="DTypeError",
          torch_expr="float indices")

    # scatter_nd: ONNX ScatterND, reduction none / add
    base = randn(4, 3)
    scases = [("none_k1", base, t([[2], [0]], i64), randn(2, 3), "none"),
              ("none_k2", base, t([[0, 1], [3, -1], [-4, 0]], i64), randn(3), "none"),
              ("add_duplicates", base, t([[1], [1], [3], [1]], i64), randn(4, 3), "add"),
              ("add_k2", base, t([[0, 0], [0, 0], [2, 1]], i64), randn(3), "add"),
              ("none_i64", randint(0, 9, 2, 2, 2), t([[[1, 0]], [[0, 1]]], i64), randint(10, 20, 2, 1, 2), "none"),
              ("add_i32_idx", randint(0, 9, 5, dtype=i32), t([[4], [0], [4]], i32), randint(1, 5, 3, dtype=i32), "add"),
              ("none_bool", randbool(3, 2), t([[0], [2]], i64), randbool(2, 2), "none"),
              ("none_scalar_update", base, t([2, 1], i64), randn(1), "none"),
              ("empty_indices", base, torch.zeros(0, 1, dtype=i64), torch.zeros(0, 3), "none")]
    for name, d, ix, up, red in scases:
        g.add(f"scatter_nd_{name}", "api:scatter_nd", "scatter_nd", [d, ix, up], scatter_nd_ref(d, ix, up, red),
              attrs={"reduction": red}, torch_expr=f"ScatterND(data {list(d.shape)}, indices {list(ix.shape)}, "
                                                   f"reduction={red}) via NumPy")
    upd = randn(2, 4)
    g.add("scatter_nd_transposed_f32", "api:scatter_nd", "scatter_nd", [base, t([[1], [0]], i64), upd],
          scatter_nd_ref(base.t().contiguous(), t([[1], [0]], i64), upd, "none"),
          attrs={"reduction": "none"}, pre={0: TRANS}, torch_expr="ScatterND(x.t(), ...)")
    g.add("scatter_nd_duplicates_error", "api:scatter_nd", "scatter_nd", [base, t([[1], [1]], i64), randn(2, 3)],
          error="ValueError", attrs={"reduction": "none"}, torch_expr="reduction none with a repeated index (ONNX: undefined)")
    g.add("scatter_nd_bool_add_error", "api:scatter_nd", "scatter_nd", [randbool(3), t([[0]], i64), randbool(1)],
          error="DTypeError", attrs={"reduction": "add"}, torch_expr="add on bool")
    g.add("scatter_nd_updates_shape_error", "api:scatter_nd", "scatter_nd", [base, t([[1], [2]], i64), randn(2, 2)],
          error="ShapeError", attrs={"reduction": "none"}, torch_expr="updates must be indices.shape[:-1] + data.shape[k:]")
    g.add("scatter_nd_dtype_error", "api:scatter_nd", "scatter_nd", [base, t([[1]], i64), randn(1, 3, dtype=f64)],
          error="DTypeError", attrs={"reduction": "add"}, torch_expr="updates of another dtype")
    g.add("scatter_nd_range_error", "api:scatter_nd", "scatter_nd", [base, t([[4]], i64), randn(1, 3)],
          error="IndexError", attrs={"reduction": "add"}, torch_expr="index 4 of dim 0 (size 4)")

    # mask_select: torch.masked_select, mask and tensor broadcast together
    mcases = [("same_shape_f32", randn(3, 4), randbool(3, 4)), ("mask_broadcast_f32", randn(2, 3), t([True, False, True], bool_)),
              ("tensor_broadcast_i64", randint(0, 9, 3), randbool(2, 3)), ("both_broadcast_f64", randn(2, 1, dtype=f64), randbool(1, 3)),
              ("none_true_f32", randn(2, 2), torch.zeros(2, 2, dtype=bool_)), ("bool_data", randbool(5), randbool(5)),
              ("empty_f32", torch.zeros(0, 3), randbool(3))]
    for name, x_, m in mcases:
        g.add(f"mask_select_{name}", "api:mask_select", "mask_select", [x_, m], torch.masked_select(x_, m),
              torch_expr=f"torch.masked_select(x {list(x_.shape)}, mask {list(m.shape)})")
    xm = randn(4, 3)
    mm = randbool(3, 4)
    g.add("mask_select_transposed_f32", "api:mask_select", "mask_select", [xm, mm], torch.masked_select(xm.t(), mm),
          pre={0: TRANS}, torch_expr="torch.masked_select(x.t(), mask)")
    g.add("mask_select_mask_dtype_error", "api:mask_select", "mask_select", [xm, randint(0, 2, 4, 3)], error="DTypeError",
          torch_expr="an int mask")
    g.add("mask_select_broadcast_error", "api:mask_select", "mask_select", [randn(3), randbool(2)], error="ShapeError",
          torch_expr="shapes [3] and [2] do not broadcast")


# ============================================================================ creation
def grid_ref(shape):
    if 0 in shape:
        return torch.zeros(list(shape) + [len(shape)], dtype=i64)
    axes = torch.meshgrid(*[torch.arange(n) for n in shape], indexing="ij")
    return torch.stack(axes, -1)


def gen_creation(g):
    for sh, dt in [([2, 3], i64), ([4], i64), ([2, 1, 3], i32), ([0, 3], i64), ([3, 0, 2], i32)]:
        g.add(f"cartesian_grid_{'x'.join(map(str, sh))}_{lbl(dt)}", "api:cartesian_grid", "cartesian_grid", [],
              grid_ref(sh).to(dt), attrs={"shape": sh, "dtype": lbl(dt)},
              torch_expr=f"torch.stack(torch.meshgrid(arange per dim of {sh}, indexing='ij'), -1)")
    g.add("cartesian_grid_negative_error", "api:cartesian_grid", "cartesian_grid", [], error="ShapeError",
          attrs={"shape": [2, -1], "dtype": "i64"}, torch_expr="a negative dim")
    g.add("cartesian_grid_float_error", "api:cartesian_grid", "cartesian_grid", [], error="DTypeError",
          attrs={"shape": [2], "dtype": "f32"}, torch_expr="coordinates are integers")
    g.add("cartesian_grid_rank0_error", "api:cartesian_grid", "cartesian_grid", [], error="ShapeError",
          attrs={"shape": [], "dtype": "i64"}, torch_expr="an empty shape")

    a, b, c = randn(2), randn(3), randn(4)
    for ix in ["ij", "xy"]:
        for name, ts in [("one", [b]), ("two", [a, b]), ("three", [a, b, c])]:
            g.add(f"meshgrid_{name}_{ix}_f32", "api:meshgrid", "meshgrid", ts, list(torch.meshgrid(*ts, indexing=ix)),
                  attrs={"indexing": ix}, torch_expr=f"torch.meshgrid(*ts, indexing='{ix}')")
    ia, ib = randint(0, 9, 3), randint(0, 9, 2)
    g.add("meshgrid_two_xy_i64", "api:meshgrid", "meshgrid", [ia, ib], list(torch.meshgrid(ia, ib, indexing="xy")),
          attrs={"indexing": "xy"}, torch_expr="torch.meshgrid(a, b, indexing='xy')")
    z = torch.zeros(0)
    g.add("meshgrid_empty_ij_f32", "api:meshgrid", "meshgrid", [a, z], list(torch.meshgrid(a, z, indexing="ij")),
          attrs={"indexing": "ij"}, torch_expr="torch.meshgrid(a, zeros(0), indexing='ij')")
    g.add("meshgrid_dtype_error", "api:meshgrid", "meshgrid", [a, ia], error="DTypeError", attrs={"indexing": "ij"},
          torch_expr="inputs of different dtypes")
    g.add("meshgrid_rank_error", "api:meshgrid", "meshgrid", [a, randn(2, 2)], error="ShapeError", attrs={"indexing": "ij"},
          torch_expr="a 2-D input")
    g.add("meshgrid_no_input_error", "api:meshgrid", "meshgrid", [], error="ValueError", attrs={"indexing": "ij"},
          torch_expr="torch.meshgrid()")
    gen_categorical(g)


def draw_order_probabilities(w, s):
    """[s, C]: P(the k-th draw is class c) when drawing s times without replacement, in proportion to w."""
    w = [float(v) for v in w]
    c = len(w)
    out = np.zeros((s, c))
    for seq in itertools.permutations(range(c), s):
        p, left = 1.0, sum(w)
        for cls in seq:
            if w[cls] == 0:
                p = 0.0
                break
            p *= w[cls] / left
            left -= w[cls]
        for k, cls in enumerate(seq):
            out[k, cls] += p
    return torch.from_numpy(out)


def gen_categorical(g):
    rows = 40000
    tol = 0.015  # the share of 40000 rows has a standard deviation <= 0.0025: 6 sigma

    def freq(name, w, s, replacement, pre_extra=None, expr=""):
        wt = torch.tensor([w], dtype=f32)
        pre = [{"kind": "expand", "dims": [rows, len(w)]}]
        c = len(w)
        p = torch.tensor(w, dtype=f64) / sum(w)
        want = p.expand(s, c).clone() if replacement else draw_order_probabilities(w, s)
        g.add(f"categorical_frequency_{name}", "api:categorical", "categorical", [wt], want,
              attrs={"num_samples": s, "replacement": replacement, "report": "frequency", "classes": c, "seed": 7},
              pre={0: pre}, rtol=0.0, atol=tol,
              torch_expr=expr or f"torch.multinomial(w.expand({rows}, {c}), {s}, replacement={replacement}): "
                                 "share of each class per draw")

    freq("replacement", [1.0, 0.0, 3.0, 2.0, 4.0], 3, True)
    freq("no_replacement", [1.0, 0.0, 3.0, 2.0, 4.0], 3, False,
         expr="torch.multinomial(w, 3, replacement=False): sequential draws without replacement")
    freq("no_replacement_all", [5.0, 1.0, 2.0], 3, False)
    freq("tiny_weights", [1e-30, 3e-30, 0.0], 2, True, expr="unnormalised tiny weights")
    wt = torch.tensor([[0.5, 2.0], [0.0, 1.5], [0.25, 0.25]], dtype=f32)  # rows as columns: a transposed view
    want = (wt.t().double() / wt.t().double().sum(1, keepdim=True))
    g.add("categorical_frequency_transposed_rows", "api:categorical", "categorical", [wt],
          one_row_freq(want, rows), attrs={"num_samples": 1, "replacement": True, "report": "frequency",
                                           "classes": 3, "seed": 11},
          pre={0: [{"kind": "transpose", "a": 0, "b": 1}, {"kind": "slice", "ranges": [[0, 1, 1], [0, 3, 1]]},
                   {"kind": "expand", "dims": [rows, 3]}]},
          rtol=0.0, atol=tol, torch_expr="torch.multinomial(w.t()[0:1].expand(R, 3), 1, True)")
    # exact properties
    w1 = t([0.0, 2.0, 0.0, 1.0, 3.0], f32)
    g.add("categorical_sorted_all_positive", "api:categorical", "categorical", [w1], t([1, 3, 4], i64),
          attrs={"num_samples": 3, "replacement": False, "report": "sorted"},
          torch_expr="sorted(torch.multinomial(w, 3)): every positive class exactly once")
    w2 = t([[1.0, 0.0, 0.0, 1.0], [0.0, 7.0, 0.5, 0.0]], f64)
    g.add("categorical_sorted_rows_f64", "api:categorical", "categorical", [w2], t([[0, 3], [1, 2]], i64),
          attrs={"num_samples": 2, "replacement": False, "report": "sorted"},
          torch_expr="sorted(torch.multinomial(w, 2)), rows with two positive classes each")
    w3 = t([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 3.0, 0.0]], f32)
    g.add("categorical_samples_values_in", "api:categorical", "categorical", [w1], enc_meta([5000], i64),
          attrs={"num_samples": 5000, "replacement": True, "report": "samples"}, check={"values_in": [1, 3, 4]},
          torch_expr="torch.multinomial(w, 5000, True): zero-weight classes never drawn")
    g.add("categorical_samples_rows_values_in", "api:categorical", "categorical", [w3], enc_meta([2, 3000], i64),
          attrs={"num_samples": 3000, "replacement": True, "report": "samples"}, check={"values_in": [0, 2]},
          torch_expr="torch.multinomial(w, 3000, True), 2 rows")
    # Many draws per row take the sort-based path (rows * draws * classes > 2^23).
    wm = [1.0, 0.0, 3.0, 2.0, 4.0, 0.0, 1.0, 1.0]
    g.add("categorical_pooled_many_draws", "api:categorical", "categorical", [t(wm, f32)],
          torch.tensor(wm, dtype=f64) / sum(wm), rtol=0.0, atol=0.004,
          attrs={"num_samples": 1_200_000, "replacement": True, "report": "pooled", "classes": 8, "seed": 5},
          torch_expr="torch.multinomial(w, 1200000, True): share of each class")
    wz = torch.zeros(1000)
    wz[::10] = rand(100, lo=0.5, hi=2.0)
    g.add("categorical_samples_many_values_in", "api:categorical", "categorical", [wz], enc_meta([9000], i64),
          attrs={"num_samples": 9000, "replacement": True, "report": "samples"},
          check={"values_in": list(range(0, 1000, 10))},
          torch_expr="torch.multinomial(w, 9000, True), 900 of 1000 classes with zero weight")
    one_cls = t([[0.0, 0.0, 4.0], [9.0, 0.0, 0.0]], f32)
    g.add("categorical_single_class_rows", "api:categorical", "categorical", [one_cls],
          t([[2] * 50, [0] * 50], i64), attrs={"num_samples": 50, "replacement": True, "report": "samples"},
          torch_expr="one positive class per row: every draw is that class")
    g.add("categorical_empty_rows", "api:categorical", "categorical", [torch.zeros(0, 3)], torch.zeros(0, 2, dtype=i64),
          attrs={"num_samples": 2, "replacement": True, "report": "samples"}, torch_expr="torch.multinomial(zeros(0, 3), 2, True)")
    errs = [("negative", t([1.0, -1.0, 2.0], f32), 1, True, "ValueError", "a negative weight"),
            ("nan", t([1.0, NAN, 2.0], f32), 1, True, "ValueError", "a NaN weight"),
            ("inf", t([1.0, INF, 2.0], f32), 1, True, "ValueError", "an infinite weight"),
            ("zero_row", t([[1.0, 1.0], [0.0, 0.0]], f32), 1, True, "ValueError", "an all-zero row"),
            ("zero_samples", t([1.0, 1.0], f32), 0, True, "ValueError", "num_samples 0"),
            ("too_many", t([1.0, 1.0, 1.0], f32), 4, False, "ValueError", "4 draws without replacement from 3 classes"),
            ("not_enough_positive", t([0.0, 1.0, 0.0, 2.0], f32), 3, False, "ValueError",
             "3 draws without replacement, 2 positive classes (torch 1.13 draws a zero-weight class)"),
            ("no_classes", torch.zeros(2, 0), 1, True, "ValueError", "no classes"),
            ("int_weights", t([1, 2], i64), 1, True, "DTypeError", "int weights"),
            ("rank3", randn(2, 2, 2).abs(), 1, True, "ShapeError", "3-D weights")]
    for name, w, s, rep, err, expr in errs:
        g.add(f"categorical_{name}_error", "api:categorical", "categorical", [w], error=err,
              attrs={"num_samples": s, "replacement": rep}, torch_expr=f"torch.multinomial: {expr}")


def one_row_freq(p_rows, rows):
    """[1, C] expected shares for a single drawn column of the first row's probabilities."""
    return p_rows[0:1].clone()


# ============================================================================ layout
def gen_layout(g):
    x = randn(7)
    ucases = [("overlap", x, 0, 3, 2), ("stride1", randn(2, 7, 3), 1, 2, 1), ("tiles", randn(3, 8), -1, 4, 4),
              ("gaps", x, 0, 2, 3), ("whole", x, 0, 7, 1), ("size0", x, 0, 0, 1), ("step_past_end", randn(2, 5), 1, 2, 10),
              ("long_window", randn(2, 25), 1, 20, 1), ("long_window_gaps", randn(40), 0, 17, 5),
              ("i64", randint(0, 9, 4, 5), 0, 2, 1), ("bool", randbool(6), 0, 3, 3), ("empty_other_dim", torch.zeros(0, 5), 1, 2, 1)]
    for name, v, d, size, step in ucases:
        g.add(f"unfold_{name}", "api:unfold", "unfold_dim", [v], v.unfold(d, size, step),
              attrs={"dim": d, "size": size, "step": step}, torch_expr=f"x.unfold({d}, {size}, {step}), x {list(v.shape)}")
    xt = randn(5, 3)
    g.add("unfold_transposed_f32", "api:unfold", "unfold_dim", [xt], xt.t().unfold(1, 2, 2), attrs={"dim": 1, "size": 2, "step": 2},
          pre={0: TRANS}, torch_expr="x.t().unfold(1, 2, 2)")
    g.add("unfold_transposed_overlap_f32", "api:unfold", "unfold_dim", [xt], xt.t().unfold(1, 3, 1),
          attrs={"dim": 1, "size": 3, "step": 1}, pre={0: TRANS}, torch_expr="x.t().unfold(1, 3, 1)")
    for name, size, step, err in [("size_error", 8, 1, "ShapeError"), ("step_error", 3, 0, "ValueError"),
                                  ("negative_size_error", -1, 1, "ValueError")]:
        g.add(f"unfold_{name}", "api:unfold", "unfold_dim", [x], error=err, attrs={"dim": 0, "size": size, "step": step},
              torch_expr=f"x.unfold(0, {size}, {step}) of a [7] tensor")
    g.add("unfold_dim_error", "api:unfold", "unfold_dim", [x], error="IndexError", attrs={"dim": 1, "size": 1, "step": 1},
          torch_expr="dim 1 of a 1-D tensor")

    x3 = randn(2, 3, 4)
    for name, src, dst in [("one", [0], [2]), ("negative", [-1], [0]), ("two", [0, 1], [2, 0]), ("identity", [1], [1]),
                           ("all", [0, 1, 2], [2, 0, 1])]:
        g.add(f"movedim_{name}", "api:movedim", "movedim", [x3], torch.movedim(x3, src, dst),
              attrs={"source": src, "destination": dst}, torch_expr=f"torch.movedim(x, {src}, {dst})")
    xi = randint(0, 9, 2, 1, 3, dtype=i32)
    g.add("movedim_i32", "api:movedim", "movedim", [xi], torch.movedim(xi, [2], [0]), attrs={"source": [2], "destination": [0]},
          torch_expr="torch.movedim(x, 2, 0)")
    for name, src, dst, err in [("count_error", [0, 1], [2], "ShapeError"), ("repeat_error", [0, 0], [1, 2], "IndexError"),
                                ("range_error", [3], [0], "IndexError"), ("dest_repeat_error", [0, 1], [2, 2], "IndexError")]:
        g.add(f"movedim_{name}", "api:movedim", "movedim", [x3], error=err, attrs={"source": src, "destination": dst},
              torch_expr=f"torch.movedim(x, {src}, {dst})")

    x2 = randn(3, 4)
    for d in [0, 1, -1]:
        dn = f"dim{d}" if d >= 0 else "dimm1"
        g.add(f"iter_dim_{dn}", "api:iter_dim", "iter_dim", [x2], list(torch.split(x2, 1, d)), attrs={"dim": d},
              torch_expr=f"[x.narrow({d}, i, 1) for i in range(x.shape[{d}])]")
    xb = randbool(2, 3)
    g.add("iter_dim_bool", "api:iter_dim", "iter_dim", [xb], list(torch.split(xb, 1, 1)), attrs={"dim": 1},
          torch_expr="[x.narrow(1, i, 1) ...]")
    g.add("iter_dim_zero_size", "api:iter_dim", "iter_dim", [torch.zeros(2, 0)], [], attrs={"dim": 1},
          torch_expr="a size-0 dim: no slices")
    g.add("iter_dim_error", "api:iter_dim", "iter_dim", [x2], error="IndexError", attrs={"dim": 2}, torch_expr="dim 2 of a rank-2 tensor")

    # split_with_sizes: the existing layout cases cover [1, 3, 1]; these add zero sizes, kinds and errors.
    xs = randn(5, 2)
    scases = [("zero_size", xs, [2, 0, 3], 0), ("last_dim_negative", xs, [1, 1], -1), ("i64", randint(0, 9, 4, 3), [1, 2], 1),
              ("bool", randbool(6), [4, 2], 0), ("one_piece", xs, [5], 0), ("empty_dim_no_sizes", torch.zeros(0, 2), [], 0),
              ("empty_dim_zero_sizes", torch.zeros(0, 2), [0, 0], 0)]
    for name, v, sizes, d in scases:
        g.add(f"split_with_sizes_{name}", "api:split_with_sizes", "split_with_sizes", [v], list(torch.split(v, sizes, d)),
              attrs={"sizes": sizes, "dim": d}, torch_expr=f"torch.split(x, {sizes}, {d})")
    xst = randn(2, 5)
    g.add("split_with_sizes_transposed", "api:split_with_sizes", "split_with_sizes", [xst],
          list(torch.split(xst.t(), [3, 2], 0)), attrs={"sizes": [3, 2], "dim": 0}, pre={0: TRANS},
          torch_expr="torch.split(x.t(), [3, 2], 0)")
    big = 1 << 62
    for name, sizes, d, err in [("negative_error", [2, -1, 4], 0, "ValueError"), ("sum_error", [2, 2], 0, "ShapeError"),
                                ("empty_list_error", [], 0, "ShapeError"), ("overflow_error", [big, big, big, big, 5], 0, "ShapeError"),
                                ("dim_error", [5], 2, "IndexError")]:
        g.add(f"split_with_sizes_{name}", "api:split_with_sizes", "split_with_sizes", [xs], error=err,
              attrs={"sizes": sizes, "dim": d}, torch_expr=f"torch.split(x [5, 2], {sizes}, {d})")


# ============================================================================ numeric: einsum, cross, dot
def gen_numeric(g):
    def ein(name, eq, ts, pre=None, dtype_out=None, expr=None):
        views = [gf.apply_pre(x, pre[i]) if pre and i in pre else x for i, x in enumerate(ts)]
        if views[0].is_floating_point():
            ref = torch.einsum(eq, *[v.double() for v in views]).to(views[0].dtype)
        else:
            ref = torch.einsum(eq, *views).to(views[0].dtype)  # torch promotes int32 sums; Burn keeps the dtype
        g.add(f"einsum_{name}", "api:einsum", "einsum", ts, one(ref), attrs={"equation": eq}, pre=pre,
              rtol=1e-5, atol=1e-5, torch_expr=expr or f"torch.einsum('{eq}', {', '.join(str(list(v.shape)) for v in views)})")

    ein("matmul", "ij,jk->ik", [randn(3, 4), randn(4, 5)])
    ein("matmul_implicit", "ij,jk", [randn(3, 4), randn(4, 2)])
    ein("batch_matmul", "bij,bjk->bik", [randn(2, 3, 4), randn(2, 4, 5)])
    ein("transpose", "ij->ji", [randn(2, 3)])
    ein("implicit_sorted", "ba", [randn(2, 3)], expr="torch.einsum('ba', x): implicit output 'ab' transposes")
    ein("uppercase_first", "aB", [randn(2, 3)], expr="torch.einsum('aB', x): implicit output 'Ba' (upper case first)")
    ein("trace", "ii", [randn(4, 4)])
    ein("diagonal", "ii->i", [randn(3, 3)])
    ein("diagonal_triple", "iii->i", [randn(3, 3, 3)])
    ein("diagonal_mixed", "iji->j", [randn(3, 2, 3)])
    ein("batch_diagonal", "bii->bi", [randn(2, 3, 3)])
    ein("outer", "i,j->ij", [randn(3), randn(4)])
    ein("dot", "i,i", [randn(5), randn(5)])
    ein("dot_explicit", "i,i->", [randn(5), randn(5)])
    ein("sum_all", "ij->", [randn(3, 4)])
    ein("sum_rows", "ij->i", [randn(3, 4)])
    ein("hadamard", "ij,ij->ij", [randn(3, 4), randn(3, 4)])
    ein("row_dots", "ij,ij->i", [randn(3, 4), randn(3, 4)])
    ein("unit_free_dims", "ij,jk->ik", [randn(1, 2), randn(2, 1)], expr="torch.einsum('ij,jk->ik', [1, 2], [2, 1])")
    ein("unit_free_batch", "bij,bjk->bki", [randn(3, 1, 4), randn(3, 4, 1)])
    ein("batch_dots", "bi,bi->b", [randn(4, 5, dtype=f64), randn(1, 5, dtype=f64)])
    ein("bilinear", "bn,anm,bm->ba", [randn(2, 3), randn(4, 3, 5), randn(2, 5)])
    ein("chain", "ij,jk,kl->il", [randn(2, 3), randn(3, 4), randn(4, 2)])
    ein("chain_implicit", "ab,bc,cd", [randn(2, 3), randn(3, 4), randn(4, 5)])
    ein("carried_label", "ij,kl,jl->ik", [randn(2, 3), randn(4, 5), randn(3, 5)],
        expr="torch.einsum('ij,kl,jl->ik'): j and l wait for the third operand")
    ein("free_labels", "abc,cd,be->ade", [randn(2, 3, 4), randn(4, 5), randn(3, 2)])
    ein("ellipsis_matmul", "...ij,...jk->...ik", [randn(5, 1, 2, 3), randn(4, 3, 2)])
    ein("ellipsis_transpose", "...ij->...ji", [randn(2, 3, 4)])
    ein("ellipsis_middle", "i...j->j...i", [randn(2, 3, 4, 5)])
    ein("ellipsis_implicit", "i...", [randn(2, 3, 4)], expr="torch.einsum('i...', x): the ellipsis dims first")
    ein("ellipsis_summed", "...ij->ij", [randn(2, 2, 3)], expr="torch.einsum('...ij->ij'): ellipsis dims summed")
    ein("ellipsis_empty", "ij->...ij", [randn(2, 3)])
    ein("ellipsis_broadcast", "...,...->...", [randn(2), randn(3, 1)])
    ein("broadcast_label", "ij,jk", [randn(2, 3), randn(1, 4)], expr="torch.einsum('ij,jk', [2, 3], [1, 4]): j broadcasts")
    ein("broadcast_batch", "ij,ij->ij", [randn(2, 3), randn(1, 3)])
    ein("spaces", "i j -> j i", [randn(2, 3)])
    ein("i64", "ij,jk->ik", [randint(-5, 5, 3, 4), randint(-5, 5, 4, 2)])
    ein("i32_trace", "ii", [randint(-5, 5, 3, 3, dtype=i32)])
    ein("f64", "bij,bkj->bik", [randn(2, 3, 4, dtype=f64), randn(2, 5, 4, dtype=f64)])
    ein("zero_contraction", "ij,jk->ik", [torch.zeros(2, 0), torch.zeros(0, 3)], expr="a contraction over a size-0 dim: zeros")
    ein("zero_sum", "i->", [torch.zeros(0)])
    ein("zero_free", "ij,jk->ik", [torch.zeros(0, 3), randn(3, 2)])
    ein("transposed_input", "ij,jk->ik", [randn(4, 3), randn(4, 2)], pre={0: TRANS})
    a, b = Gen([64, 80], f32, 0.003), Gen([80, 48], f32, 0.002)
    g.add("einsum_large_f32", "api:einsum", "einsum", [a, b], sampled(torch.einsum("ij,jk->ik", a.tensor.double(), b.tensor.double()).float()),
          attrs={"equation": "ij,jk->ik"}, rtol=1e-4, atol=1e-4, torch_expr="torch.einsum('ij,jk->ik'), 64x80 @ 80x48")
    x23 = randn(2, 3)
    errs = [("bad_char", "i1", [x23], "ValueError"), ("lone_dot", "i.j", [x23], "ValueError"),
            ("two_ellipses", "...i...", [x23], "ValueError"), ("too_few_operands", "ij,jk", [x23], "ValueError"),
            ("too_many_operands", "ij", [x23, x23], "ValueError"), ("rank", "ijk", [x23], "ShapeError"),
            ("rank_ellipsis", "ijk...", [x23], "ShapeError"), ("output_unknown", "ij->ik", [x23], "ValueError"),
            ("output_repeated", "ij->ii", [x23], "ValueError"), ("two_arrows", "ij->j->i", [x23], "ValueError"),
            ("repeated_size", "ii", [randn(3, 4)], "ShapeError"), ("broadcast", "ij,jk", [x23, randn(2, 4)], "ShapeError"),
            ("ellipsis_broadcast", "...ij,...jk", [randn(5, 2, 2, 3), randn(4, 3, 2)], "ShapeError"),
            ("dtype", "i,i", [randn(3), randn(3, dtype=f64)], "DTypeError"), ("bool", "i->", [randbool(3)], "DTypeError"),
            ("no_operands", "->", [], "ValueError")]
    for name, eq, ts, err in errs:
        g.add(f"einsum_{name}_error", "api:einsum", "einsum", ts, error=err, attrs={"equation": eq},
              torch_expr=f"torch.einsum('{eq}', ...) fails")

    def crs(name, a_, b_, d, pre=None):
        av = gf.apply_pre(a_, pre[0]) if pre else a_
        ref = torch.linalg.cross(av.double(), b_.double(), dim=d).to(a_.dtype) if a_.is_floating_point() else \
            torch.linalg.cross(av, b_, dim=d)
        g.add(f"cross_{name}", "api:cross", "cross", [a_, b_], ref, attrs={"dim": d}, pre=pre, rtol=1e-5, atol=1e-5,
              torch_expr=f"torch.linalg.cross(a {list(av.shape)}, b {list(b_.shape)}, dim={d})")

    crs("vector", randn(3), randn(3), 0)
    crs("rows", randn(4, 3), randn(4, 3), -1)
    crs("dim0", randn(3, 4), randn(3, 4), 0)
    crs("broadcast", randn(1, 3), randn(4, 3), 1)
    crs("broadcast_both", randn(2, 1, 3), randn(1, 4, 3), -1)
    crs("i64", randint(-9, 9, 2, 3), randint(-9, 9, 2, 3), 1)
    crs("f64", randn(3, 2, dtype=f64), randn(3, 2, dtype=f64), 0)
    crs("transposed", randn(3, 5), randn(5, 3), 1, pre={0: TRANS})
    crs("empty", torch.zeros(0, 3), torch.zeros(0, 3), 1)
    for name, a_, b_, d, err in [("size_error", randn(4, 4), randn(4, 4), 1, "ShapeError"),
                                 ("one_side_error", randn(3, 4), randn(1, 4), 0, "ShapeError"),
                                 ("rank_error", randn(3), randn(2, 3), -1, "ShapeError"),
                                 ("broadcast_error", randn(2, 3), randn(4, 3), 1, "ShapeError"),
                                 ("dtype_error", randn(3), randn(3, dtype=f64), 0, "DTypeError"),
                                 ("dim_error", randn(3), randn(3), 1, "IndexError")]:
        g.add(f"cross_{name}", "api:cross", "cross", [a_, b_], error=err, attrs={"dim": d},
              torch_expr=f"torch.linalg.cross(a {list(a_.shape)}, b {list(b_.shape)}, dim={d}) fails")

    for name, a_, b_ in [("f32", randn(7), randn(7)), ("f64", randn(5, dtype=f64), randn(5, dtype=f64)),
                         ("i64", randint(-9, 9, 6), randint(-9, 9, 6)), ("i32", randint(-9, 9, 4, dtype=i32), randint(-9, 9, 4, dtype=i32)),
                         ("empty", torch.zeros(0), torch.zeros(0))]:
        ref = torch.dot(a_.double(), b_.double()).to(a_.dtype) if a_.is_floating_point() else torch.dot(a_, b_)
        g.add(f"dot_{name}", "api:dot", "dot", [a_, b_], one(ref), rtol=1e-5, atol=1e-5, torch_expr="torch.dot(a, b)")
    for name, a_, b_, err in [("rank_error", randn(2, 3), randn(2, 3), "ShapeError"), ("length_error", randn(3), randn(4), "ShapeError"),
                              ("dtype_error", randn(3), randint(0, 3, 3), "DTypeError"), ("bool_error", randbool(3), randbool(3), "DTypeError")]:
        g.add(f"dot_{name}", "api:dot", "dot", [a_, b_], error=err, torch_expr=f"torch.dot(a {list(a_.shape)}, b {list(b_.shape)}) fails")


def main():
    g = Group("tensor_composites")
    gen_median(g)
    gen_cov(g)
    gen_indexing(g)
    gen_creation(g)
    gen_layout(g)
    gen_numeric(g)
    g.write()


if __name__ == "__main__":
    sys.exit(main())
