// What the `stats` reports need of a session, kept in a form that adds up across ranks: the
// values behind each distribution, each GPU's busy intervals, its longest idle gaps with what the
// CPU did meanwhile, its copy/compute overlap. A summary is made of one rank file at a time (and
// the rank's events released), combined with the other ranks' summaries — made on other threads,
// in other processes, on other machines — and rendered as the same tables the whole multi-rank
// session gives (tested): how many large rank files are summarised with bounded memory, and how
// a cluster's own launcher spreads the work (`stats --shard I/N`, `merge`).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/stats_reports.h"

namespace ts {

// A multiset of values as runs of one value, sorted by value: traces repeat durations and sizes
// (a kernel's time at the trace's resolution, a copy's bytes), so a rank's values take a fraction
// of a number per event (real Kineto traces: 2 to 21 events per run).
struct ValueRuns {
  std::vector<int64_t> value;  // ascending, distinct
  std::vector<int64_t> count;  // how many times each, at least 1

  static ValueRuns of(std::vector<int64_t> values);  // sorts
  // All of them together (runs of equal values joined).
  static ValueRuns joined(const std::vector<const ValueRuns*>& parts);
  int64_t size() const;   // values, counting repeats
  int64_t total() const;  // their sum
};

// Count, total, mean, median, min, max and sample standard deviation of the values, as
// describeValues gives them for the values written out (the spread summed run by run: it may
// differ in its last bits; every stats table is made this way, so the tables agree exactly).
Distribution describeRuns(const ValueRuns& runs);

struct StatsSummary {
  // A rank file summarised on its own, on its own clock: what aligning it with the others needs.
  struct Source {
    std::string path;
    size_t index = 0;   // the file's place among all the job's files (its rank when unnamed)
    std::string label;  // "rank r / host"
    bool absoluteClock = false;  // as ImportInfo (io/import_info.h) says of the file
    TimeNs firstTimestamp = 0;
    int64_t worldSize = -1;
    TimeNs clockOffset = 0;  // the file's own clock offset
  };
  struct StreamBusy {
    std::string label;  // "Stream 7"
    int64_t kernels = 0;
    std::vector<Interval> busy;  // merged
  };
  struct Device {
    uint32_t source = 0;  // index into sources (0 for a session's own summary)
    std::string label;    // "GPU 0: H100" (a session's summary: with its rank, as shown)
    bool active = false;  // has any event or counter sample
    int64_t kernels = 0;
    std::vector<Interval> busy;  // kernels running, merged, clipped to the range
    std::vector<StreamBusy> streams;
    int64_t gaps = 0;  // idle gaps of at least the minimum length
  };
  // Values by label (kernel name, API name, copy kind, layer), per GPU (kNone: not on a GPU).
  struct Group {
    uint32_t device = kNone;
    std::string label;
    ValueRuns values;  // durations (ns)
    ValueRuns bytes;   // memory groups: the operations' sizes
  };
  struct Gap {
    uint32_t device = 0;
    Interval at;
    std::string cpu;  // what the rank's CPU threads did meanwhile
  };
  struct OverlapRow {
    uint32_t device = 0;
    std::string kind;  // "all", "HtoD", ...
    int64_t count = 0;
    TimeNs copy = 0, overlap = 0, compute = 0;
  };

  std::vector<StatsReport> reports;  // the reports it can render
  std::vector<Source> sources;       // empty: the summary of a whole (aligned) session
  bool empty = true;                 // no event at all: start and end mean nothing
  TimeNs start = 0, end = 0;         // the session's span
  std::vector<Device> devices;
  std::vector<Group> kernels, api, memory, layers;
  bool layerRanges = false;  // an NVTX layer range launched a kernel
  std::vector<Gap> gaps;     // per GPU its longest (maxGaps), longest first
  std::vector<OverlapRow> overlap;
};

// Those of the reports that a summary renders: the diagnosis's reports need the session.
bool summarisable(StatsReport report);

// The summary of a session for these reports, over options.start/end (minGap, maxGaps choose the
// gaps kept; device, perGpu, buckets apply when rendering).
StatsSummary summariseStats(const Session& session, std::span<const StatsReport> reports,
                            const StatsOptions& options, const Progress& progress = {});

// The tables of one report, as computeStats gives them for the session summarised.
Result<std::vector<StatsTable>> renderStats(const StatsSummary& summary, StatsReport report,
                                            const StatsOptions& options);

}  // namespace ts
