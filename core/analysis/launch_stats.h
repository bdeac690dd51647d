// How long the CPU took to launch each GPU operation and how long the operation then waited, as
// HolisticTraceAnalysis's get_cuda_kernel_launch_stats defines them, joined by the session's
// flows (correlation ids):
//  - CPU launch duration: the launching API call's duration;
//  - GPU duration: the operation's own;
//  - launch delay: the operation's start − the end of its launching call.
// Flagged: short operations (GPU duration below the CPU's launch duration: the GPU finishes
// before the CPU can hand it the next one), runtime outliers (a launching call longer than
// 50 µs) and launch-delay outliers (more than 100 µs from call to start).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_ops.h"
#include "analysis/launch_index.h"

namespace ts {

struct LaunchOptions {
  AnalysisRange range;             // operations starting inside it
  TimeNs runtimeOutlier = 50'000;  // HTA's runtime_cutoff
  TimeNs delayOutlier = 100'000;   // HTA's launch_delay_cutoff
};

enum LaunchFlag : uint8_t { kShortOp = 1, kRuntimeOutlier = 2, kDelayOutlier = 4 };

// One flagged operation, for the expert rules and the timeline's highlight.
struct FlaggedLaunch {
  uint32_t track = 0, event = 0;  // the GPU operation
  uint32_t apiTrack = 0, apiEvent = 0;
  TimeNs cpu = 0, gpu = 0, delay = 0;
  uint8_t flags = 0;  // LaunchFlag bits
};

// Per rank and operation name (a kernel's demangled name, "Memcpy HtoD (Pageable -> Device)").
struct LaunchSummary {
  uint32_t rank = 0;       // index into Session::ranks
  int32_t rankNumber = 0;  // Rank::rank
  StringId name = 0;
  std::string label;  // the name's text
  EventKind kind = EventKind::Kernel;
  uint64_t count = 0;  // operations with a known launch
  TimeNs cpuTotal = 0, gpuTotal = 0, delayTotal = 0, delayMax = 0;
  uint64_t shortOps = 0, runtimeOutliers = 0, delayOutliers = 0;
};

struct LaunchStats {
  std::vector<LaunchSummary> byName;   // by rank, then GPU time, longest first
  std::vector<FlaggedLaunch> flagged;  // in (track, event) order
  uint64_t ops = 0;                    // GPU operations starting in the range
  uint64_t withLaunch = 0;             // ... whose launching call is known
};

LaunchStats launchStats(const Session& session, const LaunchIndex& launches,
                        const LaunchOptions& options);

}  // namespace ts
