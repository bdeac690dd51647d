#!/usr/bin/env bash
# check-format.sh SOURCE_DIR: fails, naming each file and line, where a tracked C++ file differs
# from what clang-format-16 makes of it with the project's .clang-format. `./dev format` fixes.
# One pinned version: clang-format's output changes between releases.
set -euo pipefail
cd "$1"
fmt=$(command -v clang-format-16 || true)
if [ -z "$fmt" ]; then
  echo "check-format: clang-format-16 not found (./dev installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu')
if [ ${#files[@]} -eq 0 ]; then
  echo "check-format: no C++ files found under $1 (not a git checkout?)" >&2
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$fmt" --style=file --dry-run --Werror "${files[@]}" 2>"$log"; then
  grep -E '^[^ ].*: error:' "$log" | sed -n 1,40p >&2 || true
  n=$(grep -E '^[^ ].*: error:' "$log" | cut -d: -f1 | sort -u | wc -l || true)
  echo "check-format: $n of ${#files[@]} files are not formatted; run ./dev format" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
