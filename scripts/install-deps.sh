#!/usr/bin/env bash
# Installs the Debian 12 packages burn-cpp builds and tests with, only those that are missing, so a
# second run does nothing and needs no network. Shared by scripts/test.sh, scripts/demo.sh, .ci/run.
set -euo pipefail

# ctest never needs Python: the PyTorch reference fixtures are committed. clang builds the libFuzzer
# targets of burn-record (the `fuzz` tests); clang-format checks the style (scripts/check-format.sh).
# burn::data reads gzip IDX files (zlib), decodes images (stb) and keeps datasets in SQLite; burn::train
# draws curves (cairo) and its dashboard (ncurses); the demo trains on Debian's Fashion-MNIST.
BURN_DEB_PACKAGES=(
  g++ cmake ninja-build ccache pkg-config
  libboost-dev libboost-filesystem-dev libboost-program-options-dev
  libopenblas-dev libspdlog-dev nlohmann-json3-dev
  libzstd-dev libxxhash-dev libhdf5-dev hdf5-tools
  zlib1g-dev libstb-dev libsqlite3-dev
  clang libclang-rt-dev clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  libcairo2-dev libncurses-dev
  dataset-fashion-mnist
)
# burn-import's `burn` importer: Rust Burn's NamedMpk records (MessagePack, optionally gzip).
BURN_DEB_PACKAGES+=(libmsgpack-cxx-dev zlib1g-dev)
# burn-import's pytorch importer: libzip (pkg-config libzip, links -lzip).
BURN_DEB_PACKAGES+=(libzip-dev)
# burn-import's onnx plugin: ONNX protobuf classes, protobuf, and the backend test cases (ctest -L onnx)
BURN_DEB_PACKAGES+=(libonnx-dev libprotobuf-dev libonnx-testdata)

# burn-backend-vulkan: the loader and headers, glslang (GLSL -> SPIR-V at run time), spirv-val for the
# kernel test; lavapipe (mesa-vulkan-drivers) is the CI device, the validation layer checks it once.
# glslang-tools: glslang-dev's CMake package names /usr/bin/glslangValidator, so find_package fails without it.
BURN_DEB_PACKAGES+=(libvulkan-dev glslang-dev glslang-tools spirv-tools mesa-vulkan-drivers vulkan-validationlayers vulkan-tools)

# burn-backend-opencl: the ICD loader (libOpenCL.so.1, which finds drivers through /etc/OpenCL/vendors) and the
# C headers; PoCL (OpenCL on the CPU) is the CI device, clinfo lists devices by hand; CLBlast for GEMM.
BURN_DEB_PACKAGES+=(ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd libclblast-dev clinfo)

# burn-collective's gloo plugin: Gloo (the engine PyTorch uses on CPUs) with its TCP transport; the
# shared libgloo.so.0 pulls in libhiredis and libibverbs. redis-server: the rendezvous on a Redis server
# (redis://host:port) for machines without a shared file system; its test is skipped without it.
BURN_DEB_PACKAGES+=(libgloo-dev libhiredis-dev redis-server)

missing=()
for pkg in "${BURN_DEB_PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#BURN_DEB_PACKAGES[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo -n)
else
  echo "install-deps: missing packages (${missing[*]}) and not root; install them or run as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
