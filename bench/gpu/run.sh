#!/usr/bin/env bash
# The GPU benchmarks on Vulkan and OpenCL, run from a pack that bench/gpu/pack.sh made (copy the folder or
# its .tar.gz to the GPU machine: it needs the GPU's Vulkan and OpenCL drivers, nothing from Debian). One
# command, under 8 minutes:
#   ./run.sh [--smoke] [--out DIR] [--backends LIST] [--vulkan SPEC] [--opencl SPEC]
#     --smoke          tiny sizes, seconds (what the ctest runs on lavapipe and PoCL; the numbers mean nothing)
#     --out DIR        where results.jsonl, results.json and results.md go (default ./results)
#     --backends LIST  vulkan,opencl (default both); a backend without a device is reported, not an error
#     --vulkan SPEC    the Vulkan device (default "vulkan": the best one; "vulkan:1" for the second)
#     --opencl SPEC    the OpenCL device (default "opencl": the best one; "opencl:nvidia" by name)
# Per backend: f32 and f16 GEMM 4096^3 against cuBLAS through PyTorch when `python3 -c 'import torch'` works
# and sees CUDA (Vulkan: f16 with and without cooperative matrices; OpenCL: f32 through CLBlast, through
# the plugin's own kernel, and CLBlast's own call), elementwise bandwidth against a copy, ResNet-50
# inference at batch 1 and 32 against PyTorch CUDA, the transformer layer fused against unfused, the fixed
# cost per dispatch and the dispatches of the training steps; prints one table.
# Where a loader finds no driver, run.sh looks for NVIDIA's driver files where containers mount them
# (/usr/local/nvidia) and points the loader at them (VK_DRIVER_FILES; OCL_ICD_VENDORS, an .icd written
# under --out); the table says which.
# Exit 77 when no backend has a device, 1 when a case failed or ran out of time. The program runs through
# the pack's wrapper (burn-bench-gpu beside this script: the host's glibc when new enough, else the pack's).
set -uo pipefail
pack="$(cd "$(dirname "$0")" && pwd)"
smoke=()
out="$PWD/results"
backends=vulkan,opencl
declare -A spec=([vulkan]=vulkan [opencl]=opencl)
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=(--smoke) ;;
    --out) out="$2"; shift ;;
    --backends) backends="$2"; shift ;;
    --vulkan) spec[vulkan]="$2"; shift ;;
    --opencl) spec[opencl]="$2"; shift ;;
    --device) spec[vulkan]="$2"; shift ;;  # the older spelling: the Vulkan device
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (--smoke, --out DIR, --backends LIST, --vulkan SPEC, --opencl SPEC)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"
jsonl="$out/results.jsonl"
: > "$jsonl"

bench() { "$pack/burn-bench-gpu" "$@"; }  # the wrapper: the pack's libraries and, where needed, glibc
note() { echo "$1" | tee -a "$jsonl"; }

