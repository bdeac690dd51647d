#include "summary/diagnosis_combine.h"

#include <algorithm>

#include "summary/stats_combine.h"
#include "util/format.h"
#include "util/saturate.h"

namespace ts {

namespace {

constexpr TimeNs kTimeLimit = TimeNs{1} << 62;

size_t sourceIndex(StepSource source) {
  return static_cast<size_t>(source);
}

using Judgement = RankDiagnosis::Judgement;

// The judgement of a rank that the session's choice of steps (`chosen`) calls for; null when the
// rank was not judged that way.
const Judgement* judgementFor(const RankDiagnosis& r, StepSource chosen) {
  Judgement::Kind kind = chosen == StepSource::None               ? Judgement::Kind::Window
                         : r.candidates[sourceIndex(chosen)] == 0 ? Judgement::Kind::NoSteps
                                                                  : Judgement::Kind::Steps;
  for (const Judgement& j : r.judgements) {
    if (j.kind == kind && (kind != Judgement::Kind::Steps || j.source == chosen)) return &j;
  }
  return nullptr;
}

}  // namespace

bool sameDiagnoseOptions(const DiagnoseOptions& a, const DiagnoseOptions& b) {
  const RuleOptions &x = a.rules, &y = b.rules;
  return a.range.start == b.range.start && a.range.end == b.range.end &&
         a.kernelWaitBelow == b.kernelWaitBelow && a.runtimeOutlier == b.runtimeOutlier &&
         a.delayOutlier == b.delayOutlier && a.ruleNames == b.ruleNames &&
         a.runRules == b.runRules && x.gapThreshold == y.gapThreshold &&
         x.lowUtilisation == y.lowUtilisation && x.utilisationChunks == y.utilisationChunks &&
         x.hostBoundShare == y.hostBoundShare && x.exposedCommShare == y.exposedCommShare &&
         x.dataLoaderShare == y.dataLoaderShare && x.launchBoundShare == y.launchBoundShare &&
         x.syncCopyMinHtoD == y.syncCopyMinHtoD;
}

std::string diagnoseOptionsDifference(const DiagnoseOptions& a, const DiagnoseOptions& b) {
  auto names = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& n : v) out += (out.empty() ? "" : ",") + n;
    return out.empty() ? std::string("all") : out;
  };
  const RuleOptions &x = a.rules, &y = b.rules;
  if (a.kernelWaitBelow != b.kernelWaitBelow)
    return "--kernel-wait " + formatDuration(a.kernelWaitBelow) + " against " +
           formatDuration(b.kernelWaitBelow);
  if (x.gapThreshold != y.gapThreshold)
    return "--gap-threshold " + formatDuration(x.gapThreshold) + " against " +
           formatDuration(y.gapThreshold);
  if (a.ruleNames != b.ruleNames)
    return "--rules " + names(a.ruleNames) + " against " + names(b.ruleNames);
  if (a.range.start != b.range.start || a.range.end != b.range.end) return "another range";
  return "other thresholds (runtime or delay outliers, shares)";
}

