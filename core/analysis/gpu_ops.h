// The GPU operations a diagnosis works on: the kernels, copies and memsets of each rank, typed as
// HolisticTraceAnalysis types them (kernels named "nccl…" communicate, copies and memsets move
// memory, every other kernel computes), as merged busy intervals per type.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "analysis/intervals.h"
#include "session/session.h"

namespace ts {

enum class OpType : uint8_t { Computation = 0, Communication = 1, Memory = 2 };
inline constexpr int kOpTypeCount = 3;

// "COMPUTATION", "COMMUNICATION", "MEMORY": HTA's names, which users compare against.
std::string_view toString(OpType type);
// The type of a GPU event of `kind` named `name` (a kernel's name as the trace gives it).
OpType opTypeOf(EventKind kind, std::string_view name);
bool isGpuOp(EventKind kind);

// A time range on the session's clock; events are clipped to it.
struct AnalysisRange {
  TimeNs start = std::numeric_limits<TimeNs>::min();
  TimeNs end = std::numeric_limits<TimeNs>::max();
  bool whole() const {
    return start == std::numeric_limits<TimeNs>::min() && end == std::numeric_limits<TimeNs>::max();
  }
};

// One rank's GPU operations inside a range.
struct RankOps {
  uint32_t rank = 0;           // index into Session::ranks
  int32_t rankNumber = 0;      // Rank::rank: the trace's distributedInfo.rank
  size_t count = 0;            // operations intersecting the range
  TimeNs first = 0;            // start of the first, clipped
  TimeNs last = 0;             // end of the last, clipped
  std::vector<Interval> busy;  // merged, all types
  std::array<std::vector<Interval>, kOpTypeCount> byType;  // merged, one type each
};

// Ranks with at least one GPU operation in the range, in the session's rank order.
std::vector<RankOps> collectRankOps(const Session& session, const AnalysisRange& range);

// The rank (index into Session::ranks) a GPU track belongs to.
uint32_t rankOfTrack(const Session& session, const Track& track);
// The rank (index into Session::ranks) a CPU thread belongs to.
uint32_t rankOfThread(const Session& session, uint32_t thread);
// Rank::rank of a rank index (0 for a session without ranks).
int32_t rankNumberOf(const Session& session, uint32_t rank);

// Each rank's span: its first event's start to its last one's end over its GPUs' tracks, its
// threads' tracks and its counters (indexed like Session::ranks, at least one; {0, 0} for a rank
// with none). A rank's own span, not the session's: ranks traced from different times are not
// charged for the time before their trace began.
std::vector<Interval> rankSpans(const Session& session);

}  // namespace ts
