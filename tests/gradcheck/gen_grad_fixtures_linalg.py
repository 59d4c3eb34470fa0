#!/usr/bin/python3
# Writes the PyTorch gradient fixtures of burn::linalg: fixtures/linalg.json (group "linalg"), in the
# format of gen_grad_fixtures.py (whose helpers it imports). Run with Debian's python3-torch:
#   /usr/bin/python3 tests/gradcheck/gen_grad_fixtures_linalg.py [--no-fd]
# Burn's shapes are torch's with the reduced dims kept (vector_norm, cosine_similarity, trace) and
# det of one matrix as [1]. Matrices are drawn so that LU's pivot choices and QR's reflections stay
# the same within 1e-3 of the inputs (the central-difference margin check verifies it). vector_norm
# with ord 0 has no case: its result is untracked (a count, as Burn's l0_norm), torch's a zero gradient.
import argparse
import sys

import torch
import torch.nn.functional as F

import gen_grad_fixtures as gg
from gen_grad_fixtures import Group, distinct, randn, signed_uniform, unary_fn, binary_fn

INF = float("inf")


def gen_linalg():
    g = Group("linalg")
    x = signed_uniform(3, 4, lo=0.2, hi=2.0)
    for o, dims, grad2 in [(2, [1], True), (1, [0], False), (3, [], True), (0.5, [1], False), (-1, [0], False)]:
        nm = f"vector_norm_{str(o).replace('.', '_').replace('-', 'm')}_{'_'.join(map(str, dims)) or 'all'}"
        g.add(nm, "api:vector_norm", "vector_norm", [x],
              unary_fn(lambda v, o=o, d=dims: torch.linalg.vector_norm(v, o, dim=d or None, keepdim=True)),
              attrs={"ord": o, "dims": dims}, grad2=grad2,
              expr=f"torch.linalg.vector_norm(x, {o}, dim={dims or None}, keepdim=True)")
    xd = distinct(3, 4, step=0.1, offset=0.013)  # distinct |x|: no ties for max/min
    for o, nm in [(INF, "inf"), (-INF, "ninf")]:
        g.add(f"vector_norm_{nm}_1", "api:vector_norm", "vector_norm", [xd],
              unary_fn(lambda v, o=o: torch.linalg.vector_norm(v, o, dim=[1], keepdim=True)),
              attrs={"ord": str(o), "dims": [1]}, expr=f"torch.linalg.vector_norm(x, {o}, dim=1, keepdim=True)")

    g.add("diag_vector_off1", "api:diag", "diag", [randn(3)], unary_fn(lambda v: torch.diag(v, 1)),
          attrs={"offset": 1}, expr="torch.diag(v, 1)")
    g.add("diag_matrix_offm1", "api:diag", "diag", [randn(3, 4)], unary_fn(lambda v: torch.diagonal(v, -1)),
          attrs={"offset": -1}, expr="torch.diag(m, -1)")
    g.add("diag_batch", "api:diag", "diag", [randn(2, 3, 3)], unary_fn(lambda v: torch.diagonal(v, 0, -2, -1)),
          attrs={"offset": 0}, expr="torch.diagonal(b, 0, -2, -1)")
    g.add("trace_batch", "api:trace", "trace", [randn(2, 3, 3)],
          unary_fn(lambda v: torch.diagonal(v, 0, -2, -1).sum(-1)[..., None, None]), expr="trace, [..., 1, 1]")
    g.add("outer_batch", "api:outer", "outer", [randn(2, 3), randn(2, 4)],
          binary_fn(lambda a, b: a[..., :, None] * b[..., None, :]), grad2=True, expr="batched torch.outer")

    g.add("cosine_similarity_dim1", "api:cosine_similarity", "cosine_similarity", [randn(4, 5), randn(4, 5)],
          binary_fn(lambda a, b: F.cosine_similarity(a, b, dim=1).unsqueeze(1)), attrs={"dim": 1, "eps": 1e-8},
          grad2=True, expr="F.cosine_similarity(x, y, dim=1).unsqueeze(1)")
    g.add("cosine_similarity_broadcast", "api:cosine_similarity", "cosine_similarity", [randn(3, 1, 5), randn(1, 4, 5)],
          binary_fn(lambda a, b: F.cosine_similarity(a, b, dim=-1).unsqueeze(-1)), attrs={"dim": -1, "eps": 1e-8},
          expr="F.cosine_similarity(a[3,1,5], b[1,4,5], dim=-1).unsqueeze(-1)")
    g.add("matvec_batch", "api:matvec", "matvec", [randn(2, 3, 4), randn(2, 4)],
          binary_fn(lambda m, v: torch.matmul(m, v.unsqueeze(-1)).squeeze(-1)), grad2=True, expr="batched torch.mv")
    g.add("matvec_broadcast", "api:matvec", "matvec", [randn(1, 3, 4), randn(5, 4)],
          binary_fn(lambda m, v: torch.matmul(m, v.unsqueeze(-1)).squeeze(-1)), expr="torch.mv, batch broadcast")

    g.add("det_3x3", "api:det", "det", [randn(3, 3)], unary_fn(lambda v: torch.linalg.det(v).reshape(1)), grad2=True,
          expr="torch.linalg.det(x)")
    g.add("det_batch", "api:det", "det", [randn(2, 4, 4)], unary_fn(torch.linalg.det), grad2=True,
          expr="torch.linalg.det(x), batch of 2")
    g.add("det_swap", "api:det", "det", [torch.tensor([[0.1, 2.0, 0.3], [3.0, 1.0, -0.5], [0.2, -1.0, 1.5]])],
          unary_fn(lambda v: torch.linalg.det(v).reshape(1)), expr="torch.linalg.det(x), row swaps")

    for nm, shape in [("4x4", (4, 4)), ("5x3", (5, 3)), ("3x5", (3, 5))]:
        g.add(f"lu_{nm}", "api:lu", "lu", [randn(*shape)], unary_fn(lambda v: list(torch.linalg.lu(v))), no_seed=(0,),
              expr="torch.linalg.lu(x): L, U (P is piecewise constant)")
    g.add("lu_factor_4x4", "api:lu_factor", "lu_factor", [randn(4, 4)],
          unary_fn(lambda v: list(torch.linalg.lu_factor(v))), expr="torch.linalg.lu_factor(x): LU (pivots are Int)")

    for nm, shape, mode, grad2 in [("reduced_5x3", (5, 3), "reduced", True), ("reduced_4x4", (4, 4), "reduced", False),
                                   ("reduced_3x5", (3, 5), "reduced", False), ("complete_3x5", (3, 5), "complete", False),
                                   ("reduced_batch", (2, 4, 3), "reduced", False)]:
        g.add(f"qr_{nm}", "api:qr", "qr", [randn(*shape)], unary_fn(lambda v, m=mode: list(torch.linalg.qr(v, mode=m))),
              attrs={"mode": mode}, grad2=grad2, expr=f"torch.linalg.qr(x, mode='{mode}')")
    return g


def main():
    ap = argparse.ArgumentParser(description="Writes the gradient fixtures of burn::linalg.")
    ap.add_argument("--no-fd", action="store_true", help="skip the central-difference check of every gradient")
    gg.DO_FD = not ap.parse_args().no_fd
    g = gen_linalg()
    g.write()
    print(f"{gg.check_files([g.name])} cases checked")


if __name__ == "__main__":
    sys.exit(main())
