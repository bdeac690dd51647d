#!/usr/bin/env bash
# The capture check on a GPU machine: one command, about two and a half minutes (2.2 on an H200).
# It captures the two CUDA samples (and a small PyTorch loop when torch sees the GPU), checks
# kinds, counts, bytes, devices and completeness of each session, measures what capture costs a
# training step, reads a --duration capture while it runs, and (with torch) captures a program
# whose DataLoader workers fork, one that runs torch.profiler itself, and compares our kernel
# count with torch.profiler's.
#
#   tests/gpu/gpu-check.sh OUTDIR [--bundle DIR]
#
# OUTDIR receives gpu-check.log (everything printed), results.json (every check and number) and
# the captured sessions; build.log too when the script builds. Exit status: 0 when every check
# passed, 1 when one failed, 2 when the machine cannot run the check (no GPU, old driver, build
# failure).
#
# Binaries: with --bundle, those of tests/gpu/make-bundle.sh (built on a machine with the
# project's packages, for a GPU machine without them); else a lean build of the CLI, capture and
# the samples in build/gpu-check (no GUI, warnings not errors: the check is of capture, not of
# this compiler's warnings).
#
# Overhead: the per-step wall time of train_loop after its warm-up steps, median of the steps,
# median of alternating runs with and without capture, so CUPTI's start-up and the save are not
# counted as a slower step. Budget: 3 %. With torch: the same for a PyTorch loop, beside
# torch.profiler's overhead on that loop.
set -uo pipefail
cd "$(dirname "$0")/../.."

usage() { echo "usage: tests/gpu/gpu-check.sh OUTDIR [--bundle DIR]" >&2; exit 2; }
[ $# -ge 1 ] || usage
OUT=$1
shift
BUNDLE=
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) [ $# -ge 2 ] || usage; BUNDLE=$2; shift 2 ;;
    *) usage ;;
  esac
done
mkdir -p "$OUT" || { echo "gpu-check: cannot create $OUT" >&2; exit 2; }
OUT=$(cd "$OUT" && pwd)
exec > >(tee "$OUT/gpu-check.log") 2>&1
TEE=$!
SCRATCH=$(mktemp -d)
# At exit the log is whole before the caller collects it: tee has read everything and ended.
trap 'rm -rf "$SCRATCH"; exec >&- 2>&-; wait "$TEE" 2>/dev/null' EXIT
cannot() { echo "gpu-check: cannot run: $*"; exit 2; }

echo "gpu-check: $(date -u +%FT%TZ) on $(hostname)"
command -v python3 >/dev/null || cannot "python3 is needed to check the results"
command -v nvidia-smi >/dev/null || cannot "nvidia-smi not found (no NVIDIA driver)"
nvidia-smi -L || cannot "nvidia-smi lists no GPU"
# CUDA 13.0 needs an R580 driver or newer (its release notes: >= 580.65.06 on Linux).
DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1 | tr -d ' ')
echo "driver $DRIVER"
python3 -c 'import sys; v = [int(x) for x in sys.argv[1].split(".")]; sys.exit(0 if v >= [580, 65, 6] else 1)' \
  "$DRIVER" || cannot "driver $DRIVER is older than CUDA 13 needs (580.65.06)"

if [ -n "$BUNDLE" ]; then
  BUNDLE=$(cd "$BUNDLE" && pwd) || cannot "no bundle at $BUNDLE"
  BIN=$BUNDLE/bin
  export LD_LIBRARY_PATH="$BUNDLE/lib/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  echo "gpu-check: building build/gpu-check (log: $OUT/build.log)"
  if ! { cmake -S . -B build/gpu-check -G Ninja -DCMAKE_BUILD_TYPE=Release -DTSCOPE_BUILD_GUI=OFF \
           -DTSCOPE_BUILD_TESTS=OFF -DTSCOPE_BUILD_BENCH=OFF &&
         cmake --build build/gpu-check --target tensorscope-cli tensorscope_inject pair_add train_loop; } \
       > "$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    cannot "the build failed (whole log: $OUT/build.log)"
  fi
  BIN=build/gpu-check/bin
  [ -x build/gpu-check/samples/cuda/pair_add ] && BIN_SAMPLES=build/gpu-check/samples/cuda
fi
CLI=$BIN/tensorscope-cli
SAMPLES=${BIN_SAMPLES:-$BIN}
PAIR=$SAMPLES/pair_add
LOOP=$SAMPLES/train_loop
for f in "$CLI" "$PAIR" "$LOOP"; do [ -x "$f" ] || cannot "$f is missing (nvcc not found at build time?)"; done

