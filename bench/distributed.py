"""The benchmark page's "Distributed" section: burn-collective and burn-train's DataParallel on 2 ranks of one
machine (127.0.0.1), every job started by `burn run --nproc-per-node 2`. bench/run.py imports measure() and
markdown(); run alone:

  /usr/bin/python3 bench/distributed.py [--build-dir build/release] [--quick]

1. all_reduce (sum, f32) of 1 KiB to 64 MiB through burn's Communicator on CPU tensors
   (bench/bench_collective.cpp) against Gloo's own allreduce on the same sizes (bench/collective/gloo_allreduce.cpp,
   Debian's libgloo alone, connected and called as the gloo plugin does), sides alternating size by size, each
   rank 1 thread; medians of repetitions after a warm-up that sizes them. burn is also run with
   BURN_COLLECTIVE_CHECK=off, to show what the cross-rank call check costs, and on host data in place
   (all_reduce(TensorData&), DataParallel's path, without the tensor's two copies). Target: burn/Gloo time at most 1.11
   (burn's bandwidth at least 0.9x Gloo's).
2. A data-parallel Adam step of the MLP 784-512-512-10 (2.7 MB of gradients, batch 64 per rank) with the
   all-reduces overlapping backward against the same step with them after backward
   (DataParallelConfig::overlap), with 25 MiB buckets (the default: one bucket for this model) and 1 MiB ones.
3. The Fashion-MNIST CNN epoch (bench/train_epoch.cpp, global batch 64, Adam with epsilon 1e-8, seed 1) on
   2 ranks x 1 thread (a batch of 32 each, 1 loader worker each) against 1 process x 2 threads (2 workers), and
   the test accuracy of both. Target: the process's epoch / the 2 ranks' at least 0.85.
--quick runs the all_reduce of 1 MiB only.
"""
import argparse
import json
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RANKS = 2
# (bytes, warm-up calls): the warm-up's pace sizes the repetitions (REP_SECONDS each, the ranks' largest count).
ALL_REDUCE_SIZES = ((1 << 10, 50), (64 << 10, 30), (1 << 20, 10), (16 << 20, 4), (64 << 20, 2))
QUICK_SIZES = ((1 << 20, 10),)
REP_SECONDS = 0.2
ALL_REDUCE_TARGET = 1.11  # burn/Gloo time: burn's bandwidth at least 0.9x Gloo's
EPOCH_TARGET = 0.85  # the single process's epoch time / the 2 ranks': their throughput at least 0.85x
PROGRAMS = ("burn", "burn-bench-collective", "burn-bench-gloo-allreduce", "burn-bench-train-epoch")

WHAT = ("burn-collective (the `gloo` plugin, TCP on 127.0.0.1) and burn-train's `DataParallel` on 2 ranks of this "
        "machine, every job started by `burn run --nproc-per-node 2`, 1 compute thread per rank "
        "(bench/distributed.py). all_reduce (sum, f32) through `Communicator::all_reduce` on CPU tensors against "
        "Gloo's own `gloo::allreduce` (bench/collective/gloo_allreduce.cpp: Debian's libgloo alone, connected and "
        "called as the plugin does: FileStore rendezvous, TCP device, ring algorithm, in place), sides alternating "
        "size by size, medians of repetitions after a warm-up; bandwidth is bytes / time (the bus bandwidth: for "
        "2 ranks the ring's factor 2(n-1)/n is 1). burn is timed with its cross-rank call check on (the default) "
        "and off (`BURN_COLLECTIVE_CHECK=off`), and on host data in place (`all_reduce(TensorData&)`, what "
        "`DataParallel`'s buckets use: no copy to and from a tensor; check on). Target: burn/Gloo time at most 1.11 (burn's bandwidth at least "
        "0.9x Gloo's). The data-parallel step (MLP 784-512-512-10, 2.7 MB of gradients, Adam, batch 64 per rank, "
        "median of steps) with the all-reduces overlapping backward (the default) against the same step with "
        "them after backward (`DataParallelConfig::overlap = false`); no target. The Fashion-MNIST CNN epoch "
        "(the epoch section's program and settings, global batch 64) on 2 ranks x 1 thread against 1 process x "
        "2 threads. Target: the process's epoch time / the 2 ranks' at least 0.85 (the 2 ranks' throughput at "
        "least 0.85x); the test accuracies are reported, with no target.")


def rank_env(threads, **extra):
    e = dict(os.environ)
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "BURN_RENDEZVOUS", "BURN_RUN_ID", "BURN_COLLECTIVE_CHECK"):
        e.pop(k, None)
    e.update(BURN_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS="1", **extra)
    return e


def json_lines(cmd, env, timeout=600):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, timeout=timeout).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def launch(bin_dir, program, args, env):
    """`burn run --nproc-per-node 2 -- PROGRAM ARGS`: rank 0's JSON lines."""
    cmd = [os.path.join(bin_dir, "burn"), "run", "--nproc-per-node", str(RANKS), "--timeout", "600", "--",
           os.path.join(bin_dir, program)] + [str(a) for a in args]
    return json_lines(cmd, env)


