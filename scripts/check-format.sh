#!/usr/bin/env bash
# Checks that every tracked C++ source follows .clang-format (clang-format 14, Debian's). With --fix,
# rewrites the files instead. Usage: bash scripts/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc')
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi
if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/burn-format.$$; then
  grep -E '^[^ ].*: (error|warning):' /tmp/burn-format.$$ | cut -d: -f1 | sort -u | sed 's/^/  /' >&2
  rm -f /tmp/burn-format.$$
  echo "check-format: the files above do not follow .clang-format; run: bash scripts/check-format.sh --fix" >&2
  exit 1
fi
rm -f /tmp/burn-format.$$
echo "check-format: ${#files[@]} files follow .clang-format"
