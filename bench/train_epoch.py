"""One Fashion-MNIST epoch of the MLP and the small CNN, burn (bench/train_epoch.cpp) against PyTorch
(bench/torch/train_epoch.py) in the same run, alternating sides, same batch size, Adam, loader workers
and 2 compute threads. Prints a markdown table: the median epoch time of each side, the ratio, the
share of the epoch spent waiting for the data loader, and the test accuracy after the epochs. The CNN
also trains under bf16 autocast (burn-bench-train-epoch --autocast bf16, burn alone: PyTorch 1.13's CPU
bf16 is no peer), alternating with its f32 runs: AMP's epoch time against f32 and both accuracies.
The last repeat of each side also tests its trained model after dynamic int8 quantization (`--int8-accuracy 1`:
burn's nn::quantize_dynamic, PyTorch's quantize_dynamic of nn.Linear; evaluation only, untimed): the int8 line.
Target: burn's epoch at most 0.7x PyTorch's. bench/run.py imports measure() and table() for the
benchmark page's epoch section.

  /usr/bin/python3 bench/train_epoch.py [--build-dir build/release] [--epochs 1] [--repeats 2] [--seed 1]
"""
import argparse
import json
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET = 0.7  # burn's epoch / PyTorch's
MODELS = ("mlp", "cnn")


def run(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def measure(build_dir, models=MODELS, epochs=1, repeats=2, batch_size=64, workers=2, seed=1, log=None, amp=("cnn",)):
    """Per model a dict: median epoch seconds of each side, their ratio, loader-wait shares, test accuracies (also
    after dynamic int8 quantization: burn_int8_acc, torch_int8_acc); for the models in amp also burn's bf16 autocast
    epoch and accuracy (keys burn_bf16_s, burn_bf16_acc)."""
    env = dict(os.environ, BURN_NUM_THREADS="2", OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="1")
    # The same Adam on both sides (Burn's default epsilon is 1e-5, torch.optim.Adam's 1e-8), so the
    # accuracies compare the frameworks, not two settings; one seed's accuracy varies by about 1 point.
    args = ["--epochs", str(epochs), "--batch-size", str(batch_size), "--workers", str(workers), "--epsilon",
            "1e-8", "--seed", str(seed)]
    rows = []
    for model in models:
        burn, torch, bf16 = [], [], []
        for i in range(repeats):
            # the accuracies are the last repeat's: it alone also tests the int8 model
            int8 = ["--int8-accuracy", "1" if i + 1 == repeats else "0"]
            program = [os.path.join(build_dir, "bin", "burn-bench-train-epoch"), "--model", model] + args
            burn.append(run(program + int8, env))
            if model in amp:
                bf16.append(run(program + ["--autocast", "bf16"], env))
            torch.append(run(["/usr/bin/python3", os.path.join(HERE, "torch", "train_epoch.py"), "--model", model] + args
                             + int8, env))
        b = statistics.median(sum(r["epoch_seconds"]) / len(r["epoch_seconds"]) for r in burn)
        t = statistics.median(sum(r["epoch_seconds"]) / len(r["epoch_seconds"]) for r in torch)
        bw = statistics.median(sum(r["loader_wait_seconds"]) / sum(r["epoch_seconds"]) for r in burn)
        tw = statistics.median(sum(r["loader_wait_seconds"]) / sum(r["epoch_seconds"]) for r in torch)
        rows.append({"model": model, "burn_s": b, "torch_s": t, "ratio": b / t, "burn_wait_pct": 100 * bw,
                     "torch_wait_pct": 100 * tw, "burn_acc": burn[-1]["test_accuracy"],
                     "torch_acc": torch[-1]["test_accuracy"], "epochs": epochs, "repeats": repeats, "seed": seed,
                     "burn_int8_acc": burn[-1]["test_accuracy_int8"], "torch_int8_acc": torch[-1]["test_accuracy_int8"],
                     "torch_quantized_engine": torch[-1]["quantized_engine"]})
        if bf16:
            rows[-1]["burn_bf16_s"] = statistics.median(sum(r["epoch_seconds"]) / len(r["epoch_seconds"]) for r in bf16)
            rows[-1]["burn_bf16_acc"] = bf16[-1]["test_accuracy"]
        if log:
            log(f"  epoch/{model:35s} burn {b:.1f} s  torch {t:.1f} s  ratio {b / t:.2f}"
                + (f"  bf16 autocast {rows[-1]['burn_bf16_s']:.1f} s" if bf16 else ""))
    return rows


def table(rows):
    if not rows:
        return ""
    epochs, seed = rows[0]["epochs"], rows[0]["seed"]
    lines = [f"| model | burn epoch | PyTorch epoch | ratio | target | met | burn loader wait | PyTorch loader wait "
             f"| burn test acc after {epochs} (seed {seed}) | PyTorch test acc after {epochs} (seed {seed}) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        met = "yes" if r["ratio"] <= TARGET else f"no (+{100 * (r['ratio'] / TARGET - 1):.0f}%)"
        lines.append(f"| {r['model']} | {r['burn_s']:.1f} s | {r['torch_s']:.1f} s | {r['ratio']:.2f} | ≤ {TARGET} | "
                     f"{met} | {r['burn_wait_pct']:.1f} % | {r['torch_wait_pct']:.1f} % | {r['burn_acc']:.2f} % "
                     f"| {r['torch_acc']:.2f} % |")
    int8 = [r for r in rows if "burn_int8_acc" in r]  # absent from runs saved before the int8 line
    if int8:
        lines.append(f"\nDynamic int8 quantization of the trained models, test accuracy after {epochs} epoch(s) (seed {seed}) "
                     "before and after (evaluation only): burn's `nn::quantize_dynamic` (Linear layers int8 per output "
                     "channel on the int8 op `quantized_linear`; the CNN's convs with int8 weights per output channel, "
                     "dequantized) against PyTorch's `quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)` (Linear "
                     f"layers int8 per tensor, engine {int8[0]['torch_quantized_engine']}; the CNN's convs stay f32).\n")
        lines.append("| model | burn f32 | burn int8 | PyTorch f32 | PyTorch int8 |")
        lines.append("|---|---|---|---|---|")
        lines += [f"| {r['model']} | {r['burn_acc']:.2f} % | {r['burn_int8_acc']:.2f} % | {r['torch_acc']:.2f} % | "
                  f"{r['torch_int8_acc']:.2f} % |" for r in int8]
    for r in rows:
        if "burn_bf16_s" in r:  # absent from runs saved before the AMP row
            lines.append(f"\nAMP, the {r['model']} with bf16 autocast (`burn-bench-train-epoch --autocast bf16`: "
                         f"convolutions and linear layers in bf16, the parameters, loss and optimizer in f32; burn "
                         f"alone): epoch {r['burn_bf16_s']:.1f} s against f32's {r['burn_s']:.1f} s in the same run "
                         f"(bf16/f32 {r['burn_bf16_s'] / r['burn_s']:.2f}); test acc after {epochs} (seed {seed}) "
                         f"{r['burn_bf16_acc']:.2f} % against {r['burn_acc']:.2f} %.")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print(table(measure(a.build_dir, MODELS, a.epochs, a.repeats, a.batch_size, a.workers, a.seed)))


if __name__ == "__main__":
    main()
