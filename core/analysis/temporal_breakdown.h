// Where a rank's GPU time goes, as HolisticTraceAnalysis's get_temporal_breakdown defines it:
// the kernel span (first GPU operation's start to the last one's end, copies and memsets
// included), idle (span − the union of all operations), compute (the union of computation
// kernels) and non-compute (the rest: communication and memory time not under a computation).
#pragma once

#include "analysis/gpu_ops.h"

namespace ts {

struct TemporalBreakdown {
  int32_t rank = 0;  // Rank::rank
  TimeNs span = 0;
  TimeNs idle = 0;
  TimeNs compute = 0;
  TimeNs nonCompute = 0;  // span − idle − compute
};

TemporalBreakdown temporalBreakdown(const RankOps& ops);

}  // namespace ts