Result<RankDiagnosis> diagnoseRank(const RankFile& rank, StatsSummary::Source source,
                                   const DiagnoseOptions& options, bool ofSeveral,
                                   const Progress& progress) {
  if (!options.range.whole())
    return Error{
        "a rank diagnosed alone is diagnosed whole (a range is measured from the "
        "session start, which one rank does not know)"};
  const Session& s = *rank.session;
  DiagnoseOptions o = options;
  if (ofSeveral) o.rules.jobRankLabel = rank.label;
  LaunchIndex launches(s);
  auto operations = diagnoseOperations(s, launches, o, progress);
  if (!operations) return operations.failure();
  RankDiagnosis out;
  out.source = std::move(source);
  out.rank = rank.rank;
  out.sessionRank = rankNumberOf(s, 0);
  out.empty = s.eventCount() == 0 &&
              std::all_of(s.counters.begin(), s.counters.end(),
                          [](const CounterTrack& c) { return c.samples.time.empty(); });
  out.start = s.startTime();
  out.end = s.endTime();
  const Diagnosis& d = *operations;
  if (auto first = firstLayerName(s, &out.firstLayerAt)) out.firstLayer = *first;
  out.annotated = annotatedCpuTime(s);

  // The session reads its steps from the first source that holds over all ranks: this rank's own
  // (the first that holds for it alone) or an earlier one. The rank is judged under each of those
  // it marks, and without steps when the session's source may be one it does not mark.
  auto judged = [&](Judgement::Kind kind, StepSource source, std::vector<Step> windows) {
    Judgement j;
    j.kind = kind;
    j.source = source;
    j.steps = std::move(windows);
    if (o.runRules) {
      RuleOutput found =
          judgeWindows(s, d, launches, o, j.steps, kind != Judgement::Kind::Window, d.gaps, false);
      j.findings = std::move(found.findings);
      j.notes = std::move(found.notes);
    }
    out.judgements.push_back(std::move(j));
  };
  StepSource own = StepSource::None;
  bool unmarked = false;
  for (StepSource source : kStepSources) {
    std::vector<Step> candidates = stepCandidates(s, launches, source);
    const size_t count = candidates.size();
    out.candidates[sourceIndex(source)] = count;
    if (count == 0) {
      unmarked = true;
      continue;
    }
    judged(Judgement::Kind::Steps, source,
           stepsFrom(s, launches, d.gaps, o.range, source, std::move(candidates)).steps);
    if (stepSourceHolds(source, count)) {
      own = source;
      break;
    }
  }
  if (unmarked) judged(Judgement::Kind::NoSteps, StepSource::None, {});
  if (own == StepSource::None)
    judged(Judgement::Kind::Window, StepSource::None, rankWindows(s, launches, d.gaps, o.range));
  // What points into this rank's session means nothing once it is released.
  for (Judgement& j : out.judgements) {
    for (Finding& f : j.findings) f.events.clear();
  }
  if (o.runRules) {
    std::vector<RankCollectives> collectives = collectivesByRank(s, o.range);
    if (!collectives.empty()) out.collectives = std::move(collectives[0]);
    for (auto& [name, starts] : out.collectives) {
      for (CommStart& c : starts) c.track = kNone, c.event = 0;
    }
  }
  out.operations = std::move(*operations);
  out.operations.gaps.clear();
  out.operations.gaps.shrink_to_fit();
  out.operations.launch.flagged.clear();
  out.operations.launch.flagged.shrink_to_fit();
  return out;
}

Result<std::vector<RankDiagnosis>> diagnoseRankFiles(const std::vector<std::string>& files,
                                                     const std::vector<size_t>& which,
                                                     const DiagnoseOptions& options,
                                                     const OpenOptions& open,
                                                     std::vector<std::string>* incomplete,
                                                     const Progress& progress) {
  std::vector<RankDiagnosis> out(which.size());
  TS_RETURN_IF_ERROR(forEachRankFile(
      files, which, open,
      [&](size_t k, RankFile& rank) -> Status {
        auto d = diagnoseRank(rank, rankSource(files[which[k]], which[k], rank), options,
                              files.size() > 1);
        if (!d) return d.failure().prefixed(files[which[k]] + ": ");
        out[k] = std::move(*d);
        return {};
      },
      incomplete, progress));
  return out;
}

