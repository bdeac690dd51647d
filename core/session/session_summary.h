// Counts and totals of a session, as `tensorscope-cli info` and the track tree show them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "session/session.h"

namespace ts {

struct SessionSummary {
  size_t kernels = 0;
  std::array<size_t, kCopyKindCount> memcpyCount{};
  std::array<uint64_t, kCopyKindCount> memcpyBytes{};
  // Unified-memory migrations, counted apart from the copies above, and the page faults the
  // session recorded (Nsight exports; kGpuPageFaultCounter, kCpuPageFaultCounter).
  std::array<size_t, kCopyKindCount> migrationCount{};
  std::array<uint64_t, kCopyKindCount> migrationBytes{};
  uint64_t gpuPageFaults = 0, cpuPageFaults = 0;
  size_t memsets = 0;
  uint64_t memsetBytes = 0;
  size_t apiCalls = 0;
  size_t nvtxRanges = 0;
  size_t nvtxMarks = 0;
  size_t otherRanges = 0;
  size_t counterSamples = 0;
  size_t flows = 0;
  size_t streams = 0;
  size_t threads = 0;
  size_t events = 0;
  TimeNs start = 0;
  TimeNs end = 0;
  std::vector<std::string> devices;  // device names, in session order

  size_t memcpys() const;
  size_t migrations() const;
};

SessionSummary summarize(const Session& session);

// Resident bytes of a session's event columns: hot columns, lane indexes, detail side tables.
struct MemoryUse {
  size_t hot = 0;
  size_t laneIndex = 0;
  size_t details = 0;
};
MemoryUse memoryUse(const Session& session);

// The devices that ran kernels, most kernel time (the sum of kernel durations) first, ties by
// device index: "the busiest GPU" wherever one GPU of a run is picked.
struct DeviceKernelTime {
  uint32_t device = kNone;
  TimeNs ns = 0;
};
std::vector<DeviceKernelTime> devicesByKernelTime(const Session& session);

// Events on one track, by kind, for labels like "Stream 7 · 1,234 kernels".
std::string describeCount(size_t count, EventKind kind);

}  // namespace ts
