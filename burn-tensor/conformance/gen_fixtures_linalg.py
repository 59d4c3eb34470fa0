#!/usr/bin/python3
# Writes the PyTorch reference fixtures of burn::linalg: fixtures/linalg.json (group "linalg").
# Run with Debian's python3-torch: /usr/bin/python3 burn-tensor/conformance/gen_fixtures_linalg.py
#
# Burn conventions encoded here: reduced dims are kept (vector_norm, cosine_similarity, trace keeps
# [..., 1, 1]); det of one matrix has shape [1]; lu_factor's pivots are 0-based (torch's - 1).
# The factorisations' references are computed by torch in float64 from the f32 inputs, then cast.
import sys

import torch
import torch.nn.functional as F

from gen_fixtures import TRANS, Group, f32, f64, i32, i64, lbl, randint, randn, t

INF = float("inf")
FACT_TOL = {"rtol": 1e-4, "atol": 1e-5}  # f32 factorisations: different summation orders than LAPACK


def ref64(x, fn):
    """fn on x in float64, outputs cast back to x's dtype (floats) or int64."""
    outs = fn(x.to(f64))
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    return [o.to(x.dtype) if o.is_floating_point() else o.to(i64) for o in outs]


def ord_name(o):
    return {INF: "inf", -INF: "ninf", 0.5: "half", -1: "m1"}.get(o, str(o).replace(".", "_"))


def gen_vector_norm(g):
    x = randn(3, 4)
    x[0, 1] = 0.0
    x[2, 3] = 0.0
    for o in [0, 1, 2, INF, -INF, 3, 0.5, -1]:
        for dims in [[1], [0], [], [0, 1], [-1]]:
            nm = f"vector_norm_{ord_name(o)}_{'_'.join(str(d).replace('-', 'm') for d in dims) or 'all'}"
            ref = torch.linalg.vector_norm(x, o, dim=dims or None, keepdim=True)
            g.add(nm, "api:vector_norm", "vector_norm", [x], ref, attrs={"ord": o if abs(o) != INF else str(o), "dims": dims},
                  torch_expr=f"torch.linalg.vector_norm(x, {o}, dim={dims or None}, keepdim=True)")
    x3 = randn(2, 3, 4)
    g.add("vector_norm_2_rank3_dims02", "api:vector_norm", "vector_norm", [x3],
          torch.linalg.vector_norm(x3, 2, dim=[0, 2], keepdim=True), attrs={"ord": 2, "dims": [0, 2]},
          torch_expr="torch.linalg.vector_norm(x, 2, dim=[0, 2], keepdim=True)")
    x64 = randn(4, 5, dtype=f64)
    g.add("vector_norm_3_f64", "api:vector_norm", "vector_norm", [x64],
          torch.linalg.vector_norm(x64, 3, dim=[1], keepdim=True), attrs={"ord": 3, "dims": [1]},
          torch_expr="torch.linalg.vector_norm(x, 3, dim=1, keepdim=True), f64")
    xt = randn(4, 3)
    g.add("vector_norm_2_transposed", "api:vector_norm", "vector_norm", [xt],
          torch.linalg.vector_norm(xt.t(), 2, dim=[1], keepdim=True), attrs={"ord": 2, "dims": [1]}, pre={0: TRANS},
          torch_expr="torch.linalg.vector_norm(x.t(), 2, dim=1, keepdim=True)")
    z = torch.zeros(2, 3)
    g.add("vector_norm_2_zero_rows", "api:vector_norm", "vector_norm", [z],
          torch.linalg.vector_norm(z, 2, dim=[1], keepdim=True), attrs={"ord": 2, "dims": [1]},
          torch_expr="torch.linalg.vector_norm(zeros, 2, dim=1, keepdim=True)")
    e = torch.zeros(3, 0)
    g.add("vector_norm_1_empty_dim", "api:vector_norm", "vector_norm", [e],
          torch.linalg.vector_norm(e, 1, dim=[1], keepdim=True), attrs={"ord": 1, "dims": [1]},
          torch_expr="torch.linalg.vector_norm(zeros(3, 0), 1, dim=1, keepdim=True)")
    g.add("vector_norm_inf_empty_dim", "api:vector_norm", "vector_norm", [e], error="ValueError",
          attrs={"ord": "inf", "dims": [1]}, torch_expr="torch.linalg.vector_norm(zeros(3, 0), inf, dim=1): error")
    g.add("vector_norm_int", "api:vector_norm", "vector_norm", [randint(-3, 3, 4)], error="DTypeError",
          attrs={"ord": 2, "dims": [0]}, torch_expr="torch.linalg.vector_norm(int tensor): error")
    g.add("vector_norm_dim_range", "api:vector_norm", "vector_norm", [x], error="IndexError",
          attrs={"ord": 2, "dims": [2]}, torch_expr="dim 2 of a 2-D tensor")
    g.add("vector_norm_dim_repeated", "api:vector_norm", "vector_norm", [x], error="IndexError",
          attrs={"ord": 2, "dims": [1, -1]}, torch_expr="dim 1 twice")
    g.add("vector_norm_ord_nan", "api:vector_norm", "vector_norm", [x], error="ValueError",
          attrs={"ord": "nan", "dims": [1]}, torch_expr="ord NaN")


