#!/usr/bin/python3
# Writes the PyTorch reference fixtures of grid_sample_2d (resample group of the op table):
# fixtures/grid_sample.json (group "grid_sample"). Run with Debian's python3-torch:
#   /usr/bin/python3 burn-tensor/conformance/gen_fixtures_grid_sample.py
# Grids reach past [-1, 1] so that every padding mode is exercised; one case puts grid points on
# exact pixel centres and halves (nearest rounds halves to even). Non-finite grid values are not
# covered: torch's own result for them depends on the kernel path (NaN, 0 or an edge pixel).
import sys

import torch
import torch.nn.functional as F

from gen_fixtures import Gen, Group, f32, f64, i64, rand, randint, randn, sampled

MODES = ["bilinear", "nearest"]
PADS = ["zeros", "border", "reflection"]


def attrs(mode, pad, ac):
    return {"mode": mode, "padding": pad, "align_corners": ac}


def expr(mode, pad, ac, what=""):
    return f"F.grid_sample(x, grid, mode='{mode}', padding_mode='{pad}', align_corners={ac}){what}"


def gen_grid_sample():
    g = Group("grid_sample")
    x = randn(2, 3, 5, 6)
    grid = rand(2, 4, 7, 2, lo=-1.3, hi=1.3)
    for mode in MODES:
        for pad in PADS:
            for ac in [False, True]:
                nm = f"grid_sample_{mode}_{pad}{'_ac' if ac else ''}"
                g.add(nm, "grid_sample_2d", "grid_sample_2d", [x, grid],
                      F.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=ac),
                      attrs=attrs(mode, pad, ac), torch_expr=expr(mode, pad, ac))
    # Exact pixel centres, pixel edges and the halves between them (W = 6, H = 5: g = 0 is x = 2.5).
    xs = randn(1, 2, 5, 6)
    vals = torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0, 1.0 / 6, -1.0 / 6, 0.2, 1.5])
    gx, gy = torch.meshgrid(vals, vals.flip(0), indexing="xy")
    gexact = torch.stack([gx, gy], -1).unsqueeze(0).to(f32)
    for mode in MODES:
        for pad in PADS:
            for ac in [False, True]:
                nm = f"grid_sample_exact_{mode}_{pad}{'_ac' if ac else ''}"
                g.add(nm, "grid_sample_2d", "grid_sample_2d", [xs, gexact],
                      F.grid_sample(xs, gexact, mode=mode, padding_mode=pad, align_corners=ac),
                      attrs=attrs(mode, pad, ac), torch_expr=expr(mode, pad, ac, " on centres, edges and halves"))
    # A one-pixel-high plane: reflection with align_corners reflects about a single point.
    x1 = randn(1, 2, 1, 4)
    g1 = rand(1, 3, 5, 2, lo=-2.0, hi=2.0)
    for pad in PADS:
        for ac in [False, True]:
            g.add(f"grid_sample_height1_{pad}{'_ac' if ac else ''}", "grid_sample_2d", "grid_sample_2d", [x1, g1],
                  F.grid_sample(x1, g1, mode="bilinear", padding_mode=pad, align_corners=ac),
                  attrs=attrs("bilinear", pad, ac), torch_expr=expr("bilinear", pad, ac, ", H = 1"))
    x64, g64 = randn(1, 2, 4, 5, dtype=f64), rand(1, 3, 3, 2, lo=-1.2, hi=1.2, dtype=f64)
    g.add("grid_sample_bilinear_reflection_f64", "grid_sample_2d", "grid_sample_2d", [x64, g64],
          F.grid_sample(x64, g64, mode="bilinear", padding_mode="reflection", align_corners=False),
          attrs=attrs("bilinear", "reflection", False), torch_expr=expr("bilinear", "reflection", False, ", f64"))
    xp = randn(2, 5, 4, 3)  # [N, H, W, C] made [N, C, H, W] by a permute view
    gp = rand(2, 2, 3, 2, lo=-1.0, hi=1.0)
    g.add("grid_sample_permuted_input", "grid_sample_2d", "grid_sample_2d", [xp, gp],
          F.grid_sample(xp.permute(0, 3, 1, 2), gp, mode="bilinear", padding_mode="zeros", align_corners=False),
          attrs=attrs("bilinear", "zeros", False), pre={0: [{"kind": "permute", "axes": [0, 3, 1, 2]}]},
          torch_expr=expr("bilinear", "zeros", False, ", x a permuted view"))
    xl = Gen([1, 3, 64, 64], f32, 0.01)
    gl = Gen([1, 48, 48, 2], f32, 0.0011)
    for mode in MODES:
        g.add(f"grid_sample_large_{mode}", "grid_sample_2d", "grid_sample_2d", [xl, gl],
              sampled(F.grid_sample(xl.tensor, gl.tensor, mode=mode, padding_mode="zeros", align_corners=False)),
              attrs=attrs(mode, "zeros", False), torch_expr=expr(mode, "zeros", False, ", x [1,3,64,64], grid [1,48,48,2]"))
    ok = attrs("bilinear", "zeros", False)
    g.add("grid_sample_int_input", "grid_sample_2d", "grid_sample_2d", [randint(0, 5, 1, 1, 3, 3), grid[:1, :2, :2]],
          error="DTypeError", attrs=ok, torch_expr="int input")
    g.add("grid_sample_grid_dtype", "grid_sample_2d", "grid_sample_2d", [x, grid.to(f64)], error="DTypeError", attrs=ok,
          torch_expr="f32 input, f64 grid")
    g.add("grid_sample_grid_last_dim", "grid_sample_2d", "grid_sample_2d", [x, rand(2, 4, 7, 3)], error="ShapeError",
          attrs=ok, torch_expr="grid [..., 3]")
    g.add("grid_sample_batch", "grid_sample_2d", "grid_sample_2d", [x, rand(1, 4, 7, 2)], error="ShapeError", attrs=ok,
          torch_expr="batch 2 vs 1")
    g.add("grid_sample_input_rank", "grid_sample_2d", "grid_sample_2d", [randn(3, 5, 6), grid], error="ShapeError",
          attrs=ok, torch_expr="3-D input")
    g.add("grid_sample_empty_plane", "grid_sample_2d", "grid_sample_2d", [torch.zeros(2, 3, 0, 6), grid],
          error="ShapeError", attrs=ok, torch_expr="H = 0")
    return g


def main():
    gen_grid_sample().write()


if __name__ == "__main__":
    sys.exit(main())