N=$((1 << 26))  # floats per array
STEPS=200       # the captured train_loop
TSTEPS=300      # the timed runs: the first WARMUP steps are left out
WARMUP=50
RUNS=3
failed=0
step() { echo; echo "== $*"; }

step "pair_add, plain (the GPUs CUDA lets it use)"
"$PAIR" "$N" | tee "$SCRATCH/pair_add.out" || failed=1
step "pair_add, captured"
"$CLI" capture -o "$OUT/pair_add.tscope" -- "$PAIR" "$N" || failed=1
step "train_loop, captured"
"$CLI" capture -o "$OUT/train_loop.tscope" -- "$LOOP" "$STEPS" || failed=1
for s in pair_add train_loop; do
  "$CLI" info --json "$OUT/$s.tscope" > "$SCRATCH/$s.json" || failed=1
  "$CLI" info "$OUT/$s.tscope"
done

step "train_loop step time: $RUNS runs each way, alternating, $TSTEPS steps, first $WARMUP left out"
for r in $(seq "$RUNS"); do
  "$LOOP" "$TSTEPS" "$SCRATCH/plain.$r.steps" >/dev/null || failed=1
  "$CLI" capture -o "$SCRATCH/timed.$r.tscope" -- "$LOOP" "$TSTEPS" "$SCRATCH/captured.$r.steps" \
    >/dev/null || failed=1
done

TORCH=0
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  TORCH=1
  step "PyTorch loop step time: plain, torch.profiler, Tensorscope capture"
  for r in $(seq "$RUNS"); do
    python3 tests/gpu/torch_loop.py "$SCRATCH/torch_plain.$r.steps" || failed=1
    python3 tests/gpu/torch_loop.py "$SCRATCH/torch_profiler.$r.steps" --torch-profiler \
      "$SCRATCH/torch_trace.json" || failed=1
    "$CLI" capture -o "$OUT/torch_loop.tscope" -- python3 tests/gpu/torch_loop.py \
      "$SCRATCH/torch_captured.$r.steps" || failed=1
  done
  "$CLI" info --json "$OUT/torch_loop.tscope" > "$SCRATCH/torch_loop.json" || failed=1
  "$CLI" info "$OUT/torch_loop.tscope"
else
  echo "gpu-check: torch with CUDA not found: the PyTorch comparison is left out"
fi

step "live: train_loop captured for 6 s (--duration), its session read while it runs"
# The launcher saves every 2 s: the reads, 0.9 s apart, see the kernels grow from one save to the
# next, and the stop at 6 s must still give a complete session (every process answered the flush).
"$CLI" capture --duration 6 -o "$OUT/live.tscope" -- "$LOOP" 2000000 >/dev/null &
CAPTURE=$!
sleep 2.5
for t in 1 2 3 4; do
  "$CLI" info --json "$OUT/live.tscope" > "$SCRATCH/live.$t.json" 2>/dev/null || rm -f "$SCRATCH/live.$t.json"
  sleep 0.9
done
wait "$CAPTURE"
echo "$?" > "$SCRATCH/live.rc"
"$CLI" info --json "$OUT/live.tscope" > "$SCRATCH/live.json" || failed=1

if [ "$TORCH" = 1 ]; then
  cat > "$SCRATCH/torch_fork.py" <<'PY'
