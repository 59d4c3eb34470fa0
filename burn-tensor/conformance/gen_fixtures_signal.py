#!/usr/bin/python3
# Writes the PyTorch reference fixtures of burn::signal: fixtures/signal.json (group "signal").
# Run with Debian's python3-torch: /usr/bin/python3 burn-tensor/conformance/gen_fixtures_signal.py
#
# A spectrum is a (real, imaginary) pair of tensors: rfft's two outputs, irfft's two inputs. The
# references are computed by torch in float64 from the inputs, then cast; sizes cover the single
# DFT matmul (small and prime n) and the split transform (n = n1 * n2 >= 64). irfft's spectra are
# not Hermitian-consistent on purpose: the imaginary parts of the DC and Nyquist bins must be ignored.
import sys

import torch

from gen_fixtures import TRANS, Gen, Group, f32, f64, i64, randint, randn, sampled

F32_TOL = {"rtol": 1e-4, "atol": 1e-4}  # f32 sums of up to thousands of terms


def rfft_ref(x, n, dim, norm):
    y = torch.fft.rfft(x.to(f64), n=n, dim=dim, norm=norm)
    return [y.real.to(x.dtype), y.imag.to(x.dtype)]


def irfft_ref(re, im, n, dim, norm):
    return torch.fft.irfft(torch.complex(re.to(f64), im.to(f64)), n=n, dim=dim, norm=norm).to(re.dtype)


def tol(dtype):
    return F32_TOL if dtype == f32 else {"rtol": 1e-10, "atol": 1e-10}


def gen_rfft(g):
    for length in [1, 2, 5, 8, 16, 17, 63, 64, 96, 97, 100, 128, 256]:
        x = randn(length)
        g.add(f"rfft_len{length}", "api:rfft", "rfft", [x], rfft_ref(x, None, -1, "backward"),
              attrs={"dim": -1, "n": None}, torch_expr=f"torch.fft.rfft(x[{length}]) (f64)", **F32_TOL)
    for length, n in [(10, 16), (10, 6), (70, 64), (40, 81), (5, 1)]:
        x = randn(3, length)
        g.add(f"rfft_len{length}_n{n}", "api:rfft", "rfft", [x], rfft_ref(x, n, 1, "backward"),
              attrs={"dim": 1, "n": n}, torch_expr=f"torch.fft.rfft(x[3, {length}], n={n}, dim=1)", **F32_TOL)
    for shape, dim in [((12, 3), 0), ((2, 9, 3), 1), ((2, 3, 72), -1), ((80, 2), -2)]:
        x = randn(*shape)
        g.add(f"rfft_{'x'.join(map(str, shape))}_dim{str(dim).replace('-', 'm')}", "api:rfft", "rfft", [x],
              rfft_ref(x, None, dim, "backward"), attrs={"dim": dim, "n": None},
              torch_expr=f"torch.fft.rfft(x{list(shape)}, dim={dim})", **F32_TOL)
    for norm in ["ortho", "forward"]:
        for length in [12, 128]:
            x = randn(2, length)
            g.add(f"rfft_{norm}_len{length}", "api:rfft", "rfft", [x], rfft_ref(x, None, -1, norm),
                  attrs={"dim": -1, "n": None, "norm": norm}, torch_expr=f"torch.fft.rfft(x, norm='{norm}')", **F32_TOL)
    for length in [30, 128]:
        x = randn(2, length, dtype=f64)
        g.add(f"rfft_f64_len{length}", "api:rfft", "rfft", [x], rfft_ref(x, None, -1, "backward"),
              attrs={"dim": -1, "n": None}, torch_expr="torch.fft.rfft(x), f64", **tol(f64))
    xt = randn(64, 4)
    g.add("rfft_transposed", "api:rfft", "rfft", [xt], rfft_ref(xt.t(), None, -1, "backward"),
          attrs={"dim": -1, "n": None}, pre={0: TRANS}, torch_expr="torch.fft.rfft(x.t())", **F32_TOL)
    xl = Gen([16, 1024], f32, 0.001)
    g.add("rfft_large_16x1024", "api:rfft", "rfft", [xl], [sampled(o) for o in rfft_ref(xl.tensor, None, -1, "backward")],
          attrs={"dim": -1, "n": None}, torch_expr="torch.fft.rfft(x[16, 1024])", **F32_TOL)
    g.add("rfft_int", "api:rfft", "rfft", [randint(-3, 3, 8)], error="DTypeError", attrs={"dim": 0, "n": None},
          torch_expr="int input")
    g.add("rfft_n0", "api:rfft", "rfft", [randn(8)], error="ValueError", attrs={"dim": 0, "n": 0}, torch_expr="n = 0")
    g.add("rfft_empty_dim", "api:rfft", "rfft", [torch.zeros(3, 0)], error="ValueError", attrs={"dim": 1, "n": None},
          torch_expr="a dim of size 0")
    g.add("rfft_dim_range", "api:rfft", "rfft", [randn(8)], error="IndexError", attrs={"dim": 1, "n": None},
          torch_expr="dim 1 of 1-D")


