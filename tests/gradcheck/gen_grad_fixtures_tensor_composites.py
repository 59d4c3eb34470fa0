#!/usr/bin/python3
# Writes the PyTorch gradient fixtures of the composites median, cov, take, gather_nd,
# scatter_nd, mask_select, meshgrid, unfold(dim, size, step), movedim, iter_dim, einsum, cross and dot:
# fixtures/tensor_composites.json. Same format and checks as gen_grad_fixtures.py (whose helpers it uses):
#   /usr/bin/python3 tests/gradcheck/gen_grad_fixtures_tensor_composites.py [--no-fd]
# torch's 0-d results are [1] here; gather_nd / scatter_nd are written with torch indexing (ONNX
# GatherND / ScatterND, batch_dims 0), index_put for the "none" reduction.
import argparse
import sys

import torch

import gen_grad_fixtures as ggf
from gen_grad_fixtures import Group, binary_fn, distinct, ints, randn, uniform, unary_fn

ggf.gin.manual_seed(20250310)  # this file's own streams: gen_grad_fixtures' files do not move
ggf.gseed.manual_seed(4471)


def one(x):
    return x.reshape(1) if x.dim() == 0 else x


def gather_nd(x, idx):
    k = idx.shape[-1]
    return one(x[tuple(idx[..., j] for j in range(k))])


def scatter_nd(x, idx, upd, reduction):
    k = idx.shape[-1]
    pos = tuple(idx[..., j] for j in range(k))
    return x.index_put(pos, upd.reshape(idx.shape[:-1] + x.shape[k:]), accumulate=reduction == "add")


