// `diagnose` over a job's rank files one rank at a time: each file is opened alone, diagnosed on
// its own clock into a RankDiagnosis (its events released at once), and the ranks' diagnoses are
// combined into the Diagnosis that opening every file together gives (tested: the same tables).
// What needs every rank is decided when combining: which mark of steps the session reads (the
// first that holds over all ranks), the step statistics and outliers, the straggler rule (whose
// collectives start last), the findings' order and the rules' notes. A rank is therefore judged
// ahead under each way the session may read its steps (RankDiagnosis::judgements).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/rules/rules.h"
#include "analysis/stats_summary.h"
#include "io/open_session.h"

namespace ts {

struct RankDiagnosis {
  StatsSummary::Source source;  // the file, its label and what aligning its clock needs
  int32_t rank = 0;             // its number in the job (RankFile::rank)
  int32_t sessionRank = 0;      // its number in its own session: a run of one file shows that
  bool empty = true;            // no event at all
  TimeNs start = 0, end = 0;    // its span, on its own clock
  // The figures that need no steps (diagnoseOperations), on the rank's own clock; steps,
  // findings and ruleNotes unused, gaps and launch.flagged dropped.
  Diagnosis operations;
  // Per StepSource (kStepSources order): how many steps the rank marks that way.
  std::array<uint64_t, 4> candidates{};
  // Whether it has ranges of data loading, forward, backward, optimizer (annotatedCpuTime): a
  // step leaves one empty only when no rank of the session has such ranges.
  std::array<bool, 4> annotated{};
  std::string firstLayer;  // its first forward/<layer> range's name (layer steps repeat it)
  TimeNs firstLayerAt = 0;
  // The rank judged as the session may judge it.
  struct Judgement {
    // Steps: the session reads its steps from `source` (the rank's of that source);
    // NoSteps: from a source this rank does not mark; Window: no rank marks steps, each is
    // judged over its span.
    enum class Kind : uint8_t { Steps, NoSteps, Window } kind = Kind::Steps;
    StepSource source = StepSource::None;
    std::vector<Step> steps;        // Steps: measured; Window: the rank's window
    std::vector<Finding> findings;  // in the order the rules found them
    std::vector<RuleNote> notes;
  };
  std::vector<Judgement> judgements;
  RankCollectives collectives;  // for the straggler rule
};

// The options a rank diagnosis depends on: equal for every rank combined. The range must be
// whole (a shard cannot know the session start the range is measured from).
bool sameDiagnoseOptions(const DiagnoseOptions& a, const DiagnoseOptions& b);
// What differs, as the command line says it: "--kernel-wait 1 µs against 30 ns".
std::string diagnoseOptionsDifference(const DiagnoseOptions& a, const DiagnoseOptions& b);

// One rank's session (`rank` opened alone: one rank, its own clock) diagnosed as its part of the
// job's session; `ofSeveral`: the job has other rank files (its GPUs are named with its rank then,
// as a multi-rank session names them).
Result<RankDiagnosis> diagnoseRank(const RankFile& rank, StatsSummary::Source source,
                                   const DiagnoseOptions& options, bool ofSeveral,
                                   const Progress& progress = {});

// Files `which` of a job's rank files diagnosed each alone, `open.threads` at a time (as
// summariseRankFiles); diagnoses in `which` order.
Result<std::vector<RankDiagnosis>> diagnoseRankFiles(const std::vector<std::string>& files,
                                                     const std::vector<size_t>& which,
                                                     const DiagnoseOptions& options,
                                                     const OpenOptions& open,
                                                     std::vector<std::string>* incomplete = nullptr,
                                                     const Progress& progress = {});

// The ranks' diagnoses (one file each, any order) as the diagnosis of the session that opening
// them together gives: clocks aligned as openSessionFiles aligns them, one job checked. When the
// ranks mark steps so differently that a rank was not judged the way the session reads them (its
// first layer range differs from the session's), an error that sets `markedDifferently`: diagnose
// the files as one session then.
Result<Diagnosis> combineRankDiagnoses(std::vector<RankDiagnosis> ranks,
                                       const DiagnoseOptions& options,
                                       bool* markedDifferently = nullptr);

}  // namespace ts
