"""One Fashion-MNIST epoch of the MLP and the small CNN, burn (bench/train_epoch.cpp) against PyTorch
(bench/torch/train_epoch.py) in the same run, alternating sides, same batch size, Adam, loader workers
and 2 compute threads. Prints a markdown table: the median epoch time of each side, the ratio, the
share of the epoch spent waiting for the data loader, and the test accuracy after the epochs.

  /usr/bin/python3 bench/train_epoch.py [--build-dir build/release] [--epochs 1] [--repeats 2] [--seed 1]
"""
import argparse
import json
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    env = dict(os.environ, BURN_NUM_THREADS="2", OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="1")
    # The same Adam on both sides (Burn's default epsilon is 1e-5, torch.optim.Adam's 1e-8), so the
    # accuracies compare the frameworks, not two settings; one seed's accuracy varies by about 1 point.
    args = ["--epochs", str(a.epochs), "--batch-size", str(a.batch_size), "--workers", str(a.workers), "--epsilon",
            "1e-8", "--seed", str(a.seed)]
    rows = []
    for model in ("mlp", "cnn"):
        burn, torch = [], []
        for _ in range(a.repeats):
            burn.append(run([os.path.join(a.build_dir, "bin", "burn-bench-train-epoch"), "--model", model] + args, env))
            torch.append(run(["/usr/bin/python3", os.path.join(HERE, "torch", "train_epoch.py"), "--model", model] + args,
                             env))
        b = statistics.median(sum(r["epoch_seconds"]) / len(r["epoch_seconds"]) for r in burn)
        t = statistics.median(sum(r["epoch_seconds"]) / len(r["epoch_seconds"]) for r in torch)
        bw = statistics.median(sum(r["loader_wait_seconds"]) / sum(r["epoch_seconds"]) for r in burn)
        tw = statistics.median(sum(r["loader_wait_seconds"]) / sum(r["epoch_seconds"]) for r in torch)
        rows.append((model, b, t, b / t, 100 * bw, 100 * tw, burn[-1]["test_accuracy"], torch[-1]["test_accuracy"]))
    print(f"| model | burn epoch | PyTorch epoch | ratio | target | met | burn loader wait | PyTorch loader wait "
          f"| burn test acc after {a.epochs} (seed {a.seed}) | PyTorch test acc after {a.epochs} (seed {a.seed}) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m, b, t, r, bw, tw, ba, ta in rows:
        print(f"| {m} | {b:.1f} s | {t:.1f} s | {r:.2f} | ≤ 0.7 | {'yes' if r <= 0.7 else 'no'} | {bw:.1f} % | {tw:.1f} % "
              f"| {ba:.2f} % | {ta:.2f} % |")


if __name__ == "__main__":
    main()