def missing_programs(bin_dir):
    return [p for p in PROGRAMS if not os.path.exists(os.path.join(bin_dir, p))]


def measure_all_reduce(bin_dir, sizes, reps, log=None):
    rows = []
    for size, warm in sizes:
        spec = [f"{size}:{warm}", "--reps", reps, "--rep-seconds", REP_SECONDS]
        burn = launch(bin_dir, "burn-bench-collective", ["all_reduce"] + spec, rank_env(1))[0]
        gloo = launch(bin_dir, "burn-bench-gloo-allreduce", spec, rank_env(1))[0]
        off = launch(bin_dir, "burn-bench-collective", ["all_reduce"] + spec, rank_env(1, BURN_COLLECTIVE_CHECK="off"))[0]
        host = launch(bin_dir, "burn-bench-collective", ["all_reduce", "--host"] + spec, rank_env(1))[0]
        row = {"bytes": size, "iters": burn["iters"], "gloo_iters": gloo["iters"], "reps": reps,
               "burn_s": statistics.median(burn["times_s"]), "gloo_s": statistics.median(gloo["times_s"]), "burn_check_off_s": statistics.median(off["times_s"]),
               "burn_host_s": statistics.median(host["times_s"]), "burn_times_s": burn["times_s"],
               "gloo_times_s": gloo["times_s"], "burn_check_off_times_s": off["times_s"],
               "burn_host_times_s": host["times_s"]}
        row["ratio"] = row["burn_s"] / row["gloo_s"]
        rows.append(row)
        if log:
            log(f"  all_reduce/{size_label(size):31s} burn {fmt_s(row['burn_s']):>10s}  gloo {fmt_s(row['gloo_s']):>10s}"
                f"  ratio {row['ratio']:.2f}  burn (check off) {fmt_s(row['burn_check_off_s'])}"
                f"  burn (host data) {fmt_s(row['burn_host_s'])}")
    return rows


def measure_dp_step(bin_dir, log=None):
    rows = launch(bin_dir, "burn-bench-collective", ["dp_step", "--batch", 64, "--rounds", 8, "--steps", 6], rank_env(1))
    for r in rows:
        r["median_s"] = statistics.median(r["times_s"])
        if log:
            log(f"  dp_step/mlp b64 buckets {r['bucket_bytes'] >> 20} MiB overlap {str(r['overlap']):5s}       "
                f"{fmt_s(r['median_s'])}  ({r['sent_during_backward']} of {r['buckets']} buckets sent during backward)")
    return rows


def measure_epoch(bin_dir, epochs=1, log=None):
    args = ["--model", "cnn", "--epochs", epochs, "--batch-size", 64, "--epsilon", "1e-8", "--seed", 1]
    ranks = launch(bin_dir, "burn-bench-train-epoch", args + ["--workers", 1], rank_env(1))[0]
    single = json_lines([os.path.join(bin_dir, "burn-bench-train-epoch")] + [str(a) for a in args + ["--workers", 2]],
                        rank_env(2))[0]
    out = {"epochs": epochs, "seed": 1,
           "single_s": sum(single["epoch_seconds"]) / len(single["epoch_seconds"]),
           "ranks_s": sum(ranks["epoch_seconds"]) / len(ranks["epoch_seconds"]),
           "single_acc": single["test_accuracy"], "ranks_acc": ranks["test_accuracy"]}
    out["ratio"] = out["single_s"] / out["ranks_s"]
    if log:
        log(f"  epoch/cnn 2 ranks x 1 thread {out['ranks_s']:.1f} s, 1 process x 2 threads {out['single_s']:.1f} s, "
            f"ratio {out['ratio']:.2f}")
    return out


def measure(build_dir, quick=False, log=None):
    """The section's measurements: {"all_reduce": [...], "dp_step": [...], "epoch": {...}}, or {"error": why}."""
    bin_dir = os.path.join(build_dir, "bin")
    missing = missing_programs(bin_dir)
    if missing:
        return {"error": f"{bin_dir} lacks {', '.join(missing)} (built with the gloo plugin, BURN_BUILD_GLOO=ON)"}
    out = {"quick": quick}
    out["all_reduce"] = measure_all_reduce(bin_dir, QUICK_SIZES if quick else ALL_REDUCE_SIZES, 3 if quick else 7, log)
    if quick:
        return out
    out["dp_step"] = measure_dp_step(bin_dir, log)
    try:
        out["epoch"] = measure_epoch(bin_dir, log=log)
    except subprocess.CalledProcessError as e:  # e.g. no Fashion-MNIST files
        out["epoch"] = {"error": f"{' '.join(e.cmd[:6])} ... failed: {(e.stderr or '').strip()[-300:]}"}
    return out


