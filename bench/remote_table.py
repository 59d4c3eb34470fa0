"""The remote table: the fixed cost of one op on `remote<tcp://127.0.0.1:PORT>` (sent without waiting, and
read back) and the MLP train step on `autodiff<remote<...>>`, each next to its local twin, against a
`burn server --device cpu` that this script starts on a free loopback port and stops.

  /usr/bin/python3 bench/remote_table.py [--build-dir build/release] [--reps 6] [--min-time 0.25]
  bash bench/run.sh --only remote          (the same section through the page's driver)

Rows, each measured local then remote in turn (the same program, the same repetitions), and their
targets (docs/decisions.md, "benchmark targets of the remote backend"):
- `a + b` on 1x8 sent without waiting (bench_overhead.cpp's remote_tiny_add against the page's
  tiny_add on cpu; the last op of a run waits until the server has run them all, so the rate is the
  sustained one): at least half the local op rate, i.e. remote/local time <= 2.0: the design queues
  a record and sends 256 at a time, so the rate is bounded by the server running the op plus decoding
  its record, not by the network;
- `a + b` on 1x8 then read back to the host (remote_tiny_add_read against tiny_add_read): one loopback
  round trip, at most 50 µs;
- the MLP 784-512-512-10 Adam step at batch 128 (bench_nn.cpp's remote_mlp_train_adam against the page's
  nn_mlp_train_adam on autodiff<cpu>): remote/local <= 1.5: one round trip per step (its sync), the rest
  sent without waiting.
The server's cpu backend gets the run's threads (BURN_NUM_THREADS=2), as the local side does; client
and server share the machine. Each remote case also reports what the connection sent per op or step
(counters of the client, burn/remote/remote.hpp's RemoteStats) and its round trips.
"""
import argparse
import ctypes
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import THREADS, Case, env, fmt_time, run_burn  # noqa: E402

SERVER_START_S = 20  # bounded wait for the server's "listening on" line
SERVER_STOP_S = 5  # SIGTERM, then SIGKILL after this


def rows():
    """(label, local case, remote case, kind, target): kind 'rate' (target: remote/local time at most),
    'latency' (target: remote time at most, ns) or 'step' (target: remote/local time at most)."""
    return [
        ("`a + b` on 1x8, sent without waiting", Case("tiny_add/1x8", "overhead", "none", 0, "remote"),
         Case("remote_tiny_add/1x8", "overhead", "none", 0, "remote"), "rate", 2.0),
        ("`a + b` on 1x8, then read back to the host", Case("tiny_add_read/1x8", "overhead", "none", 0, "remote"),
         Case("remote_tiny_add_read/1x8", "overhead", "none", 0, "remote"), "latency", 50e3),
        ("MLP 784-512-512-10 Adam step, b128", Case("nn_mlp_train_adam/784-512-512-10_b128", "nn", "none", 0, "remote"),
         Case("remote_mlp_train_adam/784-512-512-10_b128", "nn", "none", 0, "remote"), "step", 1.5),
    ]


QUICK_ROWS = ("MLP 784-512-512-10 Adam step, b128",)


def selected(only=None, quick=False):
    """The rows a run measures: with `only` (bench/run.py --only) those whose remote case matches it."""
    return [r for r in rows() if (not quick or r[0] in QUICK_ROWS) and (not only or re.search(only, r[2].name))]


def server_path(build_dir):
    return os.path.join(build_dir, "libexec", "burn", "burn-server")


def _die_with_parent(parent):
    """In the server's child process before exec: SIGTERM when this script dies, however it dies
    (prctl PR_SET_PDEATHSIG), so no server outlives a killed run."""
    def hook():
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the hook ran
            os._exit(1)
    return hook


class RemoteServer:
    """`burn server --device DEVICE --listen 127.0.0.1:0 --quiet`, on the run's threads: started with a bounded
    wait for its address, stopped on leaving the `with` block (SIGTERM, then SIGKILL), and killed with this
    process if it dies first."""

    def __init__(self, build_dir, device="cpu"):
        self.cmd = [server_path(build_dir), "--listen", "127.0.0.1:0", "--device", device, "--quiet"]
        self.p, self.address, self.err = None, None, None

    def __enter__(self):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.err,
                                  env=env(), preexec_fn=_die_with_parent(os.getpid()))
        try:
            self.address = self._wait_for_address()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_for_address(self):
        deadline = time.monotonic() + SERVER_START_S
        line = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.p.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(self.p.stdout.fileno(), 4096)
            if not chunk:  # the server exited
                self.p.wait(timeout=SERVER_STOP_S)
                self.err.seek(0)
                raise RuntimeError(f"burn server exited ({self.p.returncode}) before listening: "
                                   f"{self.err.read().strip()[-300:]}")
            line += chunk
            m = re.search(rb"listening on (tcp://\S+)", line)
            if m:
                return m.group(1).decode()
        raise RuntimeError(f"burn server did not listen within {SERVER_START_S} s")

    def __exit__(self, *exc):
        if self.p and self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=SERVER_STOP_S)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        if self.p:
            self.p.stdout.close()
        if self.err:
            self.err.close()
        return False


