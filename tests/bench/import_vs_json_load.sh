#!/bin/bash
# JSON import speed, side by side with Python's json.load on the same file in one run (issue 21's
# yardstick): `info` and `convert` to .tscope on one thread and on every core, and json.load, each
# run N times in turn; medians, MB/s (10^6 bytes) and the ratio to json.load. The trace is
# generated (a 300 k-event, 4-GPU session exported to Chrome JSON, one event per line, about
# 110 MB) into a temporary folder that is deleted afterwards.
#
# Usage: tests/bench/import_vs_json_load.sh [CLI] [RUNS] [EVENTS]
#   CLI     the tensorscope-cli to measure (default build/default/bin/tensorscope-cli)
#   RUNS    runs of each (default 5)
#   EVENTS  events of the generated session (default 300000)
set -euo pipefail
cli=$(realpath "${1:-build/default/bin/tensorscope-cli}")
runs=${2:-5}
events=${3:-300000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$cli" generate --events "$events" --gpus 4 --streams 4 --seed 1 "$dir/g.tscope" >/dev/null
"$cli" convert "$dir/g.tscope" "$dir/g.json" >/dev/null
bytes=$(stat -c %s "$dir/g.json")

# seconds of one run of "$@", output discarded
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {print b - a}'
}

declare -A times
names=(json.load "info, 1 thread" "info, every core" "convert, 1 thread" "convert, every core")
cat "$dir/g.json" >/dev/null  # in the page cache for all
for ((r = 0; r < runs; r++)); do
  times[json.load]+=" $(seconds python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$dir/g.json")"
  times["info, 1 thread"]+=" $(seconds "$cli" info --threads 1 "$dir/g.json")"
  times["info, every core"]+=" $(seconds "$cli" info "$dir/g.json")"
  rm -f "$dir/o.tscope"
  times["convert, 1 thread"]+=" $(seconds "$cli" convert --threads 1 "$dir/g.json" "$dir/o.tscope")"
  rm -f "$dir/o.tscope"
  times["convert, every core"]+=" $(seconds "$cli" convert "$dir/g.json" "$dir/o.tscope")"
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
base=$(echo "${times[json.load]}" | median)
echo "file: $((bytes / 1000000)) MB, $events events; $runs runs each, $(nproc) cores, $(date -u +%F)"
printf '%-22s %9s %9s %12s\n' "" "median s" "MB/s" "x json.load"
for name in "${names[@]}"; do
  m=$(echo "${times[$name]}" | median)
  awk -v n="$name" -v m="$m" -v b="$bytes" -v j="$base" \
    'BEGIN {printf "%-22s %9.3f %9.0f %12.1f\n", n, m, b / m / 1e6, j / m}'
done
