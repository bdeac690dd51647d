#!/usr/bin/env bash
# What capture costs a training step, by what it records, on a GPU machine:
#
#   tests/gpu/overhead.sh OUTDIR BINDIR [RUNS]
#
# BINDIR holds tensorscope-cli and train_loop (a bundle's bin/, whose lib/deps is then used, or
# build/gpu-check/bin with the samples beside it). train_loop (20 small kernels a step, about
# 0.5 ms) and, when torch sees the GPU, tests/gpu/torch_loop.py (about 3 ms a step) run RUNS times
# (default 5) in each mode, the modes alternating: plain, captured with every default kind,
# captured without CUDA API calls, kernels only; and torch.profiler on the PyTorch loop. A run's
# step time is the median of its steps after warm-up, a mode's the median of its runs; the
# overhead is against plain. OUTDIR receives overhead.log and overhead.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: tests/gpu/overhead.sh OUTDIR BINDIR [RUNS]" >&2; exit 2; }
OUT=$1 BIN=$(cd "$2" && pwd) RUNS=${3:-5}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
exec > >(tee "$OUT/overhead.log") 2>&1
[ -d "$BIN/../lib/deps" ] && export LD_LIBRARY_PATH="$BIN/../lib/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CLI=$BIN/tensorscope-cli
LOOP=$BIN/train_loop
[ -x "$LOOP" ] || LOOP=$BIN/../samples/cuda/train_loop
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
NO_API=kernel,memcpy,memset,nvtx,sync

# mode NAME: runs the program of $PROGRAM ("loop" or "torch") once in that mode, its step times
# to $S/PROGRAM.NAME.RUN.
once() {
  local program=$1 mode=$2 run=$3 steps=$S/$1.$2.$3
  local cmd
  if [ "$program" = loop ]; then cmd=("$LOOP" 300 "$steps"); else cmd=(python3 tests/gpu/torch_loop.py "$steps"); fi
  case "$mode" in
    plain) "${cmd[@]}" ;;
    capture) "$CLI" capture -o "$S/c.tscope" -- "${cmd[@]}" ;;
    no_api) "$CLI" capture --kinds "$NO_API" -o "$S/c.tscope" -- "${cmd[@]}" ;;
    kernels) "$CLI" capture --kinds kernel -o "$S/c.tscope" -- "${cmd[@]}" ;;
    torch_profiler) "${cmd[@]}" --torch-profiler "$S/trace.json" ;;
  esac >/dev/null 2>&1 || echo "overhead: $program $mode run $run failed"
}

LOOP_MODES="plain capture no_api kernels"
TORCH_MODES="plain capture no_api torch_profiler"
TORCH=0
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && TORCH=1
echo "overhead: $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $RUNS runs a mode"
for r in $(seq "$RUNS"); do
  for m in $LOOP_MODES; do once loop "$m" "$r"; done
  if [ "$TORCH" = 1 ]; then
    for m in $TORCH_MODES; do once torch "$m" "$r"; done
  fi
done

python3 - "$S" "$OUT" "$RUNS" "$TORCH" "$LOOP_MODES" "$TORCH_MODES" <<'PY'
import json, statistics, sys
scratch, out, runs, torch = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
programs = {"loop": (sys.argv[5].split(), 50), "torch": (sys.argv[6].split(), 30)}
result = {}
for program, (modes, warmup) in programs.items():
    if program == "torch" and not torch:
        continue
    per_mode = {}
    for mode in modes:
        medians = []
        for r in range(1, runs + 1):
            try:
                ns = [int(l) for l in open(f"{scratch}/{program}.{mode}.{r}") if l.strip()]
                medians.append(statistics.median(ns[warmup:]))
            except (OSError, ValueError):
                pass
        per_mode[mode] = {"runs_ns": medians, "step_ns": statistics.median(medians) if medians else None}
    plain = per_mode["plain"]["step_ns"]
    print(f"\n{program}: step time (median of {runs} runs' medians), overhead against plain")
    for mode, m in per_mode.items():
        if m["step_ns"] is None or plain is None:
            print(f"  {mode:15} no result")
            continue
        m["overhead"] = m["step_ns"] / plain - 1
        spread = f"{min(m['runs_ns']) / 1e3:.1f}-{max(m['runs_ns']) / 1e3:.1f}"
        print(f"  {mode:15} {m['step_ns'] / 1e3:9.1f} us  {100 * m['overhead']:+6.2f} %   (runs {spread} us)")
    result[program] = per_mode
json.dump(result, open(f"{out}/overhead.json", "w"), indent=2)
PY
