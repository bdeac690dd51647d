// Summary reports in the manner of `nsys stats`: kernels, copies by kind and size, API calls, GPU
// utilisation over time with idle gaps, and copy/compute overlap — for the whole session or a
// time range, for all GPUs or one. The CLI prints them; the GUI's Statistics pane shows them.
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/stats_table.h"
#include "session/session.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

enum class StatsReport {
  KernSum,
  MemTime,
  MemSize,
  ApiSum,
  GpuUtil,
  Overlap,
  KernHist,
  LayerSum,
  // The diagnosis's breakdowns (analysis/diagnosis.h), HolisticTraceAnalysis's definitions.
  Steps,
  Temporal,
  KernelTypes,
  Idle,
  CommOverlap,
  Launch,
  Queue,
};

std::span<const StatsReport> allStatsReports();
std::string_view toString(StatsReport report);  // "kern_sum", ...
std::optional<StatsReport> statsReportFromString(std::string_view name);
std::string_view describe(StatsReport report);  // one line for help texts and the GUI

struct StatsOptions {
  // Range on the session's clock (absolute ns). Events that intersect it are counted whole;
  // busy time, gaps and overlap are clipped to it.
  TimeNs start = std::numeric_limits<TimeNs>::min();
  TimeNs end = std::numeric_limits<TimeNs>::max();
  uint32_t device = kNone;    // one GPU (index into Session::devices), or all of them
  bool perGpu = false;        // kern_sum, mem_time, mem_size: one row per GPU and name
  int buckets = 10;           // gpu_util: time buckets across the range
  TimeNs minGap = 1'000'000;  // gpu_util: idle gaps at least this long are listed
  size_t maxGaps = 50;        // ... the longest ones, at most this many
};

// One table for most reports; gpu_util gives two (utilisation, then idle gaps).
Result<std::vector<StatsTable>> computeStats(const Session& session, StatsReport report,
                                             const StatsOptions& options,
                                             const Progress& progress = {});

// Count, total, mean, median (mean of the middle two for even counts), min, max and sample
// standard deviation (n − 1; 0 for one value) of a set of values. Sorts `values`.
struct Distribution {
  int64_t count = 0;
  int64_t total = 0;
  int64_t min = 0;
  int64_t max = 0;
  double mean = 0;
  double median = 0;
  double stddev = 0;
};
Distribution describeValues(std::vector<int64_t>& values);

}  // namespace ts