def measure(build_dir, reps=6, min_time=0.25, warmup=0.1, only=None, quick=False, log=print):
    """The table's rows, as dicts (label, kind, target, local and remote results); [] when none is selected."""
    todo = selected(only, quick)
    if not todo:
        return []
    bin_dir = os.path.join(build_dir, "bin")
    out = []
    with RemoteServer(build_dir) as server:
        log(f"remote: burn server --device cpu at {server.address} ({THREADS} threads)")
        extra = {"BURN_BENCH_REMOTE": server.address}
        for label, local, remote, kind, target in todo:
            lo = run_burn(bin_dir, local, reps, min_time, warmup)
            rem = run_burn(bin_dir, remote, reps, min_time, warmup, extra_env=extra)
            if server.p.poll() is not None:
                raise RuntimeError(f"burn server exited ({server.p.returncode}) during {remote.name}")
            row = {"label": label, "kind": kind, "target": target, "local_case": local.name,
                   "remote_case": remote.name, "local": lo, "remote": rem}
            out.append(row)
            log("  " + " | ".join(cells(row)))
    return out


def _verdict(row):
    ln, rn = row["local"].get("median_ns"), row["remote"].get("median_ns")
    if row["kind"] == "latency":
        return (rn, rn <= row["target"]) if rn else (None, None)
    ratio = rn / ln if rn and ln else None
    return (ratio, None if ratio is None else ratio <= row["target"])


def cells(row):
    """One table line: label, local, remote, remote/local, sent, received, round trips, target, met."""
    lo, rem = row["local"], row["remote"]
    ln, rn = lo.get("median_ns"), rem.get("median_ns")
    per = "op" if row["kind"] != "step" else "step"

    def shown(r, ns):
        if not ns:
            return "error: " + str(r.get("error"))
        return fmt_time(ns) + (f" ({1e9 / ns / 1e6:.2f} M ops/s)" if row["kind"] == "rate" else "")

    c = rem.get("counters", {})
    trips = f"{c['round_trips']:.3g}" if "round_trips" in c else "n/a"
    waited = sorted(k.split(":", 1)[1] for k in c if k.startswith("round_trips:"))
    if waited:
        trips += " (" + ", ".join(waited) + ")"
    if row["kind"] == "rate" and "drain_us" in c:
        trips += f"; drain at the end {c['drain_us']:.0f} µs"
    ratio = f"{rn / ln:.2f}" if rn and ln else "n/a"
    verdict, ok = _verdict(row)
    target = f"≤ {fmt_time(row['target'])}" if row["kind"] == "latency" else f"≤ {row['target']}"
    met = "n/a" if ok is None else ("yes" if ok else
                                     f"no (+{100 * (verdict / row['target'] - 1):.0f}%)")
    sent = f"{c['bytes_sent']:,.0f} B/{per}" if "bytes_sent" in c else "n/a"
    received = f"{c['bytes_received']:,.0f} B/{per}" if "bytes_received" in c else "n/a"
    return [row["label"], shown(lo, ln), shown(rem, rn), ratio, sent, received, trips, target, met]


HEADER = ("| case | local | remote | remote/local | sent | received | round trips | target | met |\n"
          "|---|---|---|---|---|---|---|---|---|")


def markdown(table):
    return HEADER + "\n" + "\n".join("| " + " | ".join(cells(r)) + " |" for r in table) if table else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build", "release"))
    ap.add_argument("--reps", type=int, default=6)
    ap.add_argument("--min-time", type=float, default=0.25)
    ap.add_argument("--quick", action="store_true", help="the MLP row only, 3 repetitions of 0.1 s")
    ap.add_argument("--only", help="the rows whose remote case matches this regex")
    a = ap.parse_args()
    reps, min_time = (3, 0.1) if a.quick else (a.reps, a.min_time)
    table = measure(a.build_dir, reps, min_time, 0.05 if a.quick else 0.1, a.only, a.quick,
                    log=lambda m: print(m, flush=True))
    print()
    print(markdown(table))
    return 0 if table and all("error" not in r["local"] and "error" not in r["remote"] for r in table) else 1


if __name__ == "__main__":
    sys.exit(main())
