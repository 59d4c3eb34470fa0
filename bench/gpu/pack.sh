#!/usr/bin/env bash
# Packs the GPU benchmarks into one folder that runs on a machine with a GPU and its Vulkan or OpenCL driver
# but without Debian's libraries: the benchmark program, burn's libraries, the vulkan and opencl plugins,
# every shared library they need (found with ldd), bench/gpu/run.sh, its table and the PyTorch reference.
#   bash bench/gpu/pack.sh [--out DIR] [--build-dir DIR] [--no-build]
#     --out DIR        the pack (default build/gpu-pack; replaced); a DIR.tar.gz beside it too
#     --build-dir DIR  the release build to pack (default build/release)
#     --no-build       pack what is built (the ctest; otherwise the release preset with -DBURN_BUILD_BENCH=ON
#                      and the burn-bench-gpu target are built first)
# Layout: bin/ (the program), lib/ (burn's libraries, lib/burn/plugins/ the GPU plugins: the folders the
# plugin host looks in beside libburn-tensor), lib/deps/ (the other libraries, libstdc++ and libgcc_s
# included: newer than most hosts' and backward compatible; the Vulkan and OpenCL loaders; glvnd's
# libGLdispatch, which NVIDIA's Vulkan driver needs and a bare container may lack), lib/glibc/ (Debian's
# glibc with its loader, used only where the host's glibc is older than the pack needs), burn-bench-gpu
# (the wrapper that runs bin/burn-bench-gpu with them: bench/gpu/wrapper.sh), run.sh, table.py,
# torch_ref.py and MANIFEST (what is in it and the glibc the programs need). The cpu plugin is left out
# (the benchmarks run the GPU devices only, and its OpenBLAS alone is 36 MiB).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/build/gpu-pack"
build="$root/build/release"
do_build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$(realpath -m "$2")"; shift ;;
    --build-dir) build="$(realpath -m "$2")"; shift ;;
    --no-build) do_build=0 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "pack.sh: unknown argument '$1' (--out DIR, --build-dir DIR, --no-build)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$do_build" = 1 ]; then
  (cd "$root" && cmake --preset release -DBURN_BUILD_BENCH=ON >/dev/null &&
     cmake --build "$build" --target burn-bench-gpu burn-autodiff burn-fusion)
fi
program="$build/bin/burn-bench-gpu"
plugins=("$build/lib/burn/plugins/libburn-backend-vulkan.so" "$build/lib/burn/plugins/libburn-backend-opencl.so")
for f in "$program" "${plugins[@]}"; do
  [ -f "$f" ] || { echo "pack.sh: $f is missing (build with -DBURN_BUILD_BENCH=ON, target burn-bench-gpu)" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/burn/plugins" "$out/lib/deps" "$out/lib/glibc"
install -m 755 "$program" "$out/bin/"
install -m 644 "${plugins[@]}" "$out/lib/burn/plugins/"
# burn's libraries under their soname (the decorators autodiff and fusion are loaded by name at run time).
for lib in "$build"/lib/libburn-*.so.*.*.*; do
  soname="$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
  install -m 644 "$lib" "$out/lib/$soname"
done

# glibc's parts: the host's own must be used with its own loader, so they go apart (lib/glibc).
is_glibc() {
  case "$1" in
    ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|libutil.so.*|libmvec.so.*) return 0 ;;
    *) return 1 ;;
  esac
}
elves=("$out/bin/burn-bench-gpu" "$out"/lib/*.so.* "$out"/lib/burn/plugins/*.so)
declare -A seen=()
while [ ${#elves[@]} -gt 0 ]; do
  next=()
  for elf in "${elves[@]}"; do
    while read -r name path; do
      [ -n "$path" ] && [ -f "$path" ] || continue
      case "$name" in libburn-*) continue ;; esac
      [ -z "${seen[$name]:-}" ] || continue
      seen[$name]=1
      if is_glibc "$name"; then
        install -m 755 "$(realpath "$path")" "$out/lib/glibc/$name"
      else
        install -m 644 "$(realpath "$path")" "$out/lib/deps/$name"
        next+=("$out/lib/deps/$name")
      fi
    done < <(LD_LIBRARY_PATH="$out/lib:$out/lib/deps" ldd "$elf" 2>/dev/null |
               awk '/=>/ {print $1, $3} /^\t\/.*ld-linux/ {n=$1; sub(".*/", "", n); print n, $1}')
  done
  elves=("${next[@]+"${next[@]}"}")
done
# The loader is ld-linux-x86-64.so.2 whatever ldd printed it as; glibc's companions the driver may load
# (libdl, libpthread, librt) come along so that the pack's glibc is never mixed with the host's.
for extra in libdl.so.2 libpthread.so.0 librt.so.1; do
  p="/lib/x86_64-linux-gnu/$extra"
  [ -f "$out/lib/glibc/$extra" ] || [ ! -f "$p" ] || install -m 755 "$(realpath "$p")" "$out/lib/glibc/$extra"
done
[ -f "$out/lib/glibc/ld-linux-x86-64.so.2" ] || install -m 755 "$(realpath /lib64/ld-linux-x86-64.so.2)" "$out/lib/glibc/ld-linux-x86-64.so.2"
find "$out/bin" "$out/lib" -type f -name '*.so*' -o -type f -path '*/bin/*' | grep -v '/glibc/' |
  xargs strip --strip-unneeded 2>/dev/null || true

# NVIDIA's Vulkan driver (libGLX_nvidia) needs glvnd's dispatcher, which a container without GL lacks.
for extra in libGLdispatch.so.0; do
  p="$(ldconfig -p | awk -v n="$extra" '$1 == n && /x86-64/ {print $NF; exit}')"
  [ -z "$p" ] || [ -f "$out/lib/deps/$extra" ] || install -m 644 "$(realpath "$p")" "$out/lib/deps/$extra"
done
install -m 755 "$here/run.sh" "$out/run.sh"
install -m 755 "$here/wrapper.sh" "$out/burn-bench-gpu"
install -m 644 "$here/torch_ref.py" "$here/table.py" "$out/"

# The newest glibc symbol version any packed file needs: run.sh compares the host's with it.
need="$(find "$out/bin" "$out/lib" -path "$out/lib/glibc" -prune -o -type f -print |
          xargs objdump -T 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)"
{
  echo "burn-cpp GPU benchmark pack (Vulkan, OpenCL) ($(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown))"
  echo "glibc_needed $need"
  echo "built_on $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2)"
  (cd "$out" && find . -type f | sort | xargs ls -l | awk '{print $5, $9}')
} > "$out/MANIFEST"

size_kib="$(du -sk "$out" | cut -f1)"
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"
echo "pack.sh: $out ($((size_kib / 1024)) MiB, $(du -k "$out.tar.gz" | cut -f1) KiB as $out.tar.gz); glibc >= $need on the host, else the pack's own"
if [ "$size_kib" -gt $((64 * 1024)) ]; then
  echo "pack.sh: the pack is over 64 MiB" >&2
  exit 1
fi
