#!/usr/bin/env bash
# The lavapipe measurements (bash bench/run.sh --vulkan runs this): the fixed cost per
# dispatch at submission batches of 1, 16, 64 and 256 dispatches (BURN_VULKAN_BATCH; 100000: all 20000 ops
# recorded before one submission, the recording alone) and the dispatches
# fusion saves on the MLP and transformer training steps, counted by the plugin. Builds burn-bench-gpu
# into build/release, prints the JSON lines (build/release/bench-vulkan.jsonl) and a markdown table.
# lavapipe runs on the CPU: a correctness device, its times say what the host side costs, not a GPU's.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset release -DBURN_BUILD_BENCH=ON >/dev/null
cmake --build build/release --target burn-bench-gpu burn-autodiff burn-fusion >/dev/null
bin=build/release/bin/burn-bench-gpu
out=build/release/bench-vulkan.jsonl
rc=0
"$bin" devices > "$out" || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "bench/vulkan/lavapipe.sh: no Vulkan device (Debian: mesa-vulkan-drivers for lavapipe)" >&2
  exit "$rc"
fi
for batch in 1 16 64 256 100000; do BURN_VULKAN_BATCH=$batch "$bin" dispatch >> "$out"; done
"$bin" steps >> "$out"
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("device:", rows[0]["device"])
print("\n| dispatches per submission | host recording, µs/dispatch (median, min) | end to end with the sync, µs/dispatch (median, min) | one op + sync, µs |")
print("|---|---|---|---|")
for r in rows:
    if r["case"] == "dispatch":
        batch = "all (one submission)" if r["batch"] >= r["ops"] else r["batch"]
        print(f"| {batch} | {r['record_us_per_op']:.1f}, {r['record_us_min']:.1f} | "
              f"{r['end_to_end_us_per_op']:.1f}, {r['end_to_end_us_min']:.1f} | {r['one_op_sync_us']:.0f} |")
steps = {}
for r in rows:
    if r["case"] == "steps":
        steps.setdefault(r["step"], {})[r["chain"]] = r
print("\n| training step | dispatches autodiff<vulkan> | dispatches autodiff<fusion<vulkan>> | saved | submissions (unfused / fused) |")
print("|---|---|---|---|---|")
for step, by in steps.items():
    u = next(v for k, v in by.items() if "fusion" not in k)
    f = next(v for k, v in by.items() if "fusion" in k)
    print(f"| {step} | {u['dispatches']} | {f['dispatches']} | {u['dispatches'] - f['dispatches']} "
          f"({100 * (u['dispatches'] - f['dispatches']) / u['dispatches']:.0f}%) | {u['submits']} / {f['submits']} |")
PY
