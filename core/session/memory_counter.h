// What a run's own counters say its GPU held: PyTorch's [memory] events (profile_memory=True)
// become a counter of allocated bytes per device, a capture's memory records too. The advisor
// (peak memory of a job to pack) and the memory simulation (measured against simulated) read it
// from here, so that both mean the same counter.
#pragma once

#include <limits>
#include <optional>
#include <string>

#include "session/session.h"

namespace ts {

struct MemoryPeak {
  int64_t bytes = 0;
  TimeNs at = 0;        // when it was reached (the window's start when it was held from before)
  std::string counter;  // the counter's name ("Memory allocated", "Allocated since trace start")
};

// A GPU's (or a process's) allocated-bytes counter: in bytes, named for allocation ("Memory
// allocated", "Allocated since trace start"), not "Memory reserved". One rule for every reader.
bool isAllocatedCounter(const CounterTrack& counter);

// The GPU's allocated-bytes counter with samples, null when the session records none.
const CounterTrack* gpuAllocatedCounter(const Session& session, uint32_t device);
// The bytes a counter holds at `t`: its last sample at or before it, 0 before its first (and for
// a sample that is no number), within int64.
int64_t counterBytesAt(const CounterTrack& counter, TimeNs t);

// The highest value of the GPU's allocated-bytes counter during [from, to] (the value held when
// the window opens included); none when the session records no such counter for it, or no sample
// of it falls in or before the window. A process's counter is host memory: not counted.
std::optional<MemoryPeak> gpuMemoryPeak(const Session& session, uint32_t device,
                                        TimeNs from = std::numeric_limits<TimeNs>::min(),
                                        TimeNs to = std::numeric_limits<TimeNs>::max());

}  // namespace ts
