#!/usr/bin/env bash
# One command for the benchmarks: builds the release preset with the benchmarks into build/release,
# measures the machine's limits, runs burn-cpp and PyTorch case by case and prints one table.
#   bash bench/run.sh           full run (~10 min); rewrites BENCHMARKS.md at the repository root
#   bash bench/run.sh --quick   fewer sizes and repetitions (~2 min); prints the table only
set -euo pipefail
cd "$(dirname "$0")/.."

quick=()
for arg in "$@"; do
  case "$arg" in
    --quick) quick=(--quick) ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown argument '$arg' (only --quick)" >&2; exit 2 ;;
  esac
done

if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "bench/run.sh: /usr/bin/python3 cannot import torch (Debian: apt-get install python3-torch)" >&2
  exit 1
fi

cmake --preset release -DBURN_BUILD_BENCH=ON >/dev/null
cmake --build build/release --target burn-bench

out=build/release/bench-results.json
if [ ${#quick[@]} -eq 0 ]; then
  /usr/bin/python3 bench/run.py --build-dir build/release --json "$out" --markdown BENCHMARKS.md \
    --command "bash bench/run.sh"
else
  /usr/bin/python3 bench/run.py --build-dir build/release --json "$out" --quick
fi
