// "Why is this step slow": the analyses of core/analysis run together on a session or a range —
// the steps, temporal breakdown, kernel-type overlap, idle time by cause, communication/computation
// overlap — with what they rest on counted, so that the product can say how sure each figure is.
#pragma once

#include <vector>

#include "analysis/comm_overlap.h"
#include "analysis/idle_breakdown.h"
#include "analysis/kernel_type_overlap.h"
#include "analysis/steps.h"
#include "analysis/temporal_breakdown.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

struct DiagnoseOptions {
  AnalysisRange range;
  TimeNs kernelWaitBelow = 30;  // idle: gaps shorter than this are launch overhead
};

struct Diagnosis {
  TimeNs sessionStart = 0;  // tables give times from it
  StepTable steps;
  std::vector<TemporalBreakdown> temporal;  // one per rank with GPU work
  std::vector<TypeSetTime> kernelTypes;     // by rank, then type set
  std::vector<StreamIdle> idle;             // by stream
  std::vector<IdleGap> gaps;                // every gap, for the timeline
  std::vector<CommOverlap> commOverlap;     // one per rank with GPU work
  size_t gpuOps = 0;                        // operations in the range
  size_t gpuOpsWithLaunch = 0;              // ... whose launching call is known (whole session)
  size_t gpuOpsInSession = 0;
};

Result<Diagnosis> diagnose(const Session& session, const DiagnoseOptions& options,
                           const Progress& progress = {});

}  // namespace ts
