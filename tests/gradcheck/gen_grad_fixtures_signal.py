#!/usr/bin/python3
# Writes the PyTorch gradient fixtures of burn::signal: fixtures/signal.json (group "signal"), in the
# format of gen_grad_fixtures.py (whose helpers it imports). Run with Debian's python3-torch:
#   /usr/bin/python3 tests/gradcheck/gen_grad_fixtures_signal.py [--no-fd]
# rfft and irfft are linear: the gradients are the adjoint transforms (the second order is zero).
# irfft's reference takes (re, im) as two real leaves through torch.complex, so its gradient w.r.t.
# the imaginary parts of the DC and Nyquist bins is 0, as they are ignored. Windows have no input.
import argparse
import sys

import torch

import gen_grad_fixtures as gg
from gen_grad_fixtures import Group, randn, unary_fn


def gen_signal():
    g = Group("signal")
    for nm, shape, dim, n, norm in [("len10", (2, 10), -1, None, "backward"), ("len64", (2, 64), -1, None, "backward"),
                                    ("len96_dim0", (96, 2), 0, None, "backward"), ("len10_n16", (2, 10), -1, 16, "backward"),
                                    ("len70_n64", (2, 70), -1, 64, "backward"), ("len12_ortho", (3, 12), 1, None, "ortho")]:
        g.add(f"rfft_{nm}", "api:rfft", "rfft", [randn(*shape)],
              unary_fn(lambda v, d=dim, k=n, m=norm: (lambda y: [y.real, y.imag])(torch.fft.rfft(v, n=k, dim=d, norm=m))),
              attrs={"dim": dim, "n": n, "norm": norm}, grad2=(nm == "len64"),
              expr=f"torch.fft.rfft(x, n={n}, dim={dim}, norm='{norm}'): (real, imag)")
    for nm, shape, dim, n, norm in [("bins5", (2, 5), -1, None, "backward"), ("bins5_n9", (2, 5), -1, 9, "backward"),
                                    ("bins33_n64", (2, 33), -1, 64, "backward"), ("bins51_n100", (51, 2), 0, 100, "backward"),
                                    ("bins7_forward", (3, 7), 1, None, "forward"), ("bins9_n12", (2, 9), -1, 12, "ortho")]:
        g.add(f"irfft_{nm}", "api:irfft", "irfft", [randn(*shape), randn(*shape)],
              lambda v, d=dim, k=n, m=norm: torch.fft.irfft(torch.complex(v[0], v[1]), n=k, dim=d, norm=m),
              attrs={"dim": dim, "n": n, "norm": norm}, grad2=(nm == "bins33_n64"),
              expr=f"torch.fft.irfft(torch.complex(re, im), n={n}, dim={dim}, norm='{norm}')")
    return g


def main():
    ap = argparse.ArgumentParser(description="Writes the gradient fixtures of burn::signal.")
    ap.add_argument("--no-fd", action="store_true", help="skip the central-difference check of every gradient")
    gg.DO_FD = not ap.parse_args().no_fd
    g = gen_signal()
    g.write()
    print(f"{gg.check_files([g.name])} cases checked")


if __name__ == "__main__":
    sys.exit(main())