# DataLoader workers fork()ed from a process where CUDA and the capture already run (the child
# must neither hang nor write into the parent's stream); NVTX ranges through torch.cuda.nvtx.
import torch
from torch.utils.data import DataLoader, TensorDataset
model = torch.nn.Linear(512, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
data = TensorDataset(torch.randn(4096, 512), torch.randint(0, 10, (4096,)))
loader = DataLoader(data, batch_size=256, num_workers=2, multiprocessing_context="fork")
for epoch in range(2):
    for x, y in loader:
        torch.cuda.nvtx.range_push("step")
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad(); loss.backward(); opt.step()
        torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("torch_fork: 32 steps")
PY
  step "PyTorch with forked DataLoader workers and NVTX, captured"
  timeout 180 "$CLI" capture -o "$OUT/torch_fork.tscope" -- python3 "$SCRATCH/torch_fork.py" || failed=1
  "$CLI" info --json "$OUT/torch_fork.tscope" > "$SCRATCH/torch_fork.json" || failed=1
  "$CLI" info "$OUT/torch_fork.tscope"
  step "torch.profiler inside a capture (two CUPTI clients: the program must still end well)"
  timeout 180 "$CLI" capture -o "$SCRATCH/both.tscope" -- python3 tests/gpu/torch_loop.py \
    "$SCRATCH/both.steps" --torch-profiler "$SCRATCH/both_trace.json"
  echo "$?" > "$SCRATCH/both.rc"
  step "the torch.profiler trace of the PyTorch loop, opened"
  "$CLI" info --json "$SCRATCH/torch_trace.json" > "$SCRATCH/kineto.json" || failed=1
fi

step "checks"
python3 - "$OUT" "$SCRATCH" "$N" "$STEPS" "$RUNS" "$WARMUP" "$TORCH" "$DRIVER" "$failed" <<'PY'
import json, re, statistics, sys
out, scratch = sys.argv[1], sys.argv[2]
n, steps, runs, warmup, torch, driver, failed = sys.argv[3:10]
n, steps, runs, warmup, torch = int(n), int(steps), int(runs), int(warmup), torch == "1"
checks = []
def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    checks.append({"check": what, "ok": bool(ok)})
def load(name):
    try:
        return json.load(open(f"{scratch}/{name}.json"))
    except (OSError, ValueError) as e:
        check(f"{name}: session readable ({e})", False)
        return None
def step_median(name, r, warm):
    with open(f"{scratch}/{name}.{r}.steps") as f:
        ns = [int(line) for line in f if line.strip()]
    return statistics.median(ns[warm:])
def overhead(plain, captured, warm):
    try:
        p = [step_median(plain, r, warm) for r in range(1, runs + 1)]
        c = [step_median(captured, r, warm) for r in range(1, runs + 1)]
    except (OSError, ValueError) as e:
        check(f"{captured}: step times written ({e})", False)
        return None
    mp, mc = statistics.median(p), statistics.median(c)
    return {"plain_step_ns": mp, "step_ns": mc, "overhead": mc / mp - 1,
            "runs_plain_ns": p, "runs_ns": c}

check("every command exited 0", failed == "0")
printed = open(f"{scratch}/pair_add.out").read()
m = re.search(r"on (\d+) GPU\(s\) of (\d+) visible, (\d+) wrong", printed)
check("pair_add printed its GPUs and a correct sum", m is not None and m.group(3) == "0")
visible = int(m.group(2)) if m else -1
gpus = int(m.group(1)) if m else -1
pair, loop = load("pair_add"), load("train_loop")
half = n // 2
if pair:
    check(f"pair_add: {len(pair['devices'])} devices in the session = {visible} visible to CUDA",
          len(pair["devices"]) == visible)
    check("pair_add exit code 0", pair.get("exit_code") == 0)
    check("pair_add 4 kernels (2 streams x 2 halves)", pair["kernels"] == 4)
    check("pair_add 8 HtoD copies of all input bytes",
          pair["memcpy"]["HtoD"] == 8 and pair["memcpy_bytes"]["HtoD"] == 2 * 2 * half * 4)
    check("pair_add 2 DtoH copies of the sum",
          pair["memcpy"]["DtoH"] == 2 and pair["memcpy_bytes"]["DtoH"] == 2 * half * 4)
    if gpus == 2:
        check("pair_add 1 peer copy GPU 1 -> GPU 0",
              pair["memcpy"]["PtoP"] == 1 and pair["memcpy_bytes"]["PtoP"] == half * 4)
    else:
        check("pair_add 1 device-to-device copy on one GPU, no PtoP",
              pair["memcpy"]["DtoD"] == 1 and pair["memcpy"]["PtoP"] == 0)
    check("pair_add 1 NVTX range", pair["nvtx_ranges"] == 1)
    # CUPTI memory records: 3 cudaMalloc per GPU used (+1 peer buffer), 3 cudaMallocHost.
    cuda = [c for c in pair["counters"] if c["name"] == "CUDA memory allocated"]
    pinned = [c for c in pair["counters"] if c["name"] == "Pinned host memory allocated"]
    check(f"pair_add CUDA allocations recorded ({sum(c['samples'] for c in cuda)} >= {3 * gpus + 1})",
          sum(c["samples"] for c in cuda) >= 3 * gpus + 1)
    check("pair_add 3 pinned host allocations of the inputs and the sum",
          len(pinned) == 1 and pinned[0]["samples"] >= 3 and pinned[0]["peak"] >= 3 * n * 4)
layers = 4
if loop:
    check("train_loop exit code 0", loop.get("exit_code") == 0)
    check("train_loop kernels = steps x 20", loop["kernels"] == steps * (4 * layers + layers))
    check("train_loop NVTX ranges = steps x 10", loop["nvtx_ranges"] == steps * (2 + 2 * layers))
    check("train_loop 1 HtoD and 1 DtoH per step",
          loop["memcpy"]["HtoD"] == steps and loop["memcpy"]["DtoH"] == steps)
    check("train_loop memsets", loop["memsets"] == layers)
    cuda = [c for c in loop["counters"] if c["name"] == "CUDA memory allocated"]
    check("train_loop weights and gradients' cudaMalloc recorded (>= 2 x layers)",
          len(cuda) == 1 and cuda[0]["samples"] >= 2 * layers and cuda[0]["peak"] > 0)
    check("train_loop launches tied to kernels (flows >= kernels)", loop["flows"] >= loop["kernels"])
sessions = [s for s in (pair, loop) if s]
result = {"driver": driver, "visible_gpus": visible, "devices": pair["devices"] if pair else None}
loop_over = overhead("plain", "captured", warmup)
if loop_over:
    check(f"train_loop step overhead {100 * loop_over['overhead']:.2f} % <= 3 %",
          loop_over["overhead"] <= 0.03)
result["train_loop"] = loop_over
if torch:
    t = load("torch_loop")
    if t:
        sessions.append(t)
        check("torch loop: kernels recorded (>= 150 steps x 16)", t["kernels"] >= 150 * 16)
        check("torch loop exit code 0", t.get("exit_code") == 0)
    ours = overhead("torch_plain", "torch_captured", 30)
    theirs = overhead("torch_plain", "torch_profiler", 30)
    if ours and theirs:
        check(f"torch loop step overhead {100 * ours['overhead']:.2f} % <= 3 % "
              f"(torch.profiler: {100 * theirs['overhead']:.2f} %)", ours["overhead"] <= 0.03)
    result["torch"] = {"tensorscope": ours, "torch_profiler": theirs}
live_reads = []
for t in range(1, 5):
    try:
        live_reads.append(json.load(open(f"{scratch}/live.{t}.json")))
    except (OSError, ValueError):
        pass
counts = [r["kernels"] for r in live_reads]
print(f"live: kernels at each read while running: {counts}")
check("live: the session was readable at least 3 of 4 times while the program ran",
      len(live_reads) >= 3)
check("live: kernels in the first read, never fewer in a later one, more in the last",
      len(counts) >= 2 and counts[0] > 0 and all(b >= a for a, b in zip(counts, counts[1:]))
      and counts[-1] > counts[0])
check("live: the reads while running are marked incomplete",
      bool(live_reads) and all(r["incomplete"] for r in live_reads))
live = load("live")
live_rc = open(f"{scratch}/live.rc").read().strip()
result["live"] = {"kernels_while_running": counts, "capture_rc": live_rc}
if live:
    sessions.append(live)
    check("live: the stopped session holds at least what the last read saw",
          not counts or live["kernels"] >= counts[-1])
    check(f"live: --duration ended the capture (rc {live_rc}: the program's SIGTERM, 143, or 0)",
          live_rc in ("0", "143"))
if torch:
    fork = load("torch_fork")
    if fork:
        sessions.append(fork)
        check("torch fork: exit code 0", fork.get("exit_code") == 0)
        check(f"torch fork: NVTX ranges {fork['nvtx_ranges']} >= 32 steps",
              fork["nvtx_ranges"] >= 32)
        check("torch fork: 2 HtoD copies a step (>= 64)", fork["memcpy"]["HtoD"] >= 64)
    both_rc = open(f"{scratch}/both.rc").read().strip()
    check(f"torch.profiler inside a capture: capture rc {both_rc} = 0", both_rc == "0")
    kineto = load("kineto")
    t = load("torch_loop")
    if kineto and t:
        result["torch"]["kernels"] = {"tensorscope": t["kernels"], "torch_profiler": kineto["kernels"]}
        check(f"torch loop kernels: Tensorscope {t['kernels']} >= torch.profiler {kineto['kernels']}"
              " (ours also has start-up) and within 5 %",
              kineto["kernels"] <= t["kernels"] <= 1.05 * kineto["kernels"])
for s in sessions:
    check(f"{s['file']}: zero dropped records", s.get("dropped_records", 0) == 0)
    check(f"{s['file']}: complete", not s["incomplete"])
    check(f"{s['file']}: recorded by CUPTI 13", s.get("profiler", "").startswith("CUPTI 13"))
result["checks"] = checks
result["failures"] = [c["check"] for c in checks if not c["ok"]]
with open(f"{out}/results.json", "w") as f:
    json.dump(result, f, indent=2)
print(f"\n{len(checks) - len(result['failures'])} of {len(checks)} checks passed; "
      f"results: {out}/results.json")
sys.exit(1 if result["failures"] else 0)
PY
