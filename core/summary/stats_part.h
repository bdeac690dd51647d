// A shard's part of `stats` over a job's rank files: `stats --shard I/N --summary-out PART`
// summarises every N-th file (from the I-th), each alone, into PART; `merge PART...` checks that
// the parts are of one job, one set of options and cover every file once, and renders the tables
// the whole multi-rank session gives. A SLURM array, mpirun or torchrun spreads the shards.
#pragma once

#include <string>
#include <vector>

#include "analysis/stats_summary.h"

namespace ts {

struct StatsPart {
  std::vector<std::string> files;  // every rank file of the job, in the order given
  size_t shard = 0, shards = 1;    // this part holds files shard, shard + shards, ...
  std::vector<StatsReport> reports;
  // How the tables are rendered: device, perGpu, buckets; minGap and maxGaps also chose the gaps
  // summarised. The range is always the whole session (a shard cannot know the session start).
  StatsOptions options;
  std::vector<StatsSummary> ranks;  // this shard's files, each summarised alone
};

// The files of shard `shard` of `shards`: indexes shard, shard + shards, ...
std::vector<size_t> shardFiles(size_t files, size_t shard, size_t shards);

std::string statsPartToJson(const StatsPart& part);
// Errors name `path` and what is wrong with it.
Result<StatsPart> statsPartFromJson(const std::string& path, std::string_view text);

// The parts of one run as the summary of the whole session, with the options and reports they
// were made with. Errors name the part files: parts of other files, options or shard counts, a
// shard given twice, files no part holds.
struct MergedStats {
  StatsSummary summary;
  std::vector<StatsReport> reports;
  StatsOptions options;
};
Result<MergedStats> mergeStatsParts(std::vector<StatsPart> parts,
                                    const std::vector<std::string>& partPaths);

}  // namespace ts
