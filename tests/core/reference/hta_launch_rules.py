#!/usr/bin/env python3
"""Reference values for tests/core/test_rules.cpp, computed from the raw trace file alone (no
Tensorscope code):

- launch statistics (HolisticTraceAnalysis's get_cuda_kernel_launch_stats): every GPU op
  (kernel, GPU memcpy, GPU memset) joined to the runtime/driver call with its correlation id;
  CPU duration = the call's dur, GPU duration = the op's dur, launch delay = op start − call end;
  short: GPU < CPU; runtime outlier: CPU > 50 us; delay outlier: delay > 100 us.
- queue length per stream: +1 at the launching call's start, −1 at the op's end (departures
  first at equal times); the maximum and the time at 1024 or more.
- cuda_memcpy_async: copies whose launching call's name contains "Async" with "Pageable" on
  either side; count and the calls' total duration.
- cuda_memcpy_sync: copies launched by cudaMemcpy*/cuMemcpy* without "Async", HtoD of 64 KiB or
  less left out; count and the calls' total duration.
- cuda_api_sync: runtime/driver calls named cuda{Device,Stream,Event}Synchronize or
  cu{Ctx,Stream,Event}Synchronize; count and total duration.
- gpu_gaps: gaps between the merged GPU ops of the trace of at least THRESHOLD ns (argument).
- dataloader: per ProfilerStep#N the CPU time in enumerate(DataLoader)… ranges inside it; the
  steps where that exceeds 5 % of the step.

Usage: hta_launch_rules.py THRESHOLD_NS TRACE.json[.gz]   (prints JSON; times in integer ns)
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

def analyse(threshold, path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    gpu = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") in gpu]
    calls = [e for e in events
             if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime")]
    by_corr = {}
    for c in calls:
        corr = c.get("args", {}).get("correlation")
        if corr is not None and corr not in by_corr:
            by_corr[corr] = c
    launch = {"ops": len(ops), "with_launch": 0, "short": 0, "runtime_outliers": 0,
              "delay_outliers": 0}
    queue_changes = collections.defaultdict(list)
    memcpy_async = [0, 0]
    memcpy_sync = [0, 0]
    for o in ops:
        c = by_corr.get(o.get("args", {}).get("correlation"))
        if c is None:
            continue
        launch["with_launch"] += 1
        cs, cd = ns(c["ts"]), ns(c.get("dur", 0))
        os_, od = ns(o["ts"]), ns(o.get("dur", 0))
        delay = os_ - (cs + cd)
        launch["short"] += od < cd
        launch["runtime_outliers"] += cd > 50_000
        launch["delay_outliers"] += delay > 100_000
        stream = int(o["args"].get("stream", o["tid"]))
        queue_changes[stream] += [(min(cs, os_ + od), 1), (os_ + od, -1)]
        api = c["name"]
        if o["cat"] in ("gpu_memcpy", "Memcpy"):
            if "Async" in api and "Pageable" in o["name"]:
                memcpy_async[0] += 1
                memcpy_async[1] += cd
            if (api.startswith("cudaMemcpy") or api.startswith("cuMemcpy")) and "Async" not in api:
                small = "HtoD" in o["name"] and o["args"].get("bytes", 0) <= 64 * 1024
                if not small:
                    memcpy_sync[0] += 1
                    memcpy_sync[1] += cd
    queues = {}
    for stream, ch in queue_changes.items():
        ch.sort(key=lambda x: (x[0], x[1]))
        length, top, full = 0, 0, 0
        for i, (t, d) in enumerate(ch):
            length += d
            top = max(top, length)
            if length >= 1024 and i + 1 < len(ch):
                full += ch[i + 1][0] - t
        queues[stream] = {"max": top, "full_ns": full}
    sync_names = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                  "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"}
    syncs = [c for c in calls if c["name"] in sync_names]
    busy = union([[ns(o["ts"]), ns(o["ts"]) + ns(o.get("dur", 0))] for o in ops])
    gaps = [b[0] - a[1] for a, b in zip(busy, busy[1:]) if b[0] - a[1] >= threshold]
    cpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("user_annotation", "Operator", "cpu_op")]
    loader = union([[ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))] for e in cpu
                    if e["name"].startswith("enumerate(DataLoader)")])
    flagged = []
    for e in sorted((e for e in cpu if e["name"].startswith("ProfilerStep#")), key=lambda e: ns(e["ts"])):
        a, b = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
        inside = sum(max(0, min(t, b) - max(s, a)) for s, t in loader)
        if loader and inside > 0.05 * (b - a):
            flagged.append({"step": int(e["name"][13:]), "dataloader_ns": inside})
    return {"launch": launch, "queues": queues,
            "cuda_memcpy_async": memcpy_async, "cuda_memcpy_sync": memcpy_sync,
            "cuda_api_sync": [len(syncs), sum(ns(c.get("dur", 0)) for c in syncs)],
            "gpu_gaps": [len(gaps), sum(gaps)], "dataloader": flagged}

if __name__ == "__main__":
    print(json.dumps(analyse(int(sys.argv[1]), sys.argv[2]), indent=1))
