// Why a stream sat idle, gap by gap, as HolisticTraceAnalysis's get_idle_time_breakdown
// classifies it: before each GPU operation that follows a gap on its stream,
//  - host wait: the CPU call that launched it started only after the previous operation on the
//    stream had ended (the GPU waited for the CPU);
//  - kernel wait: else, a gap shorter than a threshold (30 ns): back-to-back launch overhead;
//  - other: else (synchronisation, dependencies on other streams);
//  - unknown: the operation's launch is not known (a trace without flows or correlation ids).
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "analysis/gpu_ops.h"
#include "analysis/launch_index.h"

namespace ts {

enum class IdleCause : uint8_t { HostWait = 0, KernelWait = 1, Other = 2, Unknown = 3 };
inline constexpr int kIdleCauseCount = 4;
std::string_view toString(IdleCause cause);  // "host wait", ...

struct IdleGap {
  uint32_t stream = 0;  // index into Session::streams
  TimeNs start = 0;     // clipped to the range
  TimeNs end = 0;
  IdleCause cause = IdleCause::Other;
  uint32_t nextTrack = 0;  // the operation after the gap
  uint32_t nextEvent = 0;
};

struct IdleOptions {
  AnalysisRange range;
  TimeNs kernelWaitBelow = 30;  // HTA's consecutive_kernel_delay
};

// Every gap on every stream, by stream then time.
std::vector<IdleGap> idleGaps(const Session& session, const LaunchIndex& launches,
                              const IdleOptions& options);

struct StreamIdle {
  int32_t rank = 0;       // Rank::rank
  uint32_t stream = 0;    // index into Session::streams
  uint32_t streamId = 0;  // the trace's number for it
  std::array<TimeNs, kIdleCauseCount> time{};
  std::array<uint32_t, kIdleCauseCount> gaps{};
};

// The gaps summed per stream, by rank then stream number; streams without operations are left
// out.
std::vector<StreamIdle> idleByStream(const Session& session, const std::vector<IdleGap>& gaps);

}  // namespace ts
