#!/usr/bin/env bash
# Builds the release preset and runs the burn-demo example (examples/demo.cpp).
# Usage: bash scripts/demo.sh [demo arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

export CCACHE_DIR="${CCACHE_DIR:-$PWD/build/ccache}"
export CCACHE_BASEDIR="$PWD"
mkdir -p "$CCACHE_DIR"

cmake --preset release
if ! ninja -C build/release -t query burn-demo >/dev/null 2>&1; then
  echo "demo: the build has no burn-demo target yet (examples/demo.cpp is not written or not added" >&2
  echo "      to CMakeLists.txt); the library itself builds with: cmake --build --preset release" >&2
  exit 1
fi
cmake --build --preset release --target burn-demo
exec build/release/bin/burn-demo "$@"