def gen_diag(g):
    v = randn(4)
    for off in [0, 2, -1]:
        g.add(f"diag_vector_off{str(off).replace('-', 'm')}", "api:diag", "diag", [v], torch.diag(v, off),
              attrs={"offset": off}, torch_expr=f"torch.diag(v, {off})")
    m = randn(3, 4)
    for off in [0, 1, -2, 5, -3]:
        g.add(f"diag_matrix_off{str(off).replace('-', 'm')}", "api:diag", "diag", [m], torch.diagonal(m, off),
              attrs={"offset": off}, torch_expr=f"torch.diag(m, {off})")
    b = randn(2, 3, 3)
    for off in [0, 1]:
        g.add(f"diag_batch_off{off}", "api:diag", "diag", [b], torch.diagonal(b, off, -2, -1),
              attrs={"offset": off}, torch_expr=f"torch.diagonal(b, {off}, -2, -1)")
    mi = randint(-9, 9, 4, 3)
    g.add("diag_matrix_i64", "api:diag", "diag", [mi], torch.diag(mi), attrs={"offset": 0}, torch_expr="torch.diag(int)")
    vi = randint(-9, 9, 3, dtype=i32)
    g.add("diag_vector_i32", "api:diag", "diag", [vi], torch.diag(vi, 1), attrs={"offset": 1},
          torch_expr="torch.diag(int32 v, 1)")
    g.add("diag_empty_vector", "api:diag", "diag", [torch.zeros(0)], torch.diag(torch.zeros(0), 1),
          attrs={"offset": 1}, torch_expr="torch.diag(zeros(0), 1)")
    mt = randn(4, 3)
    g.add("diag_transposed", "api:diag", "diag", [mt], torch.diag(mt.t(), 1), attrs={"offset": 1}, pre={0: TRANS},
          torch_expr="torch.diag(m.t(), 1)")
    g.add("diag_bool", "api:diag", "diag", [torch.ones(3, 3, dtype=torch.bool)], error="DTypeError",
          attrs={"offset": 0}, torch_expr="bool input")


def gen_trace(g):
    for nm, x in [("square", randn(3, 3)), ("rect_batch", randn(2, 4, 3)), ("i64", randint(-9, 9, 3, 3))]:
        ref = torch.diagonal(x, 0, -2, -1).sum(-1)[..., None, None]
        g.add(f"trace_{nm}", "api:trace", "trace", [x], ref, torch_expr="torch.trace(x), batched, [..., 1, 1]")
    g.add("trace_vector", "api:trace", "trace", [randn(3)], error="ShapeError", torch_expr="1-D input")


