#!/usr/bin/env python3
"""Reference values for tests/core/test_breakdown.cpp, computed from the raw trace file alone
(no Tensorscope code), following HolisticTraceAnalysis's documented definitions:

- GPU ops: events with a stream (kernels, GPU memcpy, GPU memset); kernel type by name: "nccl…"
  communication, "Memcpy…"/"Memset…" memory, the rest computation.
- temporal breakdown per rank: span = last op end − first op start; idle = span − |union of ops|;
  compute = |union of computation ops|; non-compute = span − idle − compute.
- kernel-type overlap: time during which exactly a given set of types is running.
- idle by cause per (rank, stream): for each op with a gap before it on its stream, host wait if
  its launching runtime call (same correlation id) started after the previous op on the stream
  ended; else kernel wait if the gap is under 30 ns; else other; unknown without a launch.
- communication/computation overlap: |compute ∩ comm| / |comm|.
- steps: ProfilerStep#N ranges on CPU threads; an op belongs to the step whose range holds its
  launch; per step the union of its ops (all, per type), exposed communication (comm − comm ∩
  compute), the first op start and last op end, and CPU time in enumerate(DataLoader)…, forward,
  autograd::engine::evaluate_function: … and Optimizer.step#…/zero_grad#… ranges inside it.

Usage: hta_breakdown.py TRACE.json[.gz]...   (prints JSON; times in integer ns)
"""
import collections, gzip, json, sys
from decimal import Decimal

def ns(us):
    return int((Decimal(str(us)) * 1000).to_integral_value())

def union(intervals):
    out = []
    for s, e in sorted(i for i in intervals if i[1] > i[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out

def length(merged):
    return sum(e - s for s, e in merged)

def intersect(a, b):
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            out.append([s, e])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out

def kind(name):
    if name.startswith("nccl"):
        return "COMMUNICATION"
    if name.startswith("Memcpy") or name.startswith("Memset"):
        return "MEMORY"
    return "COMPUTATION"

ORDER = ["COMPUTATION", "COMMUNICATION", "MEMORY"]

def analyse(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f, parse_float=Decimal)
    rank = int(trace.get("distributedInfo", {}).get("rank", 0))
    events = trace["traceEvents"]
    # Kineto's category names, and those of 2021 traces (Kernel, Memcpy, Memset, Runtime).
    gpu = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") in gpu]
    launches = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime"):
            c = e.get("args", {}).get("correlation")
            if c is not None:
                launches[c] = ns(e["ts"])
    iv = [(ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)), kind(e["name"]), e) for e in ops]
    if not iv:
        return {"ops": 0}
    allm = union([[s, t] for s, t, _, _ in iv])
    by = {k: union([[s, t] for s, t, kk, _ in iv if kk == k]) for k in ORDER}
    first, last = min(s for s, *_ in iv), max(t for _, t, *_ in iv)
    span = last - first
    idle = span - length(allm)
    compute = length(by["COMPUTATION"])
    temporal = {"rank": rank, "kernel_span_ns": span, "idle_ns": idle, "compute_ns": compute,
                "non_compute_ns": span - idle - compute}
    # Sweep: time with exactly each set of types running.
    points = []
    for k in ORDER:
        for s, t in by[k]:
            points += [(s, 1, k), (t, -1, k)]
    points.sort(key=lambda p: (p[0], p[1]))
    active = collections.Counter()
    sets = collections.Counter()
    prev = None
    for t, d, k in points:
        if prev is not None and t > prev:
            key = " overlapping ".join(x for x in ORDER if active[x] > 0)
            if key:
                sets[key] += t - prev
        active[k] += d
        prev = t
    types = [{"rank": rank, "type": k, "ns": v} for k, v in sorted(sets.items())]
    idle_rows = []
    streams = collections.defaultdict(list)
    for s, t, _, e in iv:
        streams[int(e["args"].get("stream", e["tid"]))].append((s, t, e))
    for sid in sorted(streams):
        row = {"rank": rank, "stream": sid, "host_wait_ns": 0, "kernel_wait_ns": 0, "other_ns": 0,
               "unknown_ns": 0}
        prev_end = None
        for s, t, e in sorted(streams[sid], key=lambda x: x[0]):
            if prev_end is not None and s > prev_end:
                gap = s - prev_end
                launch = launches.get(e["args"].get("correlation"))
                if launch is None:
                    row["unknown_ns"] += gap
                elif launch > prev_end:
                    row["host_wait_ns"] += gap
                elif gap < 30:
                    row["kernel_wait_ns"] += gap
                else:
                    row["other_ns"] += gap
            prev_end = t if prev_end is None else max(prev_end, t)
        idle_rows.append(row)
    comm = by["COMMUNICATION"]
    overlap = None
    if length(comm):
        overlap = 100.0 * length(intersect(by["COMPUTATION"], comm)) / length(comm)
    steps = []
    cpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("user_annotation", "Operator", "cpu_op")]
    def annotated(prefixes):
        return union([[ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))] for e in cpu
                      if any(e["name"].startswith(p) for p in prefixes)])
    loader = annotated(["enumerate(DataLoader)"])
    backward = annotated(["autograd::engine::evaluate_function:"])
    forward = union([[ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))] for e in cpu
                     if e["name"] == "forward" or e["name"].startswith("forward/")])
    optimizer = annotated(["Optimizer.step#", "Optimizer.zero_grad#"])
    for e in sorted((e for e in cpu if e["name"].startswith("ProfilerStep#")), key=lambda e: ns(e["ts"])):
        a, b = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
        mine = [(s, t, k) for s, t, k, o in iv
                if a <= launches.get(o["args"].get("correlation"), s) < b]
        per = {k: union([[s, t] for s, t, kk in mine if kk == k]) for k in ORDER}
        window = [[a, b]]
        steps.append({
            "step": int(e["name"][13:]), "start_ns": a, "end_ns": b, "ops": len(mine),
            "gpu_start_ns": min(s for s, _, _ in mine), "gpu_end_ns": max(t for _, t, _ in mine),
            "gpu_busy_ns": length(union([[s, t] for s, t, _ in mine])),
            "compute_ns": length(per["COMPUTATION"]), "communication_ns": length(per["COMMUNICATION"]),
            "memory_ns": length(per["MEMORY"]),
            "exposed_comm_ns": length(per["COMMUNICATION"]) - length(intersect(per["COMMUNICATION"], per["COMPUTATION"])),
            "dataloader_ns": length(intersect(loader, window)) if loader else None,
            "forward_ns": length(intersect(forward, window)) if forward else None,
            "backward_ns": length(intersect(backward, window)) if backward else None,
            "optimizer_ns": length(intersect(optimizer, window)) if optimizer else None})
    return {"temporal": temporal, "kernel_types": types, "idle": idle_rows,
            "comm_overlap": {"rank": rank, "percent": overlap}, "ops": len(iv), "steps": steps}

if __name__ == "__main__":
    print(json.dumps([analyse(p) for p in sys.argv[1:]], indent=1))
