"""The fusion speed table: each fusion case next to its unfused twin on cpu, one memory pass (the triad
limit) and PyTorch, in one run. Prints a markdown table for BENCHMARKS.md.

  /usr/bin/python3 bench/fusion_table.py [--build-dir build/release] [--reps 6] [--rounds 5]

Rows and their targets:
- exp(relu(x*2+1)) on 16M and 64M floats, fused, within 1.3x of one memory pass (one read and one
  write at the triad bandwidth);
- softmax and layer_norm at most 0.5x PyTorch (their input is ready, so fusion<cpu> runs the eager
  kernel: the row is the cpu kernel), and the masked softmax and exp-sum patterns fused against unfused;
- the MLP train step and the transformer encoder layer step on autodiff<fusion<cpu>> not slower than
  on autodiff<cpu>;
- recording one op (`a + b` on 1x8, result dropped) on fusion<cpu> at most 1 us.

A single pair of runs is not a measurement on a shared host (the triad moves 15-28 GB/s within an
hour, a GEMM-bound step 10-30% between processes), so the rows whose verdict is a ratio of two burn
measurements are taken in --rounds alternating rounds and judged by the median of the per-round ratios:
the chains alternate the triad and the fused chain (each chain against the triad measured next to it),
the fused/unfused rows alternate the two processes, in ABBA order. The measure column shows that median
and the rounds' range; the time columns show the medians over all rounds. The two nn steps, where the
difference is a few percent and processes drift more than that, come from burn-bench-fusion-pairs
instead: both devices in one process, alternating step by step (--pairs pairs), with the median ratio's
95% interval and how many pairs the fused step won.
"""
import json
import subprocess
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import M16, M64, F32, THREADS, Case, Torch, env, fmt_time, run_burn, run_limit  # noqa: E402

SM_BYTES = 2 * 4096 * 1024 * F32


def rows():
    """(label, burn case, fused case or None, torch peer or None, one-pass bytes or None, target kind)."""
    out = []
    for label, n in (("16M", M16), ("64M", M64)):
        out.append((f"exp(relu(x*2+1)), {label} f32", Case(f"chain_exp_relu_affine/{label}", "elementwise", "", 0, ""),
                    Case(f"chain_exp_relu_affine_fused/{label}", "elementwise", "", 0, ""),
                    f"chain_exp_relu_affine/{label}", 2 * n * F32, "pass"))
    out += [
        ("softmax, 4096x1024 (input ready: eager kernel)", Case("softmax/4096x1024", "softmax", "", 0, ""), None,
         "softmax/4096x1024", SM_BYTES, "torch"),
        ("layer_norm, 64x1024x768 (input ready: eager kernel)", Case("layer_norm/64x1024x768", "norm", "", 0, ""),
         None, "layer_norm/64x1024x768", 2 * 64 * 1024 * 768 * F32, "torch"),
        ("(x*0.125 + mask).softmax(1), 4096x1024", Case("softmax_scaled_masked/4096x1024", "softmax", "", 0, ""),
         Case("softmax_scaled_masked_fused/4096x1024", "softmax", "", 0, ""), None, SM_BYTES, "unfused"),
        ("(x*2+1).exp().sum_dim(1), 4096x4096", Case("exp_affine_sum_dim_last/4096x4096", "reduce", "", 0, ""),
         Case("exp_affine_sum_dim_last_fused/4096x4096", "reduce", "", 0, ""), None, 4096 * 4096 * F32, "unfused"),
        ("MLP 784-512-512-10 Adam step, b128", Case("nn_mlp_train_adam/784-512-512-10_b128", "nn", "", 0, ""),
         Case("nn_mlp_train_adam_fused/784-512-512-10_b128", "nn", "", 0, ""), "nn_mlp_train_adam/784-512-512-10_b128",
         None, "unfused"),
        ("transformer encoder layer fwd+bwd, d256 h4 s128 b16",
         Case("nn_transformer_layer_fwd_bwd/d256_h4_s128_b16", "nn", "", 0, ""),
         Case("nn_transformer_layer_fwd_bwd_fused/d256_h4_s128_b16", "nn", "", 0, ""),
         "nn_transformer_layer_fwd_bwd/d256_h4_s128_b16", None, "unfused"),
        ("recording `a + b` on 1x8 (result dropped)", Case("tiny_add/1x8", "overhead", "", 0, ""),
         Case("tiny_add_recorded/1x8", "overhead", "", 0, ""), "tiny_add/1x8", None, "record"),
    ]
    return out


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def paired_rounds(rounds, first, second):
    """Per-round (a, b) from `rounds` alternating rounds, ABBA: each measure runs first in half the rounds."""
    pairs = []
    for r in range(rounds):
        if r % 2 == 0:
            a = first()
            b = second()
        else:
            b = second()
            a = first()
        if a is None or b is None:
            return None
        pairs.append((a, b))
    return pairs


