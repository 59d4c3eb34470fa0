#!/usr/bin/env bash
# The demo: installs what is missing, builds the release preset, trains the FashionCnn on Fashion-MNIST
# (Debian's dataset-fashion-mnist) with the Learner's dashboard, then, in a separate process, loads the
# saved model and predicts a few test images. Artifacts go to artifacts/fashion-mnist.
# Usage: bash scripts/demo.sh [burn-demo train options, e.g. --epochs 2 or --resume]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

export CCACHE_DIR="${CCACHE_DIR:-$PWD/build/ccache}"
export CCACHE_BASEDIR="$PWD"
mkdir -p "$CCACHE_DIR"

cmake --preset release
cmake --build --preset release --target burn-demo
build/release/bin/burn-demo train --artifacts artifacts/fashion-mnist "$@"
echo
echo "=== inference with the saved model (a new process)"
build/release/bin/burn-demo infer --artifacts artifacts/fashion-mnist --count 8 --require-accuracy 89
