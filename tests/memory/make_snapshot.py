#!/usr/bin/python3
"""Writes a PyTorch CUDA memory snapshot (the dict torch.cuda.memory._snapshot() returns, pickled
as torch.cuda.memory._dump_snapshot does) holding the GPU allocations of a Kineto trace recorded
with profile_memory=True: the same allocations, addresses, sizes and times, so that a test can
hold the snapshot reader to the [memory] reader on one run. No GPU is needed; the snapshot's
layout follows torch/cuda/memory.py's documented types (Segment, Block, TraceEntry).

Each [memory] allocation becomes an "alloc" record, each free "free_requested" then
"free_completed"; a rise of "Total Reserved" a "segment_alloc". The segments hold the blocks
still allocated when the trace ends (one segment per block: the trace does not say how the
allocator packed them), what was allocated before the trace began (one block) and the reserved
bytes left over in one inactive block.

Usage: make_snapshot.py TRACE.json[.gz] OUT.pickle [PROTOCOL [untimed]]
  untimed: records without "time_us", as PyTorch 2.0 wrote them
"""
import gzip
import json
import pickle
import sys


def memory_records(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    out = [e for e in events if e.get("name") == "[memory]" and
           e.get("args", {}).get("Device Type") == 1]
    out.sort(key=lambda e: e["ts"])
    return out


def snapshot(records):
    history, live, reserved = [], {}, 0
    # What was allocated before the profiler began (weights, inputs): still held at the end.
    first = records[0]["args"]
    before = first.get("Total Allocated", first["Bytes"]) - first["Bytes"]
    frames = [{"filename": "train.py", "line": 42, "name": "step"}]
    for e in records:
        a = e["args"]
        t = int(float(e["ts"]))
        total_reserved = a.get("Total Reserved", reserved)
        if total_reserved > reserved:
            history.append({"action": "segment_alloc", "addr": 0, "size": total_reserved - reserved,
                            "stream": 0, "time_us": t, "frames": frames})
            reserved = total_reserved
        addr, size = a["Addr"], a["Bytes"]
        if size > 0:
            history.append({"action": "alloc", "addr": addr, "size": size, "stream": 0,
                            "time_us": t, "frames": frames})
            live[addr] = size
        else:
            for action in ("free_requested", "free_completed"):
                history.append({"action": action, "addr": addr, "size": -size, "stream": 0,
                                "time_us": t, "frames": frames})
            live.pop(addr, None)
    segments = []
    for addr, size in sorted(live.items()):
        segments.append({"device": 0, "address": addr, "total_size": size,
                         "allocated_size": size, "active_size": size, "requested_size": size,
                         "stream": 0, "segment_type": "large",
                         "blocks": [{"address": addr, "size": size, "requested_size": size,
                                     "state": "active_allocated", "frames": frames}]})
    if before > 0:
        segments.append({"device": 0, "address": 1 << 41, "total_size": before,
                         "allocated_size": before, "active_size": before,
                         "requested_size": before, "stream": 0, "segment_type": "large",
                         "blocks": [{"address": 1 << 41, "size": before, "requested_size": before,
                                     "state": "active_allocated", "frames": []}]})
    rest = reserved - sum(live.values()) - before
    if rest > 0:
        segments.append({"device": 0, "address": 1 << 40, "total_size": rest,
                         "allocated_size": 0, "active_size": 0, "requested_size": 0,
                         "stream": 0, "segment_type": "large",
                         "blocks": [{"address": 1 << 40, "size": rest, "requested_size": 0,
                                     "state": "inactive", "frames": []}]})
    return {"segments": segments, "device_traces": [history],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": ""}}


def main():
    protocol = int(sys.argv[3]) if len(sys.argv) > 3 else pickle.DEFAULT_PROTOCOL
    s = snapshot(memory_records(sys.argv[1]))
    if len(sys.argv) > 4 and sys.argv[4] == "untimed":
        for record in s["device_traces"][0]:
            del record["time_us"]
    with open(sys.argv[2], "wb") as f:
        pickle.dump(s, f, protocol=protocol)


if __name__ == "__main__":
    main()
