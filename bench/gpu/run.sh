#!/usr/bin/env bash
# The Vulkan GPU benchmarks, run from a pack that bench/gpu/pack.sh made (copy the folder or its .tar.gz to
# the GPU machine: it needs the GPU's Vulkan driver, nothing from Debian). One command, under 8 minutes:
#   ./run.sh [--smoke] [--out DIR] [--device SPEC]
#     --smoke        tiny sizes, a few seconds (what the ctest runs on lavapipe; the numbers mean nothing)
#     --out DIR      where results.jsonl, results.json and results.md go (default ./results)
#     --device SPEC  the Vulkan device (default "vulkan": the best one; "vulkan:1" for the second)
# Measures f32 and f16 GEMM 4096^3 (f16 with and without cooperative matrices) against cuBLAS through
# PyTorch when `python3 -c 'import torch'` works and sees CUDA, elementwise bandwidth against a copy,
# ResNet-50 inference at batch 1 and 32 against PyTorch CUDA, the transformer layer fused against unfused,
# and the fixed cost per dispatch; prints one table.
# Exit 77 when there is no Vulkan device, 1 when a case failed or ran out of time. The program runs through
# the pack's wrapper (burn-bench-vulkan beside this script: the host's glibc when new enough, else the pack's).
set -uo pipefail
pack="$(cd "$(dirname "$0")" && pwd)"
smoke=()
out="$PWD/results"
device=vulkan
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=(--smoke) ;;
    --out) out="$2"; shift ;;
    --device) device="$2"; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (--smoke, --out DIR, --device SPEC)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"
jsonl="$out/results.jsonl"
: > "$jsonl"

bench() { "$pack/burn-bench-vulkan" "$@"; }  # the wrapper: the pack's libraries and, where needed, glibc