# The whole run stays under 8 minutes: 380 s of cases shared by the backends, 90 kept for PyTorch.
start=$SECONDS
have_torch=0
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && have_torch=1
torch_s=$(( have_torch ? (${#smoke[@]} ? 60 : 90) : 0 ))
budget=$(( ${#smoke[@]} ? 200 : 380 ))
# run_case BACKEND LIMIT_S [ENV=V ...] -- ARGS: one case, its JSON lines tagged with the backend and appended,
# within its limit and what is left of the backend's share.
run_case() {
  local backend=$1 limit=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local left=$(( share_end - SECONDS ))
  [ "$limit" -lt "$left" ] || limit=$left
  if [ "$limit" -le 5 ]; then
    note "{\"backend\": \"$backend\", \"case\": \"skipped\", \"args\": \"$*\", \"why\": \"out of time\"}"
    return
  fi
  local rc=0
  env "${envs[@]+"${envs[@]}"}" timeout "$limit" "$pack/burn-bench-gpu" "$@" --device "${spec[$backend]}" \
    "${smoke[@]+"${smoke[@]}"}" | sed -u "s/^{/{\"backend\": \"$backend\", /" | tee -a "$jsonl" || rc=$?
  # 3: the backend lacks the feature, a row of its own (burn-bench-gpu printed why).
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    note "{\"backend\": \"$backend\", \"case\": \"failed\", \"args\": \"$*\", \"rc\": $rc}"
  fi
}

# The first of the driver files a container may mount outside the loaders' search paths.
first_file() { for f in "$@"; do [ -f "$f" ] && { echo "$f"; return 0; }; done; return 1; }
# Points the loader of BACKEND at NVIDIA's driver where the user set nothing; 0 when it changed anything.
point_loader_at_driver() {
  case "$1" in
    vulkan)
      [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] || return 1
      local icd
      icd="$(first_file /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/vulkan/icd.d/nvidia_icd.json \
               /usr/local/nvidia/etc/vulkan/icd.d/nvidia_icd.json)" || return 1
      export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"
      note "{\"backend\": \"vulkan\", \"case\": \"loader\", \"why\": \"VK_DRIVER_FILES=$icd\"}" ;;
    opencl)
      [ -z "${OCL_ICD_VENDORS:-}${OPENCL_VENDOR_PATH:-}" ] || return 1
      local lib
      lib="$(first_file /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/local/nvidia/lib/libnvidia-opencl.so.1 \
               /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib64/libnvidia-opencl.so.1)" ||
        lib="$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl.so.1 .*x86-64/ {print $NF; exit}')"
      [ -n "$lib" ] || return 1
      mkdir -p "$out/icd" && echo "$lib" > "$out/icd/nvidia.icd"
      export OCL_ICD_VENDORS="$out/icd"
      note "{\"backend\": \"opencl\", \"case\": \"loader\", \"why\": \"OCL_ICD_VENDORS=$out/icd (nvidia.icd: $lib)\"}" ;;
  esac
}

echo "run.sh: $(head -1 "$pack/MANIFEST" 2>/dev/null); host glibc $(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2), \
pack needs $(sed -n 's/^glibc_needed //p' "$pack/MANIFEST" 2>/dev/null)" >&2
IFS=, read -r -a wanted <<< "$backends"
present=()
for backend in "${wanted[@]}"; do
  case "$backend" in vulkan|opencl) ;; *) echo "run.sh: unknown backend '$backend' (vulkan, opencl)" >&2; exit 2 ;; esac
  rc=0
  bench devices --device "${spec[$backend]}" 2>"$out/$backend-devices.err" | sed "s/^{/{\"backend\": \"$backend\", /" |
    tee -a "$jsonl" || rc=$?
  if [ "$rc" -eq 77 ] && point_loader_at_driver "$backend"; then
    rc=0
    bench devices --device "${spec[$backend]}" 2>"$out/$backend-devices.err" | sed "s/^{/{\"backend\": \"$backend\", /" |
      tee -a "$jsonl" || rc=$?
  fi
  if [ "$rc" -eq 0 ]; then
    present+=("$backend")
  else
    why="$(tail -1 "$out/$backend-devices.err" | tr '"\\' "''")"
    [ "$rc" -eq 77 ] || why="the benchmark program does not start here (rc $rc): $why"
    note "{\"backend\": \"$backend\", \"case\": \"absent\", \"why\": \"$why\"}"
  fi
done
if [ ${#present[@]} -eq 0 ]; then
  echo "run.sh: no device for ${backends} (the GPU's Vulkan driver: vulkaninfo --summary; its OpenCL ICD: clinfo -l)" >&2
  exit 77
fi

i=0
for backend in "${present[@]}"; do
  # Each backend gets an equal share of what is left, so that a slow one cannot starve the next.
  share_end=$(( SECONDS + (budget - (SECONDS - start)) / (${#present[@]} - i) ))
  i=$((i + 1))
  run_case "$backend" 45 -- gemm --dtype f32
  if [ "$backend" = vulkan ]; then
    run_case vulkan 45 -- gemm --dtype f16
    run_case vulkan 45 BURN_VULKAN_DISABLE=cooperative_matrix -- gemm --dtype f16
  else
    run_case opencl 45 BURN_OPENCL_BLAS=off -- gemm --dtype f32
    run_case opencl 45 -- gemm_clblast
    run_case opencl 45 -- gemm --dtype f16
  fi
  run_case "$backend" 30 -- bandwidth
  run_case "$backend" 75 -- resnet --batch 32
  run_case "$backend" 60 -- transformer
  run_case "$backend" 45 -- resnet --batch 1
  run_case "$backend" 30 -- dispatch
  run_case "$backend" 45 -- steps
done

if [ "$have_torch" = 1 ]; then
  left=$(( budget + torch_s - (SECONDS - start) ))
  [ "$left" -gt "$torch_s" ] || left=$torch_s
  timeout "$left" python3 "$pack/torch_ref.py" "${smoke[@]+"${smoke[@]}"}" | sed 's/^{/{"ref": "torch", /' |
    tee -a "$jsonl" || note '{"case": "failed", "args": "torch_ref.py"}'
else
  note '{"case": "torch", "why": "python3 cannot import torch with CUDA here: no cuBLAS / PyTorch column"}'
fi

if ! command -v python3 >/dev/null; then
  echo "run.sh: no python3 for the table; the results are in $jsonl" >&2
  exit 0
fi
python3 "$pack/table.py" "$jsonl" "$out" "${#smoke[@]}"
