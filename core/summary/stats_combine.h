// Rank files summarised apart (stats_summary.h) put together as the multi-rank session they make:
// the step that needs the I/O layer's rules for ranks (clock alignment, one job).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/stats_summary.h"
#include "io/open_session.h"

namespace ts {

// Rank files' summaries (each of one Source; any order) as the one summary of the session that
// opening them together gives: clocks aligned as openSessionFiles aligns them, ranks in file
// order. Refuses files of different jobs (world size) and a file given twice, naming them.
Result<StatsSummary> combineRankSummaries(std::vector<StatsSummary> files);

// The offsets that line up rank files' clocks as openSessionFiles lines them up, for `sources`
// sorted by index: a file given twice, or files of other jobs, are errors naming them.
Result<std::vector<TimeNs>> alignSources(const std::vector<const StatsSummary::Source*>& sources);

// Files `which` (indexes) of a job's rank files, each opened alone and handed to `use` (k: its
// place in `which`) on one of `open.threads` threads (0: one per core), then released. Damaged
// files: as openSessionFiles, every one named in one error (code Damaged); `incomplete` gets the
// notes of files opened without a damaged part (open.recover); an error of `use` is returned.
Status forEachRankFile(const std::vector<std::string>& files, const std::vector<size_t>& which,
                       const OpenOptions& open,
                       const std::function<Status(size_t k, RankFile& rank)>& use,
                       std::vector<std::string>* incomplete = nullptr,
                       const Progress& progress = {});
// What aligning the rank file at `path` (index `index` among the job's files) needs.
StatsSummary::Source rankSource(const std::string& path, size_t index, const RankFile& rank);

// Files `which` (indexes) of a job's rank files, each opened alone and summarised
// (the rank's events released at once), `open.threads` at a time (0: one per core); summaries in
// file order. Damaged files: as openSessionFiles, every one named in one error (code Damaged);
// `incomplete` gets the notes of files opened without a damaged part (open.recover).
Result<std::vector<StatsSummary>> summariseRankFiles(
    const std::vector<std::string>& files, const std::vector<size_t>& which,
    std::span<const StatsReport> reports, const StatsOptions& options, const OpenOptions& open,
    std::vector<std::string>* incomplete = nullptr, const Progress& progress = {});

}  // namespace ts
