#!/bin/bash
# Many rank files of one job summarised by `stats` and `diagnose` (issue 21's "many ranks"): rank by rank on
# every core (each rank's events released once summarised), against opening them as one session
# (what --range forces), and as shards merged afterwards (what a SLURM array runs). Wall time and
# peak RSS of each, and the check that all three print the same tables. The rank files are hard
# links to one generated trace (a 300 k-event, 4-GPU session as Chrome JSON, about 110 MB): the
# disk holds one copy, the program reads every one; the folder is deleted afterwards.
#
# Usage: tests/bench/many_ranks.sh [CLI] [RANKS] [EVENTS] [SHARDS]
#   CLI     the tensorscope-cli to measure (default build/default/bin/tensorscope-cli)
#   RANKS   rank files (default 64)
#   EVENTS  events of each (default 300000)
#   SHARDS  shards run one after another, then merged (default 4)
set -euo pipefail
cli=$(realpath "${1:-build/default/bin/tensorscope-cli}")
ranks=${2:-64}
events=${3:-300000}
shards=${4:-4}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$cli" generate --events "$events" --gpus 4 --streams 4 --seed 1 "$dir/g.tscope" >/dev/null
"$cli" convert "$dir/g.tscope" "$dir/rank0.json" >/dev/null
rm "$dir/g.tscope"
files=("$dir/rank0.json")
for ((r = 1; r < ranks; r++)); do
  ln "$dir/rank0.json" "$dir/rank$r.json"
  files+=("$dir/rank$r.json")
done
bytes=$(stat -c %s "$dir/rank0.json")
reports=kern_sum,mem_time,mem_size,api_sum,gpu_util,overlap,kern_hist

# run OUT CMD...: the command's wall seconds and peak RSS (MB) on one line, its stdout in OUT.
run() {
  local out=$1
  shift
  python3 - "$out" "$@" <<'PY'
import os, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
start = time.monotonic()
with open(out, "w") as f:
    p = subprocess.Popen(cmd, stdout=f)
    _, status, usage = os.wait4(p.pid, 0)
wall = time.monotonic() - start
if status != 0:
    sys.exit("failed: " + " ".join(cmd))
print(f"{wall:.2f} {usage.ru_maxrss / 1024:.0f}")
PY
}

echo "$ranks rank files of $((bytes / 1000000)) MB ($events events each); $(nproc) cores, $(date -u +%F)"
printf '%-34s %9s %14s\n' "" "wall s" "peak RSS MB"
read -r t m < <(run "$dir/ranks.csv" "$cli" stats "${files[@]}" --report "$reports" --format csv)
printf '%-34s %9s %14s\n' "stats, rank by rank" "$t" "$m"
read -r t m < <(run "$dir/session.csv" "$cli" stats "${files[@]}" --report "$reports" --range 0: --format csv)
printf '%-34s %9s %14s\n' "stats, one session (--range 0:)" "$t" "$m"
total=0
peak=0
parts=()
for ((i = 0; i < shards; i++)); do
  read -r t m < <(run /dev/null "$cli" stats "${files[@]}" --report "$reports" --shard "$i/$shards" --summary-out "$dir/part$i")
  total=$(awk -v a="$total" -v b="$t" 'BEGIN {print a + b}')
  peak=$(( m > peak ? m : peak ))
  parts+=("$dir/part$i")
done
printf '%-34s %9s %14s\n' "$shards shards, one after another" "$total" "$peak"
read -r t m < <(run "$dir/merged.csv" "$cli" merge "${parts[@]}" --format csv)
printf '%-34s %9s %14s\n' "merge of the $shards parts" "$t" "$m"
echo "part files: $(du -cb "${parts[@]}" | tail -1 | cut -f1) bytes in all"
cmp "$dir/ranks.csv" "$dir/session.csv" && cmp "$dir/ranks.csv" "$dir/merged.csv" &&
  echo "all three print the same tables"

# The same for diagnose: rank by rank, as one session, in shards merged.
read -r t m < <(run "$dir/dranks.json" "$cli" diagnose "${files[@]}" --json)
printf '%-34s %9s %14s\n' "diagnose, rank by rank" "$t" "$m"
read -r t m < <(run "$dir/dsession.json" "$cli" diagnose "${files[@]}" --range 0: --json)
printf '%-34s %9s %14s\n' "diagnose, one session (--range 0:)" "$t" "$m"
total=0
peak=0
parts=()
for ((i = 0; i < shards; i++)); do
  read -r t m < <(run /dev/null "$cli" diagnose "${files[@]}" --shard "$i/$shards" --summary-out "$dir/dpart$i")
  total=$(awk -v a="$total" -v b="$t" 'BEGIN {print a + b}')
  peak=$(( m > peak ? m : peak ))
  parts+=("$dir/dpart$i")
done
printf '%-34s %9s %14s\n' "$shards diagnose shards, one after another" "$total" "$peak"
read -r t m < <(run "$dir/dmerged.json" "$cli" merge "${parts[@]}" --format json)
printf '%-34s %9s %14s\n' "merge of the $shards diagnose parts" "$t" "$m"
echo "diagnose part files: $(du -cb "${parts[@]}" | tail -1 | cut -f1) bytes in all"
cmp "$dir/dranks.json" "$dir/dsession.json" && cmp "$dir/dranks.json" "$dir/dmerged.json" &&
  echo "all three print the same diagnosis"
