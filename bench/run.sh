#!/usr/bin/env bash
# One command for the benchmarks: builds the release preset with the benchmarks into build/release (the
# burn-bench target: every program run.py and the scripts it imports call), measures the machine's limits,
# runs every table (ops, model inference, train steps, the Fashion-MNIST epoch, distributed, records,
# import, fusion pairs, remote) against PyTorch, libtorch, ONNX Runtime and Gloo (remote<...> against local),
# and prints them.
#   bash bench/run.sh                full run; rewrites BENCHMARKS.md whole (history: docs/benchmarks-journal.md)
#   bash bench/run.sh --quick        one row of each table, short repetitions (<= 5 min on a quiet 2-core
#                                    machine); prints the tables only
#   bash bench/run.sh --only REGEX   the run.py cases whose name matches, full repetitions; prints only
#   bash bench/run.sh --only remote  the Remote section alone (a burn server on loopback, started and stopped)
#   bash bench/run.sh --section distributed   that section alone (2 ranks under `burn run`, ~3 min;
#                                    with --quick the all_reduce of 1 MiB); builds only its programs
#   bash bench/run.sh --vulkan       the Vulkan plugin on lavapipe: fixed cost per dispatch and the dispatches
#                                    fusion saves (bench/vulkan/lavapipe.sh, ~2 min); GPUs: bench/gpu/pack.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" != "--vulkan" ] || exec bash bench/vulkan/lavapipe.sh

quick=()
only=()
section=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick) ;;
    --only)
      [ $# -ge 2 ] || { echo "bench/run.sh: --only needs a regex" >&2; exit 2; }
      only=(--only "$2"); shift ;;
    --section)
      [ $# -ge 2 ] || { echo "bench/run.sh: --section needs a name (distributed)" >&2; exit 2; }
      section=(--section "$2"); shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown argument '$1' (--quick, --only REGEX, --section distributed)" >&2; exit 2 ;;
  esac
  shift
done

# Debian packages only the benchmarks want (CI and scripts/install-deps.sh do not), installed here: PyTorch is the
# peer of every table (without it the run stops below), libtorch the C++ peer of the fixed-cost cases, torchvision
# builds the PyTorch side of the ResNet cases and their ONNX exports, onnx writes the int8 models
# (bench/onnxruntime/quantize_onnx.py). Without one of the last three, the cases that need it say why in their column.
bench_packages=(python3-torch libtorch-dev python3-torchvision python3-onnx)
missing=()
for p in "${bench_packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
  apt_get() { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@" </dev/null >/dev/null; }
  echo "bench/run.sh: installing ${missing[*]} (the benchmarks' peers)" >&2
  if ! apt_get install -y --no-install-recommends "${missing[@]}" \
     && ! { apt_get update && apt_get install -y --no-install-recommends "${missing[@]}"; }; then
    echo "bench/run.sh: could not install ${missing[*]}; the cases that need them will say so" >&2
  fi
fi

if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "bench/run.sh: /usr/bin/python3 cannot import torch (Debian: apt-get install python3-torch)" >&2
  exit 1
fi

# ONNX Runtime is the second peer of the inference cases (npm onnxruntime-node, bench/onnxruntime); like
# libtorch it is for the benchmarks only. Without it those rows say why in the ONNX Runtime column.
if [ ! -d bench/onnxruntime/node_modules/onnxruntime-node ]; then
  if command -v npm >/dev/null; then
    echo "bench/run.sh: installing onnxruntime-node (npm, the ONNX Runtime peer of the inference cases)" >&2
    (cd bench/onnxruntime && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund >/dev/null) \
      || echo "bench/run.sh: npm install failed; running without the ONNX Runtime column" >&2
  else
    echo "bench/run.sh: no npm (Debian: apt-get install npm); running without the ONNX Runtime column" >&2
  fi
fi

cmake --preset release -DBURN_BUILD_BENCH=ON >/dev/null
out=build/release/bench-results.json
if [ ${#section[@]} -gt 0 ]; then  # the distributed section's programs only (bench/CMakeLists.txt)
  cmake --build build/release --target burn-bench-distributed
  exec /usr/bin/python3 bench/run.py --build-dir build/release --json "$out" "${section[@]}" "${quick[@]}"
fi
cmake --build build/release --target burn-bench

if [ ${#quick[@]} -eq 0 ] && [ ${#only[@]} -eq 0 ]; then
  /usr/bin/python3 bench/run.py --build-dir build/release --json "$out" --markdown BENCHMARKS.md \
    --command "bash bench/run.sh"
else
  /usr/bin/python3 bench/run.py --build-dir build/release --json "$out" "${quick[@]}" "${only[@]}"
fi