def size_label(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def fmt_s(s):
    return f"{s * 1e3:.3g} ms" if s >= 1e-3 else f"{s * 1e6:.3g} µs"


def gbs(size, s):
    bw = size / s
    return f"{bw / 1e9:.2f} GB/s" if bw >= 1e9 else f"{bw / 1e6:.3g} MB/s"


def met(ok, miss):
    return "yes" if ok else f"no ({miss})"


def markdown(d):
    """The section's tables ('' when not run; the reason when it could not run)."""
    if not d:
        return ""
    if "error" in d:
        return f"(not run: {d['error']})"
    parts = []
    head = ["size", "burn median", "burn bandwidth", "Gloo median", "Gloo bandwidth", "burn/Gloo (time)", "target",
            "met", "burn, check off", "check off/Gloo", "the check's cost", "burn, host data in place",
            "host data/Gloo"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in d.get("all_reduce", []):
        cost = r["burn_s"] - r["burn_check_off_s"]
        lines.append("| " + " | ".join([
            size_label(r["bytes"]), fmt_s(r["burn_s"]), gbs(r["bytes"], r["burn_s"]), fmt_s(r["gloo_s"]),
            gbs(r["bytes"], r["gloo_s"]), f"{r['ratio']:.2f}", f"≤ {ALL_REDUCE_TARGET}",
            met(r["ratio"] <= ALL_REDUCE_TARGET, f"+{100 * (r['ratio'] / ALL_REDUCE_TARGET - 1):.0f}%"),
            fmt_s(r["burn_check_off_s"]), f"{r['burn_check_off_s'] / r['gloo_s']:.2f}",
            f"{fmt_s(cost)} ({100 * cost / r['burn_s']:.0f}% of burn's call)" if cost > 0 else "none measured",
            fmt_s(r["burn_host_s"]), f"{r['burn_host_s'] / r['gloo_s']:.2f}"]) + " |")
    if lines[2:]:
        reps = d["all_reduce"][0]["reps"]
        parts.append(f"all_reduce, sum of f32, 2 ranks ({reps} repetitions of about {REP_SECONDS} s after a warm-up; "
                     "calls per repetition, burn / Gloo: "
                     + ", ".join(f"{size_label(r['bytes'])} {r['iters']} / {r['gloo_iters']}" for r in d["all_reduce"])
                     + "):\n\n"
                     + "\n".join(lines))
    steps = d.get("dp_step") or []
    if steps:
        lines = ["| buckets | buckets in the step | overlap (default) | after backward | overlap's saving | "
                 "buckets sent during backward (overlap / after) |", "|---|---|---|---|---|---|"]
        for size in sorted({r["bucket_bytes"] for r in steps}, reverse=True):
            o = next(r for r in steps if r["bucket_bytes"] == size and r["overlap"])
            a = next(r for r in steps if r["bucket_bytes"] == size and not r["overlap"])
            saving = a["median_s"] - o["median_s"]
            lines.append(f"| {size >> 20} MiB{' (default)' if size == 25 << 20 else ''} | {o['buckets']} | "
                         f"{fmt_s(o['median_s'])} | {fmt_s(a['median_s'])} | {fmt_s(saving) if saving >= 0 else '-' + fmt_s(-saving)} "
                         f"({100 * saving / a['median_s']:.0f}%) | {o['sent_during_backward']} / {a['sent_during_backward']} |")
        r0 = steps[0]
        parts.append(f"Data-parallel step, MLP 784-512-512-10 ({r0['grad_bytes'] / 1e6:.1f} MB of gradients), Adam, "
                     f"batch {r0['batch']} per rank, median of {len(r0['times_s'])} steps:\n\n" + "\n".join(lines))
    e = d.get("epoch")
    if e and "error" in e:
        parts.append(f"Fashion-MNIST CNN epoch: not run ({e['error']})")
    elif e:
        verdict = met(e["ratio"] >= EPOCH_TARGET, f"-{100 * (1 - e['ratio'] / EPOCH_TARGET):.0f}%")
        lines = [f"| run | epoch | images/s | process/2 ranks (time) | target | met | test acc after {e['epochs']} "
                 f"(seed {e['seed']}) |", "|---|---|---|---|---|---|---|",
                 f"| 2 ranks x 1 thread (batch 32 each) | {e['ranks_s']:.1f} s | {60000 / e['ranks_s']:.0f} | "
                 f"{e['ratio']:.2f} | ≥ {EPOCH_TARGET} | {verdict} | {e['ranks_acc']:.2f} % |",
                 f"| 1 process x 2 threads (batch 64) | {e['single_s']:.1f} s | {60000 / e['single_s']:.0f} | — | — | — | "
                 f"{e['single_acc']:.2f} % |"]
        parts.append("Fashion-MNIST CNN epoch (60,000 images, global batch 64):\n\n" + "\n".join(lines))
    return "\n\n".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--quick", action="store_true", help="the all_reduce of 1 MiB only")
    a = ap.parse_args()
    print(markdown(measure(a.build_dir, a.quick, log=lambda m: print(m, flush=True))))


if __name__ == "__main__":
    main()
