#include "analysis/diagnosis.h"

#include "analysis/rules/rules.h"

namespace ts {

Result<Diagnosis> diagnoseOperations(const Session& s, const LaunchIndex& launches,
                                     const DiagnoseOptions& o, const Progress& progress) {
  if (o.range.end <= o.range.start)
    return Error{"the range is empty (its end is not after its start)"};
  Diagnosis d;
  d.sessionStart = s.startTime();
  if (!progress.enter("GPU operations")) return Error::cancelled();
  std::vector<RankOps> ranks = collectRankOps(s, o.range);
  for (const RankOps& r : ranks) {
    d.gpuOps += r.count;
    d.temporal.push_back(temporalBreakdown(r));
    for (const TypeSetTime& t : kernelTypeOverlap(r)) d.kernelTypes.push_back(t);
    d.commOverlap.push_back(commOverlap(r));
  }
  progress.update(0.4);
  if (!progress.enter("idle time")) return Error::cancelled();
  d.gpuOpsWithLaunch = launches.known();
  for (const Track& t : s.tracks) {
    if (isGpuOp(t.kind)) d.gpuOpsInSession += t.size();
  }
  IdleOptions io;
  io.range = o.range;
  io.kernelWaitBelow = o.kernelWaitBelow;
  d.gaps = idleGaps(s, launches, io);
  d.idle = idleByStream(s, d.gaps);
  progress.update(0.6);
  if (!progress.enter("launches")) return Error::cancelled();
  LaunchOptions lo;
  lo.range = o.range;
  lo.runtimeOutlier = o.runtimeOutlier;
  lo.delayOutlier = o.delayOutlier;
  d.launch = launchStats(s, launches, lo);
  d.queues = queueLengths(s, launches, o.range);
  progress.update(0.7);
  return d;
}

RuleOutput judgeWindows(const Session& s, const Diagnosis& d, const LaunchIndex& launches,
                        const DiagnoseOptions& o, const std::vector<Step>& windows, bool steps,
                        const std::vector<IdleGap>& stepGaps, bool byCost) {
  GpuBusy busy = gpuBusy(s, o.range);
  GpuBusy wholeBusy;
  if (steps && !o.range.whole()) wholeBusy = gpuBusy(s, {});
  RuleInput in{s,
               d,
               launches,
               o.rules,
               o.range,
               busy,
               windows,
               steps,
               steps ? stepGaps : d.gaps,
               steps && !o.range.whole() ? wholeBusy : busy};
  return runRules(in, o.ruleNames, byCost);
}

Result<Diagnosis> diagnose(const Session& s, const DiagnoseOptions& o, const Progress& progress) {
  LaunchIndex launches(s);
  auto base = diagnoseOperations(s, launches, o, progress);
  if (!base) return base;
  Diagnosis& d = *base;
  if (!progress.enter("steps")) return Error::cancelled();
  // Steps are measured whole, so against the whole session's gaps when a range cuts them.
  std::vector<IdleGap> wholeGaps;
  if (!o.range.whole()) {
    IdleOptions whole;
    whole.kernelWaitBelow = o.kernelWaitBelow;
    wholeGaps = idleGaps(s, launches, whole);
  }
  const std::vector<IdleGap>& stepGaps = o.range.whole() ? d.gaps : wholeGaps;
  d.steps = findSteps(s, launches, stepGaps, o.range);
  if (!o.runRules) return base;
  if (!progress.enter("expert rules")) return Error::cancelled();
  // The per-step rules judge the steps; a trace without steps is judged as one window per rank.
  const bool steps = !d.steps.steps.empty();
  std::vector<Step> windows;
  if (!steps) windows = rankWindows(s, launches, d.gaps, o.range);
  RuleOutput found =
      judgeWindows(s, d, launches, o, steps ? d.steps.steps : windows, steps, stepGaps, true);
  d.findings = std::move(found.findings);
  for (const RuleNote& n : found.notes) d.ruleNotes.push_back(ruleNoteText(n));
  progress.update(1.0);
  return base;
}

}  // namespace ts