Result<Diagnosis> combineRankDiagnoses(std::vector<RankDiagnosis> ranks,
                                       const DiagnoseOptions& options, bool* markedDifferently) {
  if (markedDifferently) *markedDifferently = false;
  if (ranks.empty()) return Error{"no rank diagnosis to combine"};
  std::sort(ranks.begin(), ranks.end(), [](const RankDiagnosis& a, const RankDiagnosis& b) {
    return a.source.index < b.source.index;
  });
  std::vector<const StatsSummary::Source*> sources;
  for (const RankDiagnosis& r : ranks) sources.push_back(&r.source);
  auto aligned = alignSources(sources);
  if (!aligned) return aligned.failure();
  const std::vector<TimeNs> offsets = std::move(*aligned);

  // Times stay strictly within ±2^62 once shifted (as a session's do), so that differences of
  // them cannot overflow; a part file could claim anything.
  bool outOfRange = false;
  size_t shifting = 0;
  auto at = [&](TimeNs t) {
    const TimeNs out = saturatingAdd(t, offsets[shifting]);
    outOfRange = outOfRange || out <= -kTimeLimit || out >= kTimeLimit;
    return out;
  };

  // Which mark of steps the session reads: the first that holds over all ranks.
  StepSource chosen = StepSource::None;
  for (StepSource source : kStepSources) {
    uint64_t total = 0;
    for (const RankDiagnosis& r : ranks)
      total = saturatingAdd(total, r.candidates[sourceIndex(source)]);
    if (stepSourceHolds(source, total)) {
      chosen = source;
      break;
    }
  }
  auto differently = [&](const std::string& why) -> Error {
    if (markedDifferently) *markedDifferently = true;
    return Error{"the rank files mark their steps differently (" + why +
                 "): diagnose them as one session (without --shard)"};
  };
  if (chosen == StepSource::LayerRanges) {
    // Layer steps repeat the session's first forward/<layer> range: the earliest over all ranks.
    const RankDiagnosis* first = nullptr;
    TimeNs firstAt = 0;
    for (size_t i = 0; i < ranks.size(); ++i) {
      shifting = i;
      if (ranks[i].candidates[sourceIndex(chosen)] == 0) continue;
      TimeNs t = at(ranks[i].firstLayerAt);
      if (outOfRange) {
        return Error{ranks[i].source.path +
                     ": times out of range once the ranks' clocks are aligned (beyond ±2^62 ns)"};
      }
      if (!first || t < firstAt) first = &ranks[i], firstAt = t;
    }
    for (const RankDiagnosis& r : ranks) {
      if (r.candidates[sourceIndex(chosen)] > 0 && r.firstLayer != first->firstLayer)
        return differently(r.source.path + " starts its layer ranges with " + r.firstLayer + ", " +
                           first->source.path + " with " + first->firstLayer);
    }
  }

  // A step's annotated CPU time is zero, not unknown, where any rank annotates it.
  std::array<bool, 4> annotated{};
  for (const RankDiagnosis& r : ranks) {
    for (size_t c = 0; c < annotated.size(); ++c) annotated[c] = annotated[c] || r.annotated[c];
  }
  std::optional<TimeNs> Step::*const fields[4] = {&Step::dataLoader, &Step::forward,
                                                  &Step::backward, &Step::optimizer};

  // A run of one file is that file's session: its own rank number, GPUs without a rank label.
  const bool several = ranks.size() > 1;

  Diagnosis d;
  bool anyEvent = false;
  std::vector<Finding> findings;
  std::vector<uint64_t> notes(expertRules().size() + 1, 0);
  std::vector<bool> noted(notes.size(), false);
  std::vector<RankCollectives> collectives;
  std::vector<std::string> labels;
  std::vector<int32_t> numbers;
  for (size_t i = 0; i < ranks.size(); ++i) {
    RankDiagnosis& r = ranks[i];
    const int32_t number = several ? r.rank : r.sessionRank;
    shifting = i;
    if (!r.empty) {
      const TimeNs start = at(r.start);
      d.sessionStart = anyEvent ? std::min(d.sessionStart, start) : start;
      anyEvent = true;
    }
    const Judgement* j = judgementFor(r, chosen);
    if (!j) {
      return differently(r.source.path + " was not judged by " +
                         (chosen == StepSource::None ? std::string("its whole span")
                                                     : std::string(toString(chosen))));
    }
    for (Step st : j->steps) {
      if (chosen == StepSource::None) break;
      st.rank = static_cast<uint32_t>(i);
      st.rankNumber = number;
      st.start = at(st.start), st.end = at(st.end);
      if (st.ops)
        st.gpuStart = at(st.gpuStart), st.gpuEnd = at(st.gpuEnd), st.gpuFrom = at(st.gpuFrom);
      for (size_t c = 0; c < annotated.size(); ++c) {
        if (annotated[c] && !(st.*fields[c])) st.*fields[c] = 0;
      }
      d.steps.steps.push_back(st);
    }
    for (Finding f : j->findings) {
      f.rank = number;
      f.start = at(f.start), f.end = at(f.end);
      for (Interval& w : f.where) w = {at(w.start), at(w.end)};
      findings.push_back(std::move(f));
    }
    for (const RuleNote& n : j->notes) {
      const size_t k = std::min(ruleIndex(n.rule), notes.size() - 1);
      notes[k] = saturatingAdd(notes[k], n.count);
      noted[k] = true;
    }
    Diagnosis& o = r.operations;
    for (TemporalBreakdown& t : o.temporal) t.rank = number, d.temporal.push_back(t);
    for (TypeSetTime& t : o.kernelTypes) t.rank = number, d.kernelTypes.push_back(t);
    for (StreamIdle& t : o.idle) t.rank = number, d.idle.push_back(t);
    for (CommOverlap& t : o.commOverlap) t.rank = number, d.commOverlap.push_back(t);
    for (LaunchSummary& t : o.launch.byName) {
      t.rank = static_cast<uint32_t>(i), t.rankNumber = number;
      d.launch.byName.push_back(std::move(t));
    }
    for (StreamQueue& t : o.queues) t.rank = number, d.queues.push_back(t);
    d.launch.ops = saturatingAdd(d.launch.ops, o.launch.ops);
    d.launch.withLaunch = saturatingAdd(d.launch.withLaunch, o.launch.withLaunch);
    d.gpuOps = saturatingAdd(d.gpuOps, o.gpuOps);
    d.gpuOpsWithLaunch = saturatingAdd(d.gpuOpsWithLaunch, o.gpuOpsWithLaunch);
    d.gpuOpsInSession = saturatingAdd(d.gpuOpsInSession, o.gpuOpsInSession);
    for (auto& [name, starts] : r.collectives) {
      for (CommStart& c : starts) c.start = at(c.start);
    }
    collectives.push_back(std::move(r.collectives));
    labels.push_back(r.source.label);
    numbers.push_back(number);
    if (outOfRange) {
      return Error{r.source.path +
                   ": times out of range once the ranks' clocks are aligned (beyond ±2^62 ns)"};
    }
  }
  // Per stream, by rank number then stream number, as the session sorts them.
  auto byRankThenStream = [](const auto& a, const auto& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.streamId < b.streamId;
  };
  std::stable_sort(d.idle.begin(), d.idle.end(), byRankThenStream);
  std::stable_sort(d.queues.begin(), d.queues.end(), byRankThenStream);
  if (chosen != StepSource::None) {
    d.steps.source = toString(chosen);
    describeStepTimes(d.steps);
  }
  const auto& names = options.ruleNames;
  if (options.runRules && ranks.size() > 1 &&
      (names.empty() || std::find(names.begin(), names.end(), "straggler") != names.end())) {
    if (auto f = stragglerFinding(collectives, labels, numbers)) findings.push_back(std::move(*f));
  }
  // As the session's rules find them: rule by rule, rank by rank; then by cost.
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return ruleIndex(a.rule) < ruleIndex(b.rule);
  });
  rankByCost(findings);
  d.findings = std::move(findings);
  for (size_t k = 0; k < expertRules().size(); ++k) {
    if (noted[k] && notes[k] > 0)
      d.ruleNotes.push_back(ruleNoteText({std::string(expertRules()[k].name), notes[k]}));
  }
  return d;
}

}  // namespace ts
