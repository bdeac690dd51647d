#!/usr/bin/env bash
# The capture check on a GPU machine (one command, a few minutes): builds capture and the CUDA
# samples, captures both, checks event kinds, counts, devices and bytes, and measures the overhead
# of capture (wall time with and without, median of 5), also against torch.profiler on a small
# PyTorch loop when torch is installed. Budget: <= 3 % overhead, zero dropped records.
# Usage: tests/gpu/gpu-check.sh [OUTDIR]   (results: OUTDIR/results.json, sessions beside it)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-${OUT:-/tmp/tscope-gpu-check}}
mkdir -p "$OUT"
nvidia-smi -L || { echo "gpu-check: no GPU visible (nvidia-smi failed)"; exit 1; }
if [ ! -f build/default/build.ninja ]; then cmake --preset default >/dev/null; fi
cmake --build --preset default --target tensorscope-cli tensorscope_inject pair_add train_loop >/dev/null
CLI=build/default/bin/tensorscope-cli
PAIR=build/default/samples/cuda/pair_add
LOOP=build/default/samples/cuda/train_loop
N=$((1 << 26))   # floats per array
STEPS=200

$CLI capture -o "$OUT/pair_add.tscope" -- "$PAIR" "$N"
$CLI capture -o "$OUT/train_loop.tscope" -- "$LOOP" "$STEPS"
$CLI info --json "$OUT/pair_add.tscope" > "$OUT/pair_add.json"
$CLI info --json "$OUT/train_loop.tscope" > "$OUT/train_loop.json"
$CLI stats "$OUT/train_loop.tscope" --report kern_sum --format json > "$OUT/train_loop.kern_sum.json"

# Wall time of a command, in seconds.
wall() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
plain=$(for i in 1 2 3 4 5; do wall "$LOOP" "$STEPS"; done | median)
captured=$(for i in 1 2 3 4 5; do wall $CLI capture -o "$OUT/overhead.tscope" -- "$LOOP" "$STEPS"; done | median)
pplain=$(for i in 1 2 3 4 5; do wall "$PAIR" "$N"; done | median)
pcaptured=$(for i in 1 2 3 4 5; do wall $CLI capture -o "$OUT/overhead.tscope" -- "$PAIR" "$N"; done | median)

torch_line='null'
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  cat > "$OUT/torch_loop.py" <<'PY'
import sys, time, torch
profile = len(sys.argv) > 1 and sys.argv[1] == "torch"
model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(8)]).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(512, 2048, device="cuda")
def run():
    for _ in range(100):
        opt.zero_grad(); model(x).sum().backward(); opt.step()
    torch.cuda.synchronize()
if profile:
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]) as p:
        run()
    p.export_chrome_trace(sys.argv[2])
else:
    run()
PY
  tplain=$(for i in 1 2 3; do wall python3 "$OUT/torch_loop.py"; done | median)
  ttorch=$(for i in 1 2 3; do wall python3 "$OUT/torch_loop.py" torch "$OUT/torch_trace.json"; done | median)
  tours=$(for i in 1 2 3; do wall $CLI capture -o "$OUT/torch_loop.tscope" -- python3 "$OUT/torch_loop.py"; done | median)
  torch_line="{\"plain_s\": $tplain, \"torch_profiler_s\": $ttorch, \"tensorscope_s\": $tours}"
fi

python3 - "$OUT" "$N" "$STEPS" "$plain" "$captured" "$pplain" "$pcaptured" "$torch_line" <<'PY'
import json, sys
out, n, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
plain, captured, pplain, pcaptured = map(float, sys.argv[4:8])
torch = json.loads(sys.argv[8])
pair = json.load(open(f"{out}/pair_add.json"))
loop = json.load(open(f"{out}/train_loop.json"))
failures = []
def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: failures.append(what)
gpus = min(len(pair["devices"]), 2)
half = n // 2
check("pair_add exit code 0", pair.get("exit_code") == 0)
check("pair_add 4 kernels (2 streams x 2 halves)", pair["kernels"] == 4)
check("pair_add 8 HtoD copies of all input bytes", pair["memcpy"]["HtoD"] == 8 and pair["memcpy_bytes"]["HtoD"] == 2 * 2 * half * 4)
check("pair_add 2 DtoH copies of the sum", pair["memcpy"]["DtoH"] == 2 and pair["memcpy_bytes"]["DtoH"] == 2 * half * 4)
if gpus == 2:
    check("pair_add 1 peer copy GPU 1 -> GPU 0", pair["memcpy"]["PtoP"] == 1 and pair["memcpy_bytes"]["PtoP"] == half * 4)
else:
    check("pair_add device-to-device copy on one GPU", pair["memcpy"]["DtoD"] >= 1)
check("pair_add NVTX range", pair["nvtx_ranges"] >= 1)
layers = 4
check("train_loop exit code 0", loop.get("exit_code") == 0)
check("train_loop kernels = steps x 20", loop["kernels"] == steps * (4 * layers + layers))
check("train_loop NVTX ranges = steps x 10", loop["nvtx_ranges"] == steps * (2 + 2 * layers))
check("train_loop HtoD / DtoH per step", loop["memcpy"]["HtoD"] == steps and loop["memcpy"]["DtoH"] == steps)
check("train_loop memsets", loop["memsets"] == layers)
for s in (pair, loop):
    check(f"{s['file']}: zero dropped records", s.get("dropped_records", 0) == 0)
    check(f"{s['file']}: complete", not s["incomplete"])
over = captured / plain - 1
pover = pcaptured / pplain - 1
check(f"train_loop overhead {100 * over:.2f} % <= 3 %", over <= 0.03)
check(f"pair_add overhead {100 * pover:.2f} % <= 3 %", pover <= 0.03)
result = {"gpus": pair["devices"], "train_loop": {"plain_s": plain, "captured_s": captured, "overhead": over},
          "pair_add": {"plain_s": pplain, "captured_s": pcaptured, "overhead": pover}, "torch": torch,
          "failures": failures}
json.dump(result, open(f"{out}/results.json", "w"), indent=2)
print(json.dumps(result, indent=2))
sys.exit(1 if failures else 0)
PY
