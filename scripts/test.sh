#!/usr/bin/env bash
# The full test run, as in CI: the style check (.clang-format), every suite on the release build, then
# the unit, conformance and gradcheck suites under AddressSanitizer + UBSan.
# Usage: bash scripts/test.sh (from anywhere).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

# The compiler cache is per machine, not per checkout: a fresh clone (CI's) reuses the objects of earlier
# runs on the same machine (paths are relative to CCACHE_BASEDIR); a new machine builds cold.
export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/burn-cpp/ccache}"
export CCACHE_BASEDIR="$PWD"
# The asan build has -g, for which ccache hashes the build folder's absolute path: without this a clone at
# another path (CI's) missed every asan object (only the debug info's compile dir is then not the clone's).
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
mkdir -p "$CCACHE_DIR"
jobs="${BURN_TEST_JOBS:-2}"

stage() {
  local name=$1
  shift
  echo "=== $name: $*"
  local start=$SECONDS rc=0
  "$@" || rc=$?
  if ((rc != 0)); then
    echo "=== $name: FAILED (exit $rc) after $((SECONDS - start))s" >&2
    exit "$rc"
  fi
  echo "=== $name: done in $((SECONDS - start))s"
}

total_start=$SECONDS
stage "format" bash scripts/check-format.sh
stage "release configure" cmake --preset release
stage "release build" cmake --build --preset release
stage "release test" ctest --preset release -j"$jobs"
stage "asan configure" cmake --preset asan
stage "asan build" cmake --build --preset asan
stage "asan test" ctest --preset asan -j"$jobs"
echo "=== all stages passed in $((SECONDS - total_start))s"
ccache --show-stats 2>/dev/null | grep -iE "hit|miss" | head -4 || true