def gen_outer(g):
    cases = [("vectors", randn(3), randn(4)), ("batch", randn(2, 3), randn(2, 5)), ("broadcast", randn(1, 3), randn(2, 4)),
             ("i64", randint(-5, 5, 3), randint(-5, 5, 2))]
    for nm, x, y in cases:
        g.add(f"outer_{nm}", "api:outer", "outer", [x, y], x[..., :, None] * y[..., None, :],
              torch_expr="x[..., :, None] * y[..., None, :] (torch.outer for vectors)")
    g.add("outer_rank", "api:outer", "outer", [randn(3), randn(2, 3)], error="ShapeError", torch_expr="ranks differ")
    g.add("outer_dtype", "api:outer", "outer", [randn(3), randn(3, dtype=f64)], error="DTypeError", torch_expr="f32 x f64")
    g.add("outer_batch_mismatch", "api:outer", "outer", [randn(2, 3), randn(3, 3)], error="ShapeError", torch_expr="batch 2 vs 3")


def gen_cosine(g):
    x, y = randn(4, 5), randn(4, 5)
    y[1] = 0.0
    for dim in [1, 0, -1]:
        g.add(f"cosine_similarity_dim{str(dim).replace('-', 'm')}", "api:cosine_similarity", "cosine_similarity", [x, y],
              F.cosine_similarity(x, y, dim=dim).unsqueeze(dim), attrs={"dim": dim, "eps": 1e-8},
              torch_expr=f"F.cosine_similarity(x, y, dim={dim}).unsqueeze({dim})")
    a, b = randn(3, 1, 5), randn(1, 4, 5)
    g.add("cosine_similarity_broadcast", "api:cosine_similarity", "cosine_similarity", [a, b],
          F.cosine_similarity(a, b, dim=-1).unsqueeze(-1), attrs={"dim": -1, "eps": 1e-8},
          torch_expr="F.cosine_similarity(a[3,1,5], b[1,4,5], dim=-1).unsqueeze(-1)")
    c, d = randn(3, 4), randn(3, 1)
    g.add("cosine_similarity_broadcast_dim", "api:cosine_similarity", "cosine_similarity", [c, d],
          F.cosine_similarity(c, d, dim=1).unsqueeze(1), attrs={"dim": 1, "eps": 1e-8},
          torch_expr="F.cosine_similarity(c[3,4], d[3,1], dim=1).unsqueeze(1): d's norm over the broadcast dim")
    s1 = torch.tensor([[1e-2, 0.0], [3.0, 4.0]])
    s2 = torch.tensor([[1e-2, 0.0], [1e-4, 0.0]])
    g.add("cosine_similarity_eps", "api:cosine_similarity", "cosine_similarity", [s1, s2],
          F.cosine_similarity(s1, s2, dim=1, eps=1e-3).unsqueeze(1), attrs={"dim": 1, "eps": 1e-3},
          torch_expr="F.cosine_similarity(x, y, dim=1, eps=1e-3): each norm clamped to eps")
    x64, y64 = randn(3, 6, dtype=f64), randn(3, 6, dtype=f64)
    g.add("cosine_similarity_f64", "api:cosine_similarity", "cosine_similarity", [x64, y64],
          F.cosine_similarity(x64, y64, dim=1).unsqueeze(1), attrs={"dim": 1, "eps": 1e-8},
          torch_expr="F.cosine_similarity(x, y, dim=1), f64")
    g.add("cosine_similarity_int", "api:cosine_similarity", "cosine_similarity", [randint(0, 3, 2, 3), randint(0, 3, 2, 3)],
          error="DTypeError", attrs={"dim": 1, "eps": 1e-8}, torch_expr="int inputs")
    g.add("cosine_similarity_eps_negative", "api:cosine_similarity", "cosine_similarity", [x, y], error="ValueError",
          attrs={"dim": 1, "eps": -1.0}, torch_expr="eps -1")
    g.add("cosine_similarity_dim_range", "api:cosine_similarity", "cosine_similarity", [x, y], error="IndexError",
          attrs={"dim": 2, "eps": 1e-8}, torch_expr="dim 2 of 2-D")