def gen(g):
    # reduce: median (no ties: the gradient goes to the chosen element), cov
    x = distinct(3, 4)
    g.add("median", "api:median", "median", [x], unary_fn(lambda v: one(torch.median(v))), expr="torch.median(x)")
    for d in [0, 1]:
        g.add(f"median_dim{d}", "api:median_dim", "median_dim", [distinct(3, 5)],
              unary_fn(lambda v, d=d: list(torch.median(v, d, keepdim=True))), attrs={"dim": d},
              expr=f"torch.median(x, {d}, keepdim=True): values (indices carry no gradient)")
    xc = randn(3, 6)
    cov_attrs = {"correction": 1, "fweights": False, "aweights": False}
    g.add("cov", "api:cov", "cov", [xc], unary_fn(torch.cov), attrs=cov_attrs, expr="torch.cov(x)", grad2=True)
    g.add("cov_one_variable", "api:cov", "cov", [randn(7)], unary_fn(lambda v: one(torch.cov(v))), attrs=cov_attrs,
          expr="torch.cov(x), 1-D")
    fw = ints([1, 2, 0, 3, 1, 1])
    aw = uniform(6, lo=0.5, hi=2.0)
    g.add("cov_weights", "api:cov", "cov", [xc, fw, aw],
          lambda xs: torch.cov(xs[0], correction=1, fweights=xs[1], aweights=xs[2]),
          attrs={"correction": 1, "fweights": True, "aweights": True}, wrt=[0, 2],
          expr="torch.cov(x, fweights=fw, aweights=aw): gradients for x and aw")

    # indexing
    xt = randn(3, 4)
    g.add("take", "api:take", "take", [xt, ints([[0, -1, 5], [5, 11, -12]])], lambda xs: torch.take(xs[0], xs[1]), wrt=[0],
          expr="torch.take(x, idx): repeated and negative indices accumulate")
    data = randn(2, 3, 4)
    g.add("gather_nd_k1", "api:gather_nd", "gather_nd", [data, ints([[1], [0], [1]])], lambda xs: gather_nd(xs[0], xs[1]),
          wrt=[0], expr="GatherND(x, [[1], [0], [1]])")
    g.add("gather_nd_k2", "api:gather_nd", "gather_nd", [data, ints([[0, 1], [1, -1], [0, 1]])],
          lambda xs: gather_nd(xs[0], xs[1]), wrt=[0], expr="GatherND(x, k = 2, a repeated tuple)")
    base = randn(4, 3)
    g.add("scatter_nd_none", "api:scatter_nd", "scatter_nd", [base, ints([[2], [0]]), randn(2, 3)],
          lambda xs: scatter_nd(xs[0], xs[1], xs[2], "none"), attrs={"reduction": "none"}, wrt=[0, 2],
          expr="ScatterND(x, [[2], [0]], u): replaced rows get no gradient")
    g.add("scatter_nd_add", "api:scatter_nd", "scatter_nd", [base, ints([[1, 1], [3, 0], [1, 1]]), randn(3)],
          lambda xs: scatter_nd(xs[0], xs[1], xs[2], "add"), attrs={"reduction": "add"}, wrt=[0, 2],
          expr="ScatterND(x, k = 2, u, reduction add) with a repeated tuple")
    mask = torch.tensor([True, False, True])
    g.add("mask_select_broadcast_mask", "api:mask_select", "mask_select", [randn(2, 3), mask],
          lambda xs: torch.masked_select(xs[0], xs[1]), wrt=[0], expr="torch.masked_select(x [2, 3], mask [3])")
    g.add("mask_select_broadcast_tensor", "api:mask_select", "mask_select",
          [randn(3), torch.tensor([[True, False, True], [True, True, False]])],
          lambda xs: torch.masked_select(xs[0], xs[1]), wrt=[0], expr="torch.masked_select(x [3], mask [2, 3]): x used twice")

    # creation: meshgrid (cartesian_grid and categorical are integer-valued)
    g.add("meshgrid_xy", "api:meshgrid", "meshgrid", [randn(2), randn(3)],
          lambda xs: list(torch.meshgrid(xs[0], xs[1], indexing="xy")), attrs={"indexing": "xy"},
          expr="torch.meshgrid(a, b, indexing='xy')")

    # layout
    x7 = randn(2, 19)
    for name, size, step in [("overlap", 3, 2), ("tiles", 2, 2), ("gaps", 2, 3), ("long_window", 17, 1)]:
        g.add(f"unfold_{name}", "api:unfold", "unfold_dim", [x7], unary_fn(lambda v, s=size, st=step: v.unfold(1, s, st)),
              attrs={"dim": 1, "size": size, "step": step}, expr=f"x.unfold(1, {size}, {step})")
    g.add("movedim", "api:movedim", "movedim", [randn(2, 3, 4)], unary_fn(lambda v: torch.movedim(v, [0, 1], [2, 0])),
          attrs={"source": [0, 1], "destination": [2, 0]}, expr="torch.movedim(x, [0, 1], [2, 0])")
    g.add("iter_dim", "api:iter_dim", "iter_dim", [randn(3, 2)], unary_fn(lambda v: list(torch.split(v, 1, 0))),
          attrs={"dim": 0}, expr="[x.narrow(0, i, 1) for i in range(3)]")

    # numeric: einsum, cross, dot
    for name, eq, shapes, grad2 in [("matmul", "ij,jk->ik", [(3, 4), (4, 2)], True), ("batch", "bij,bjk->bik", [(2, 3, 4), (2, 4, 2)], False),
                                    ("trace", "ii", [(3, 3)], False), ("diagonal_batch", "bii->bi", [(2, 3, 3)], False),
                                    ("outer", "i,j->ij", [(3,), (4,)], True), ("hadamard_sum", "ij,ij->i", [(3, 4), (3, 4)], True),
                                    ("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)], False),
                                    ("broadcast_label", "ij,jk", [(2, 3), (1, 4)], False),
                                    ("three", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], False),
                                    ("carried", "ij,kl,jl->ik", [(2, 3), (2, 2), (3, 2)], False)]:
        g.add(f"einsum_{name}", "api:einsum", "einsum", [randn(*s) for s in shapes],
              lambda xs, eq=eq: one(torch.einsum(eq, *xs)), attrs={"equation": eq}, expr=f"torch.einsum('{eq}')", grad2=grad2)
    g.add("cross_broadcast", "api:cross", "cross", [randn(1, 3), randn(4, 3)],
          lambda xs: torch.linalg.cross(xs[0], xs[1], dim=1), attrs={"dim": 1}, expr="torch.linalg.cross(a [1, 3], b [4, 3])",
          grad2=True)
    g.add("cross_dim0", "api:cross", "cross", [randn(3, 2), randn(3, 2)], lambda xs: torch.linalg.cross(xs[0], xs[1], dim=0),
          attrs={"dim": 0}, expr="torch.linalg.cross(a, b, dim=0)")
    g.add("dot", "api:dot", "dot", [randn(5), randn(5)], binary_fn(lambda a, b: one(torch.dot(a, b))), expr="torch.dot(a, b)",
          grad2=True)


def main():
    ap = argparse.ArgumentParser(description="Writes the gradient fixtures of the tensor_composites composites.")
    ap.add_argument("--no-fd", action="store_true", help="skip the central-difference check of every gradient")
    ggf.DO_FD = not ap.parse_args().no_fd
    g = Group("tensor_composites")
    gen(g)
    g.write()
    print(f"{ggf.check_files(['tensor_composites'])} cases checked")


if __name__ == "__main__":
    sys.exit(main())
