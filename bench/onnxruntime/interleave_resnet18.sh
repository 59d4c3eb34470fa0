#!/bin/bash
# ResNet-18 inference, burn against ONNX Runtime, interleaved: bench/onnxruntime/interleave_resnet18.sh
# BATCH ROUNDS [MODEL.onnx]. Each round runs burn-bench-nn (5 repetitions) and then bench_ort.mjs
# (5 repetitions, 2 threads) and prints their medians and ratio; at the end, the median of the per-round
# ratios. On a host whose speed drifts, pairing rounds is what makes the ratio comparable. Needs a
# release build with -DBURN_BUILD_BENCH=ON and the model from export_torchvision.py. BURN_R18_CASE picks
# burn's case: nn_resnet18_infer (cpu, the default) or nn_resnet18_infer_fused (fusion<cpu>).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
batch=${1:?batch}
rounds=${2:?rounds}
model=${3:-/tmp/burn-bench-resnet18.onnx}
iters=$((batch == 1 ? 20 : 4))
burn_case=${BURN_R18_CASE:-nn_resnet18_infer}
for _ in $(seq "$rounds"); do
  b=$("$root/build/release/bin/burn-bench-nn" --benchmark_filter="^${burn_case}/b${batch}_" \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>&1 | awk '/real_time_median/ {print $2 / 1000}')
  o=$(cd "$here" && node bench_ort.mjs "$model" "$batch" 2 "$iters" 5 |
    /usr/bin/python3 -c "import json, statistics, sys; print(statistics.median(json.load(sys.stdin)['times_s']) * 1000)")
  echo "$b $o"
done | /usr/bin/python3 -c "
import statistics, sys
r = [tuple(map(float, l.split())) for l in sys.stdin]
for b, o in r: print(f'burn {b:.1f} ms  ort {o:.1f} ms  ratio {b / o:.3f}')
print(f'paired median ratio {statistics.median([b / o for b, o in r]):.3f}; medians burn {statistics.median([b for b, _ in r]):.1f} ms, ort {statistics.median([o for _, o in r]):.1f} ms')
"