def gen_matvec(g):
    cases = [("2d", randn(3, 4), randn(4)), ("batch", randn(2, 3, 4), randn(2, 4)),
             ("broadcast", randn(1, 3, 4), randn(5, 4)), ("i64", randint(-5, 5, 3, 2), randint(-5, 5, 2))]
    for nm, m, v in cases:
        g.add(f"matvec_{nm}", "api:matvec", "matvec", [m, v], torch.matmul(m, v.unsqueeze(-1)).squeeze(-1),
              torch_expr="torch.matmul(m, v[..., None])[..., 0]")
    m = randn(4, 3)
    v = randn(4)
    g.add("matvec_transposed", "api:matvec", "matvec", [m, v], torch.mv(m.t(), v), pre={0: TRANS},
          torch_expr="torch.mv(m.t(), v)")
    g.add("matvec_inner", "api:matvec", "matvec", [randn(3, 4), randn(3)], error="ShapeError", torch_expr="4 columns, 3 entries")
    g.add("matvec_rank", "api:matvec", "matvec", [randn(3, 4), randn(2, 4)], error="ShapeError", torch_expr="vector rank 2")
    g.add("matvec_dtype", "api:matvec", "matvec", [randn(3, 4), randn(4, dtype=f64)], error="DTypeError", torch_expr="f32 x f64")


def gen_det(g):
    mats = [("3x3", randn(3, 3)), ("5x5", randn(5, 5)), ("batch", randn(2, 3, 4, 4)), ("1x1", randn(1, 1)),
            ("swap", t([[0.0, 2.0], [3.0, 1.0]], f32))]
    sing = randn(4, 4)
    sing[2] = sing[0]  # two equal rows: an exact zero pivot
    mats.append(("singular_equal_rows", sing))
    mats.append(("zeros", torch.zeros(3, 3)))
    zc = randn(3, 3)
    zc[:, 0] = 0.0  # a zero first column: the first pivot is zero
    mats.append(("zero_column", zc))
    for nm, x in mats:
        (ref,) = ref64(x, torch.linalg.det)
        ref = ref.reshape(x.shape[:-2]) if x.dim() > 2 else ref.reshape(1)
        g.add(f"det_{nm}", "api:det", "det", [x], ref, torch_expr=f"torch.linalg.det(x) (f64), shape {list(x.shape)}",
              **FACT_TOL)
    x64 = randn(6, 6, dtype=f64)
    g.add("det_f64", "api:det", "det", [x64], torch.linalg.det(x64).reshape(1), torch_expr="torch.linalg.det(x), f64",
          rtol=1e-10, atol=1e-12)
    e = torch.zeros(2, 0, 0)
    g.add("det_empty_matrices", "api:det", "det", [e], torch.linalg.det(e), torch_expr="torch.linalg.det(zeros(2, 0, 0)) = 1")
    xt = randn(4, 4)
    (reft,) = ref64(xt.t(), torch.linalg.det)
    g.add("det_transposed", "api:det", "det", [xt], reft.reshape(1), pre={0: TRANS}, torch_expr="torch.linalg.det(x.t())",
          **FACT_TOL)
    g.add("det_not_square", "api:det", "det", [randn(3, 4)], error="ShapeError", torch_expr="3x4")
    g.add("det_vector", "api:det", "det", [randn(3)], error="ShapeError", torch_expr="1-D")
    g.add("det_int", "api:det", "det", [randint(-3, 3, 3, 3)], error="DTypeError", torch_expr="int input")


