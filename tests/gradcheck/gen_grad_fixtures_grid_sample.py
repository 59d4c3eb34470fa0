#!/usr/bin/python3
# Writes the PyTorch gradient fixtures of grid_sample_2d: fixtures/grid_sample.json (group
# "grid_sample"), in the format of gen_grad_fixtures.py (whose helpers it imports). Run with Debian's
# python3-torch:  /usr/bin/python3 tests/gradcheck/gen_grad_fixtures_grid_sample.py [--no-fd]
# Gradients w.r.t. input and grid (torch has no double backward for grid_sampler_2d: no grad2). Bilinear sampling has kinks where a source coordinate crosses a
# pixel centre, a clip limit or a reflection edge; the grids keep every unnormalised coordinate 0.02
# pixel away from multiples of 0.5 so that the 1e-3 central-difference margin holds.
import argparse
import sys

import torch
import torch.nn.functional as F

import gen_grad_fixtures as gg
from gen_grad_fixtures import Group, randn, resample_where, uniform

H, W = 4, 5


def unnormalize(v, size, ac):
    return (v + 1) / 2 * (size - 1) if ac else ((v + 1) * size - 1) / 2


def grid_for(ac, shape=(2, 3, 4)):
    """A grid [N, Ho, Wo, 2] in [-1.25, 1.25] whose pixel coordinates stay clear of multiples of 0.5."""
    def bad(gr):
        out = torch.zeros(gr.shape, dtype=torch.bool)
        for i, size in [(0, W), (1, H)]:
            c = unnormalize(gr[..., i].double(), size, ac) * 2
            out[..., i] = (c - torch.round(c)).abs() < 0.04
        return out
    return resample_where(uniform(*shape, 2, lo=-1.25, hi=1.25), bad, lambda n: uniform(n, lo=-1.25, hi=1.25))


def gen_grid_sample():
    g = Group("grid_sample")
    for mode in ["bilinear", "nearest"]:
        for pad in ["zeros", "border", "reflection"]:
            for ac in [False, True]:
                nm = f"grid_sample_{mode}_{pad}{'_ac' if ac else ''}"
                g.add(nm, "grid_sample_2d", "grid_sample_2d", [randn(2, 3, H, W), grid_for(ac)],
                      lambda v, m=mode, p=pad, a=ac: F.grid_sample(v[0], v[1], mode=m, padding_mode=p, align_corners=a),
                      attrs={"mode": mode, "padding": pad, "align_corners": ac},
                      expr=f"F.grid_sample(x, grid, mode='{mode}', padding_mode='{pad}', align_corners={ac})")
    return g


def main():
    ap = argparse.ArgumentParser(description="Writes the gradient fixtures of grid_sample_2d.")
    ap.add_argument("--no-fd", action="store_true", help="skip the central-difference check of every gradient")
    gg.DO_FD = not ap.parse_args().no_fd
    g = gen_grid_sample()
    g.write()
    print(f"{gg.check_files([g.name])} cases checked")


if __name__ == "__main__":
    sys.exit(main())
