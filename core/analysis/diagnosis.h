// "Why is this step slow": the analyses of core/analysis run together on a session or a range —
// the steps, temporal breakdown, kernel-type overlap, idle time by cause, communication/computation
// overlap, launch statistics, queue lengths, the expert rules' findings — with what they rest on
// counted, so that the product can say how sure each figure is.
#pragma once

#include <vector>

#include "analysis/comm_overlap.h"
#include "analysis/idle_breakdown.h"
#include "analysis/kernel_type_overlap.h"
#include "analysis/launch_stats.h"
#include "analysis/queue_length.h"
#include "analysis/rules/finding.h"
#include "analysis/steps.h"
#include "analysis/temporal_breakdown.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

struct DiagnoseOptions {
  AnalysisRange range;
  TimeNs kernelWaitBelow = 30;     // idle: gaps shorter than this are launch overhead
  TimeNs runtimeOutlier = 50'000;  // launch: a launching call longer than this
  TimeNs delayOutlier = 100'000;   // launch: call end to operation start longer than this
  RuleOptions rules;
  std::vector<std::string> ruleNames;  // the expert rules to run; empty: all
  bool runRules = true;                // false: the tables only (stats reports)
};

struct Diagnosis {
  TimeNs sessionStart = 0;  // tables give times from it
  StepTable steps;
  std::vector<TemporalBreakdown> temporal;  // one per rank with GPU work
  std::vector<TypeSetTime> kernelTypes;     // by rank, then type set
  std::vector<StreamIdle> idle;             // by stream
  std::vector<IdleGap> gaps;                // every gap, for the timeline
  std::vector<CommOverlap> commOverlap;     // one per rank with GPU work
  LaunchStats launch;                       // operations starting in the range
  std::vector<StreamQueue> queues;          // by rank, then stream
  std::vector<Finding> findings;            // the expert rules', largest cost first
  std::vector<std::string> ruleNotes;       // what the rules could not judge
  size_t gpuOps = 0;                        // operations in the range
  size_t gpuOpsWithLaunch = 0;              // ... whose launching call is known (whole session)
  size_t gpuOpsInSession = 0;
};

Result<Diagnosis> diagnose(const Session& session, const DiagnoseOptions& options,
                           const Progress& progress = {});

// The parts of diagnose: the figures of the GPU operations, which need no steps (every field but
// steps, findings and ruleNotes), and the expert rules' judgement of windows — the steps, or
// when `steps` is false each rank's whole range — with the gaps whole steps are judged against.
Result<Diagnosis> diagnoseOperations(const Session& session, const LaunchIndex& launches,
                                     const DiagnoseOptions& options, const Progress& progress = {});
RuleOutput judgeWindows(const Session& session, const Diagnosis& diagnosis,
                        const LaunchIndex& launches, const DiagnoseOptions& options,
                        const std::vector<Step>& windows, bool steps,
                        const std::vector<IdleGap>& stepGaps, bool byCost);

}  // namespace ts