def gen_lu(g):
    sing = randn(4, 4)
    sing[3] = sing[1]
    mats = [("4x4", randn(4, 4)), ("3x5", randn(3, 5)), ("5x3", randn(5, 3)), ("batch", randn(2, 3, 3)),
            ("singular", sing), ("zero_column", torch.cat([torch.zeros(3, 1), randn(3, 2)], 1))]
    for nm, x in mats:
        lu, piv = ref64(x, lambda v: torch.linalg.lu_factor_ex(v)[:2])
        g.add(f"lu_factor_{nm}", "api:lu_factor", "lu_factor", [x], [lu, (piv - 1).to(i64)],
              torch_expr="torch.linalg.lu_factor_ex(x) (f64); pivots - 1", **FACT_TOL)
        p, l, u = ref64(x, lambda v: torch.linalg.lu(v))
        g.add(f"lu_{nm}", "api:lu", "lu", [x], [p, l, u], torch_expr="torch.linalg.lu(x) (f64): P, L, U", **FACT_TOL)
    x64 = randn(5, 5, dtype=f64)
    lu, piv = torch.linalg.lu_factor(x64)
    g.add("lu_factor_f64", "api:lu_factor", "lu_factor", [x64], [lu, (piv - 1).to(i64)],
          torch_expr="torch.linalg.lu_factor(x), f64", rtol=1e-10, atol=1e-12)
    e = torch.zeros(0, 3)
    g.add("lu_empty", "api:lu", "lu", [e], list(torch.linalg.lu(e)), torch_expr="torch.linalg.lu(zeros(0, 3))")
    g.add("lu_factor_vector", "api:lu_factor", "lu_factor", [randn(3)], error="ShapeError", torch_expr="1-D")
    g.add("lu_int", "api:lu", "lu", [randint(-3, 3, 3, 3)], error="DTypeError", torch_expr="int input")


def gen_qr(g):
    for nm, x in [("5x3", randn(5, 3)), ("3x5", randn(3, 5)), ("4x4", randn(4, 4)), ("batch", randn(2, 4, 3)),
                  ("zero_column", torch.cat([randn(4, 1), torch.zeros(4, 1), randn(4, 1)], 1)),
                  ("upper", torch.triu(randn(3, 3)))]:
        for mode in ["reduced", "complete"]:
            q, r = ref64(x, lambda v, m=mode: torch.linalg.qr(v, mode=m))
            g.add(f"qr_{mode}_{nm}", "api:qr", "qr", [x], [q, r], attrs={"mode": mode},
                  torch_expr=f"torch.linalg.qr(x, mode='{mode}') (f64)", **FACT_TOL)
    x64 = randn(6, 4, dtype=f64)
    q, r = torch.linalg.qr(x64)
    g.add("qr_reduced_f64", "api:qr", "qr", [x64], [q, r], attrs={"mode": "reduced"},
          torch_expr="torch.linalg.qr(x), f64", rtol=1e-10, atol=1e-12)
    xt = randn(3, 4)
    q, r = ref64(xt.t(), lambda v: torch.linalg.qr(v))
    g.add("qr_reduced_transposed", "api:qr", "qr", [xt], [q, r], attrs={"mode": "reduced"}, pre={0: TRANS},
          torch_expr="torch.linalg.qr(x.t())", **FACT_TOL)
    g.add("qr_vector", "api:qr", "qr", [randn(3)], error="ShapeError", attrs={"mode": "reduced"}, torch_expr="1-D")
    g.add("qr_int", "api:qr", "qr", [randint(-3, 3, 3, 3)], error="DTypeError", attrs={"mode": "reduced"},
          torch_expr="int input")


def main():
    g = Group("linalg")
    for fn in [gen_vector_norm, gen_diag, gen_trace, gen_outer, gen_cosine, gen_matvec, gen_det, gen_lu, gen_qr]:
        fn(g)
    g.write()


if __name__ == "__main__":
    sys.exit(main())
