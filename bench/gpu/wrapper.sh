#!/usr/bin/env bash
# The pack's entry to burn-bench-gpu (bench/gpu/pack.sh installs it at the pack's top): the pack's
# libraries first, with the host's glibc when it is at least the one the pack was linked against (MANIFEST),
# else with the pack's own loader and glibc. BURN_PACK_GLIBC=host|pack forces one.
pack="$(cd "$(dirname "$0")" && pwd)"
need="$(sed -n 's/^glibc_needed //p' "$pack/MANIFEST" 2>/dev/null)"
have="$(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2)"
mode="${BURN_PACK_GLIBC:-}"
if [ -z "$mode" ]; then
  mode=pack
  if [ -n "$have" ] && [ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" = "$need" ]; then
    mode=host
  fi
fi
if [ "$mode" = host ]; then
  export LD_LIBRARY_PATH="$pack/lib:$pack/lib/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  exec "$pack/bin/burn-bench-gpu" "$@"
fi
exec "$pack/lib/glibc/ld-linux-x86-64.so.2" --library-path "$pack/lib:$pack/lib/deps:$pack/lib/glibc" \
  "$pack/bin/burn-bench-gpu" "$@"