# The whole run stays under 8 minutes: 460 s of cases, 100 of them kept for PyTorch when it is there.
start=$SECONDS
have_torch=0
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && have_torch=1
torch_s=$(( have_torch ? (${#smoke[@]} ? 60 : 100) : 0 ))
budget=$(( (${#smoke[@]} ? 120 : 460) - torch_s ))
# run LIMIT_S [ENV=V ...] -- ARGS: one case, its JSON lines appended, within its limit and what is left.
run_case() {
  local limit=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local left=$(( budget - (SECONDS - start) ))
  [ "$limit" -lt "$left" ] || limit=$left
  if [ "$limit" -le 5 ]; then
    echo "{\"case\": \"skipped\", \"args\": \"$*\", \"why\": \"out of time\"}" | tee -a "$jsonl"
    return
  fi
  local rc=0
  env "${envs[@]+"${envs[@]}"}" timeout "$limit" "$pack/burn-bench-vulkan" "$@" --device "$device" \
    "${smoke[@]+"${smoke[@]}"}" | tee -a "$jsonl" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "{\"case\": \"failed\", \"args\": \"$*\", \"rc\": $rc}" | tee -a "$jsonl"
  fi
}

echo "run.sh: $(head -1 "$pack/MANIFEST" 2>/dev/null); host glibc $(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2), \
pack needs $(sed -n 's/^glibc_needed //p' "$pack/MANIFEST" 2>/dev/null)" >&2
devices_rc=0
bench devices --device "$device" | tee -a "$jsonl" || devices_rc=$?
if [ "$devices_rc" -eq 77 ]; then
  echo "run.sh: no Vulkan device (is the GPU's Vulkan driver installed? vulkaninfo --summary)" >&2
  exit 77
elif [ "$devices_rc" -ne 0 ]; then
  echo "run.sh: the benchmark program does not start here (rc $devices_rc)" >&2
  exit 1
fi

run_case 45 -- gemm --dtype f32
run_case 45 -- gemm --dtype f16
run_case 45 BURN_VULKAN_DISABLE=cooperative_matrix -- gemm --dtype f16
run_case 30 -- bandwidth
run_case 45 -- resnet --batch 1
run_case 75 -- resnet --batch 32
run_case 60 -- transformer
run_case 30 -- dispatch
run_case 45 -- steps

if [ "$have_torch" = 1 ]; then
  left=$(( budget + torch_s - (SECONDS - start) ))
  timeout "$left" python3 "$pack/torch_ref.py" "${smoke[@]+"${smoke[@]}"}" | sed 's/^{/{"ref": "torch", /' |
    tee -a "$jsonl" || echo '{"case": "failed", "args": "torch_ref.py"}' | tee -a "$jsonl"
else
  echo '{"case": "torch", "why": "python3 cannot import torch with CUDA here: no cuBLAS / PyTorch column"}' |
    tee -a "$jsonl"
fi

if ! command -v python3 >/dev/null; then
  echo "run.sh: no python3 for the table; the results are in $jsonl" >&2
  exit 0
fi
python3 - "$jsonl" "$out" "${#smoke[@]}" <<'EOF'
import json, sys
path, out, smoke = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
rows = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
burn = [r for r in rows if "ref" not in r]
torch = [r for r in rows if r.get("ref") == "torch"]
def find(rs, case, **kv):
    for r in rs:
        if r.get("case") == case and all(r.get(k) == v for k, v in kv.items()):
            return r
    return None
def f(x, fmt="{:.2f}"):
    return "—" if x is None else fmt.format(x)
table = []
def row(name, ours, ref, ratio, target, unit):
    table.append((name, f(ours) + " " + unit if ours is not None else "—", f(ref) + " " + unit if ref is not None else "—",
                  f(ratio), target))
for dtype, coop, target in (("f32", "", "≥ 0.50"), ("f16", "", "≥ 0.40 (coopmat)"), ("f16", "cooperative_matrix", "")):
    r = find(burn, "gemm", dtype=dtype, disabled=coop)
    t = find(torch, "gemm", dtype=dtype)
    ours, ref = r and r["tflops"], t and t["tflops"]
    label = f"GEMM {dtype} {r['n'] if r else ''}^3" + (" without coopmat" if coop else (" (profile's kernel)" if dtype == "f16" else ""))
    row(label, ours, ref, ours / ref if ours and ref else None, target, "TFLOP/s")
b, tb = find(burn, "bandwidth"), find(torch, "bandwidth")
if b:
    row("elementwise y = x * 2 vs burn copy", b["elementwise_gbs"], b["copy_gbs"], b["elementwise_gbs"] / b["copy_gbs"], "", "GB/s")
    if tb:
        row("elementwise vs PyTorch D2D copy", b["elementwise_gbs"], tb["copy_gbs"], b["elementwise_gbs"] / tb["copy_gbs"], "≥ 0.70", "GB/s")
for batch in sorted({r["batch"] for r in rows if r.get("case") == "resnet"}):
    r, t = find(burn, "resnet", batch=batch), find(torch, "resnet", batch=batch)
    row(f"{(r or t or {}).get('model', 'resnet')} inference batch {batch}", r and r["ms"], t and t["ms"],
        r["ms"] / t["ms"] if r and t else None, "≤ 1.5" if batch > 1 else "", "ms")
tr, tt = find(burn, "transformer"), find(torch, "transformer")
if tr:
    row(f"transformer layer fwd+bwd {tr['shape']} fused (vs unfused)", tr["fused_ms"], tr["unfused_ms"], tr["fused_ms"] / tr["unfused_ms"], "< 1", "ms")
    if tt:
        row("transformer layer fwd+bwd fused (vs PyTorch)", tr["fused_ms"], tt["ms"], tr["fused_ms"] / tt["ms"], "", "ms")
d = find(burn, "dispatch")
if d:
    row(f"fixed cost per dispatch (batch {d['batch']}), end to end", d["end_to_end_us_per_op"], None, None, "", "µs")
    row("host recording per dispatch", d["record_us_per_op"], None, None, "", "µs")
for s in [r for r in burn if r.get("case") == "steps"]:
    table.append((f"dispatches per step: {s['step']} on {s['chain']}", str(s["dispatches"]), "", "", ""))
dev = find(burn, "devices")
head = f"Vulkan GPU benchmarks{' (SMOKE: tiny sizes, numbers meaningless)' if smoke else ''} on {dev['device'] if dev else '?'}"
if torch:
    head += f"; reference: PyTorch {torch[0].get('version', '?')} on {torch[0].get('device', '?')}"
lines = [head, "", "| case | burn (Vulkan) | reference | ratio | target |", "|---|---|---|---|---|"]
lines += ["| " + " | ".join(r) + " |" for r in table]
problems = [r for r in rows if r.get("case") in ("failed", "skipped")]
for p in problems:
    lines.append(f"\n{p['case']}: {p.get('args')} {p.get('why', '')} {('rc ' + str(p['rc'])) if 'rc' in p else ''}")
text = "\n".join(lines) + "\n"
print(text)
open(f"{out}/results.md", "w").write(text)
json.dump({"rows": rows, "table": [dict(zip(("case", "burn", "reference", "ratio", "target"), r)) for r in table]},
          open(f"{out}/results.json", "w"), indent=1)
sys.exit(1 if problems else 0)
EOF
