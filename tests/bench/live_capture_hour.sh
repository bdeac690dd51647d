#!/bin/bash
# A long live capture through the real launcher and injection library (issue 21's "long live
# captures"): the stand-in program (tests/capture/fake_target.cpp) launches kernels into the fake
# CUPTI (tests/capture/fake_cupti.cpp) — each a CUDA API call and a kernel, an NVTX range every 50
# — at about RATE events a second for SECONDS, while `tensorscope-cli capture --timings` takes a
# live snapshot every second (as the GUI's live view does) and writes the file beside them.
# Prints the snapshots' mean and worst (overall and over the last tenth), the writes, the events
# captured and the launcher's peak RSS per event (VmHWM, read from /proc every 5 s). The output
# file is deleted afterwards; the timings CSV is kept when a path is given.
#
# Usage: tests/bench/live_capture_hour.sh [BUILD] [SECONDS] [RATE] [TIMINGS_CSV]
#   BUILD    the build folder (default build/default)
#   SECONDS  how long the program runs (default 3600)
#   RATE     events a second (default 50000)
set -euo pipefail
build=$(realpath "${1:-build/default}")
seconds=${2:-3600}
rate=${3:-50000}
dir=$(mktemp -d)
timings=${4:-$dir/timings.csv}
trap 'rm -rf "$dir"' EXIT

cli="$build/bin/tensorscope-cli"
target=$(find "$build" -name tscope_fake_target -type f -perm -u+x | head -1)
fake=$(find "$build" -name 'libtscope_fake_cupti.so' | head -1)
if [[ ! -x "$cli" || -z "$target" || -z "$fake" ]]; then
  echo "live_capture_hour.sh: needs a build with capture (CUDA toolkit found) under $build" >&2
  exit 2
fi
# Two events a kernel (its launch and itself); batches of 250 kernels, the gap sized to the rate.
per_batch=250
gap_ms=$((per_batch * 2 * 1000 / rate))
((gap_ms >= 1)) || gap_ms=1

"$cli" capture -o "$dir/run.tscope" --duration "$seconds" --interval 1 --timings "$timings" \
  --env "TSCOPE_CUPTI_LIBRARY=$fake" -- "$target" cupti 1 0 "$per_batch" "$gap_ms" forever \
  2>"$dir/stderr" &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [[ -n "$hwm" ]] && ((hwm > peak)) && peak=$hwm
  sleep 5
done
status=0
wait "$pid" || status=$?
cat "$dir/stderr"
events=$(awk -F, '$1 == "final_save" {print $3}' "$timings")
if [[ -z "$events" || "$events" == 0 ]]; then
  echo "live_capture_hour.sh: the capture saved no events (exit $status)" >&2
  exit 1
fi
awk -v e="$events" -v s="$seconds" -v p="$peak" 'BEGIN {
  printf "events %d (%.0f a second); launcher peak RSS %.2f GB, %.1f B/event\n",
         e, e / s, p * 1024 / 1e9, p * 1024 / e }'