def gen_irfft(g):
    for bins, n in [(5, None), (5, 9), (5, 7), (5, 12), (5, 4), (1, 1), (2, None), (33, None), (65, None), (51, 100),
                    (64, 127), (40, 72)]:
        re, im = randn(2, bins), randn(2, bins)
        g.add(f"irfft_bins{bins}_n{n}", "api:irfft", "irfft", [re, im], irfft_ref(re, im, n, -1, "backward"),
              attrs={"dim": -1, "n": n}, torch_expr=f"torch.fft.irfft(complex(re, im)[2, {bins}], n={n}) (f64)", **F32_TOL)
    for shape, dim, n in [((9, 2), 0, None), ((2, 5, 3), 1, 8), ((33, 2), 0, 64)]:
        re, im = randn(*shape), randn(*shape)
        g.add(f"irfft_{'x'.join(map(str, shape))}_dim{dim}_n{n}", "api:irfft", "irfft", [re, im],
              irfft_ref(re, im, n, dim, "backward"), attrs={"dim": dim, "n": n},
              torch_expr=f"torch.fft.irfft(complex(re, im){list(shape)}, n={n}, dim={dim})", **F32_TOL)
    for norm in ["ortho", "forward"]:
        for bins in [7, 65]:
            re, im = randn(bins), randn(bins)
            g.add(f"irfft_{norm}_bins{bins}", "api:irfft", "irfft", [re, im], irfft_ref(re, im, None, -1, norm),
                  attrs={"dim": -1, "n": None, "norm": norm}, torch_expr=f"torch.fft.irfft(z, norm='{norm}')", **F32_TOL)
    for bins in [16, 65]:
        re, im = randn(3, bins, dtype=f64), randn(3, bins, dtype=f64)
        g.add(f"irfft_f64_bins{bins}", "api:irfft", "irfft", [re, im], irfft_ref(re, im, None, -1, "backward"),
              attrs={"dim": -1, "n": None}, torch_expr="torch.fft.irfft(z), f64", **tol(f64))
    x = randn(4, 96)
    re, im = rfft_ref(x, None, -1, "backward")
    g.add("irfft_roundtrip", "api:irfft", "irfft", [re, im], x, attrs={"dim": -1, "n": 96},
          torch_expr="torch.fft.irfft(torch.fft.rfft(x), n=96) == x", **F32_TOL)
    re, im = randn(3, 4), randn(3, 4)
    g.add("irfft_shape_mismatch", "api:irfft", "irfft", [re, randn(3, 5)], error="ShapeError", attrs={"dim": -1, "n": None},
          torch_expr="re [3, 4], im [3, 5]")
    g.add("irfft_dtype_mismatch", "api:irfft", "irfft", [re, im.to(f64)], error="DTypeError", attrs={"dim": -1, "n": None},
          torch_expr="re f32, im f64")
    g.add("irfft_one_bin_default_n", "api:irfft", "irfft", [randn(1), randn(1)], error="ValueError",
          attrs={"dim": 0, "n": None}, torch_expr="1 bin: default n = 0")
    g.add("irfft_n0", "api:irfft", "irfft", [re, im], error="ValueError", attrs={"dim": -1, "n": 0}, torch_expr="n = 0")
    g.add("irfft_int", "api:irfft", "irfft", [randint(0, 3, 4), randint(0, 3, 4)], error="DTypeError",
          attrs={"dim": 0, "n": None}, torch_expr="int input")


def gen_windows(g):
    for size in [0, 1, 2, 5, 8]:
        for periodic in [True, False]:
            for dt in [f32, f64]:
                sfx = f"{size}_{'periodic' if periodic else 'symmetric'}_{'f32' if dt == f32 else 'f64'}"
                a = {"size": size, "periodic": periodic, "dtype": "f32" if dt == f32 else "f64"}
                g.add(f"hann_window_{sfx}", "api:hann_window", "hann_window", [],
                      torch.hann_window(size, periodic=periodic, dtype=dt), attrs=a,
                      torch_expr=f"torch.hann_window({size}, periodic={periodic})")
                g.add(f"hamming_window_{sfx}", "api:hamming_window", "hamming_window", [],
                      torch.hamming_window(size, periodic=periodic, dtype=dt), attrs=dict(a, alpha=0.54, beta=0.46),
                      torch_expr=f"torch.hamming_window({size}, periodic={periodic})")
                g.add(f"blackman_window_{sfx}", "api:blackman_window", "blackman_window", [],
                      torch.blackman_window(size, periodic=periodic, dtype=dt), attrs=a,
                      torch_expr=f"torch.blackman_window({size}, periodic={periodic})")
    g.add("hamming_window_alpha_beta", "api:hamming_window", "hamming_window", [],
          torch.hamming_window(7, periodic=False, alpha=0.6, beta=0.3),
          attrs={"size": 7, "periodic": False, "dtype": "f32", "alpha": 0.6, "beta": 0.3},
          torch_expr="torch.hamming_window(7, periodic=False, alpha=0.6, beta=0.3)")
    g.add("hann_window_large", "api:hann_window", "hann_window", [], torch.hann_window(4000, dtype=f64),
          attrs={"size": 4000, "periodic": True, "dtype": "f64"}, torch_expr="torch.hann_window(4000), f64")
    g.add("hann_window_negative", "api:hann_window", "hann_window", [], error="ValueError",
          attrs={"size": -1, "periodic": True, "dtype": "f32"}, torch_expr="size -1")
    g.add("blackman_window_int", "api:blackman_window", "blackman_window", [], error="DTypeError",
          attrs={"size": 4, "periodic": True, "dtype": "i64"}, torch_expr="dtype int64")


def main():
    g = Group("signal")
    for fn in [gen_rfft, gen_irfft, gen_windows]:
        fn(g)
    g.write()


if __name__ == "__main__":
    sys.exit(main())