HEADER = ("| case | cpu (unfused) | fusion<cpu> | one memory pass | PyTorch | measure | target | met |\n"
          "|---|---|---|---|---|---|---|---|")


def measure(bin_dir, torch, reps=6, min_time=0.25, rounds=5, pairs=30, only=None, log=print):
    """The table's rows (tuples of cells), each measured as the module docstring says. `torch` is a running
    run.Torch; `only` (a label prefix list) keeps some rows (bench/run.py's quick mode keeps one)."""
    todo = [r for r in rows() if not only or any(r[0].startswith(o) for o in only)]

    def triad_gbs():
        return run_limit(os.path.join(bin_dir, "burn-limit-triad"), [M64, THREADS, 10])["best_gbs"]

    def burn_ns(case):
        return run_burn(bin_dir, case, reps, min_time, 0.1).get("median_ns")

    steps = {}
    if any(kind == "unfused" and plain.program == "nn" for _, plain, _, _, _, kind in todo):
        out = subprocess.run([os.path.join(bin_dir, "burn-bench-fusion-pairs"), str(pairs)], check=True,
                             capture_output=True, text=True, env=env())
        steps = {r["case"]: r for r in map(json.loads, out.stdout.splitlines())}
    triad = triad_gbs()
    log(f"fusion pairs: triad {triad:.2f} GB/s ({THREADS} threads)")
    table = []
    for label, plain, fused, peer, pass_bytes, kind in todo:
        spread = ""
        p = burn_ns(plain) if kind != "unfused" else None
        f = None
        one_pass = None
        if kind == "pass":
            done = paired_rounds(rounds, triad_gbs, lambda: burn_ns(fused))
            if done:
                ratios = [ns / (pass_bytes / gbs) for gbs, ns in done]  # bytes / (GB/s) = ns
                f = median([ns for _, ns in done])
                one_pass = pass_bytes / median([gbs for gbs, _ in done])
        elif kind == "unfused" and plain.name in steps:
            r = steps[plain.name]
            p, f = r["unfused_ms"] * 1e6, r["fused_ms"] * 1e6
            ratios = [r["ratio"]]
            spread = (f" (95% {r['ratio_ci'][0]:.3f}-{r['ratio_ci'][1]:.3f}; fused faster in {r['fused_faster']} of "
                      f"{r['pairs']} paired steps)")
        elif kind == "unfused":
            done = paired_rounds(rounds, lambda: burn_ns(plain), lambda: burn_ns(fused))
            if done:
                ratios = [fn / pn for pn, fn in done]
                p, f = median([pn for pn, _ in done]), median([fn for _, fn in done])
        elif fused:
            f = burn_ns(fused)
        if kind == "torch":
            one_pass = pass_bytes / triad
        t = torch.run(peer, 1, reps, 0.1).get("median_ns") if peer else None
        best = f if f else p
        if kind in ("pass", "unfused"):
            verdict = median(ratios) if f else None
            target = "≤ 1.3x one pass" if kind == "pass" else "fused ≤ 1.0x unfused"
            if f and not spread:
                spread = f" ({min(ratios):.2f}-{max(ratios):.2f}, {len(ratios)} rounds)"
        elif kind == "torch":
            verdict, target = best / t if t else None, "≤ 0.5x PyTorch"
        else:
            verdict, target = (f, "≤ 1 µs")
        limit = 1.3 if kind == "pass" else 0.5 if kind == "torch" else 1.0 if kind == "unfused" else 1000.0
        met = "n/a" if verdict is None else ("yes" if verdict <= limit else "no")
        digits = 3 if plain.name in steps else 2
        shown = fmt_time(verdict) if kind == "record" else (f"{verdict:.{digits}f}{spread}" if verdict is not None else "n/a")
        table.append((label, fmt_time(p) if p else "n/a", fmt_time(f) if f else "—",
                      fmt_time(one_pass) if one_pass else "—", fmt_time(t) if peer else "—", shown, target, met))
        log("  " + " | ".join(table[-1]))
    return table


def markdown(table):
    return HEADER + "\n" + "\n".join("| " + " | ".join(r) + " |" for r in table) if table else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build", "release"))
    ap.add_argument("--reps", type=int, default=6)
    ap.add_argument("--min-time", type=float, default=0.25)
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds of the ratio rows")
    ap.add_argument("--pairs", type=int, default=30, help="alternating steps of the nn rows (burn-bench-fusion-pairs)")
    a = ap.parse_args()
    torch = Torch()
    table = measure(os.path.join(a.build_dir, "bin"), torch, a.reps, a.min_time, a.rounds, a.pairs,
                    log=lambda m: print(m, flush=True))
    torch.close()
    print()
    print(markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
