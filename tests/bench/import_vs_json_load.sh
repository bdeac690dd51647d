#!/bin/bash
# JSON import speed, side by side with Python's json.load on the same file in one run (issue 21's
# yardstick): `info` and `convert` to .tscope on one thread and on every core, and json.load, each
# run N times in turn; medians, MB/s (10^6 bytes) and the ratio to json.load. The trace is
# generated (a 300 k-event, 4-GPU session exported to Chrome JSON, one event per line, about
# 110 MB) into a temporary folder that is deleted afterwards. The same trace gzipped (as PyTorch's
# profiler can write it) is timed too, against inflating it alone (zcat) and json.load of it.
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
gzip -6 -k "$dir/g.json"

# seconds of one run of "$@", output discarded
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {print b - a}'
}

declare -A times
names=(json.load "info, 1 thread" "info, every core" "convert, 1 thread" "convert, every core"
  "gz: json.load" "gz: zcat alone" "gz: info, 1 thread" "gz: info, every core")
cat "$dir/g.json" "$dir/g.json.gz" >/dev/null  # in the page cache for all
for ((r = 0; r < runs; r++)); do
  times[json.load]+=" $(seconds python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$dir/g.json")"
  times["info, 1 thread"]+=" $(seconds "$cli" info --threads 1 "$dir/g.json")"
  times["info, every core"]+=" $(seconds "$cli" info "$dir/g.json")"
  rm -f "$dir/o.tscope"
  times["convert, 1 thread"]+=" $(seconds "$cli" convert --threads 1 "$dir/g.json" "$dir/o.tscope")"
  rm -f "$dir/o.tscope"
  times["convert, every core"]+=" $(seconds "$cli" convert "$dir/g.json" "$dir/o.tscope")"
  times["gz: json.load"]+=" $(seconds python3 -c "import gzip,json,sys; json.load(gzip.open(sys.argv[1]))" "$dir/g.json.gz")"
  times["gz: zcat alone"]+=" $(seconds zcat "$dir/g.json.gz")"
  times["gz: info, 1 thread"]+=" $(seconds "$cli" info --threads 1 "$dir/g.json.gz")"
  times["gz: info, every core"]+=" $(seconds "$cli" info "$dir/g.json.gz")"
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
base=$(echo "${times[json.load]}" | median)
echo "file: $((bytes / 1000000)) MB ($(($(stat -c %s "$dir/g.json.gz") / 1000000)) MB gzipped), $events events; $runs runs each, $(nproc) cores, $(date -u +%F)"
echo "(MB/s of the JSON text, gzipped or not; gz rows against json.load of the gzipped file)"
gzbase=$(echo "${times["gz: json.load"]}" | median)
printf '%-22s %9s %9s %12s\n' "" "median s" "MB/s" "x json.load"
for name in "${names[@]}"; do
  m=$(echo "${times[$name]}" | median)
  j=$base
  [[ $name == gz:* ]] && j=$gzbase
  awk -v n="$name" -v m="$m" -v b="$bytes" -v j="$j" \
    'BEGIN {printf "%-22s %9.3f %9.0f %12.1f\n", n, m, b / m / 1e6, j / m}'
done
