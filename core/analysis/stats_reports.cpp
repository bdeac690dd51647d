#include "analysis/stats_reports.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/diagnosis_tables.h"
#include "analysis/intervals.h"
#include "analysis/stats_summary.h"
#include "util/format.h"
#include "util/saturate.h"

namespace ts {

namespace {

constexpr std::array kReports = {
    StatsReport::KernSum,     StatsReport::MemTime,     StatsReport::MemSize,
    StatsReport::ApiSum,      StatsReport::GpuUtil,     StatsReport::Overlap,
    StatsReport::KernHist,    StatsReport::LayerSum,    StatsReport::Steps,
    StatsReport::Temporal,    StatsReport::KernelTypes, StatsReport::Idle,
    StatsReport::CommOverlap, StatsReport::Launch,      StatsReport::Queue};

using Group = StatsSummary::Group;

bool gpuSelected(uint32_t device, const StatsOptions& o) {
  return device != kNone && (o.device == kNone || device == o.device);
}

// Whether GPU d has a row: the one asked for, else every GPU with any work.
bool deviceShown(const StatsSummary& sum, uint32_t d, const StatsOptions& o) {
  return o.device != kNone ? d == o.device : sum.devices[d].active;
}

StatsColumn col(std::string key, std::string title, StatsUnit unit) {
  return {std::move(key), std::move(title), unit};
}

// Time %, total, count, average, median, min, max, std dev — the nsys summary columns.
std::vector<StatsColumn> durationColumns(const char* countTitle) {
  return {col("time_pct", "Time %", StatsUnit::Percent),
          col("total_ns", "Total time", StatsUnit::Duration),
          col("count", countTitle, StatsUnit::Count),
          col("avg_ns", "Average", StatsUnit::Duration),
          col("med_ns", "Median", StatsUnit::Duration),
          col("min_ns", "Min", StatsUnit::Duration),
          col("max_ns", "Max", StatsUnit::Duration),
          col("stddev_ns", "Std dev", StatsUnit::Duration)};
}

void appendDurationCells(std::vector<StatsCell>& row, const Distribution& d, int64_t grandTotal) {
  row.emplace_back(grandTotal > 0
                       ? 100.0 * static_cast<double>(d.total) / static_cast<double>(grandTotal)
                       : 0.0);
  row.emplace_back(d.total);
  row.emplace_back(d.count);
  row.emplace_back(d.mean);
  row.emplace_back(d.median);
  row.emplace_back(d.min);
  row.emplace_back(d.max);
  row.emplace_back(d.stddev);
}

std::string gpuName(const StatsSummary& sum, uint32_t device) {
  return device == kNone ? "" : sum.devices[device].label;
}

std::string scopeNote(const StatsSummary& sum, const StatsOptions& o) {
  std::string note = "Scope: ";
  note += o.device == kNone ? "all GPUs" : sum.devices[o.device].label;
  if (o.start != std::numeric_limits<TimeNs>::min() ||
      o.end != std::numeric_limits<TimeNs>::max()) {
    const TimeNs from = std::max(o.start, sum.start) - sum.start,
                 to = std::min(o.end, sum.end) - sum.start;
    const auto [a, b] = formatEnds(from, to);
    note += "; range " + a + " to " + b + " from the session start";
  } else {
    note += "; whole session";
  }
  return note + ".";
}

// The groups a table shows: those of the chosen GPUs (`gpuOnly`), per GPU or all GPUs together,
// their values (or bytes) joined; `other` gets the other series' sum (memory groups).
struct Shown {
  uint32_t device;
  std::string label;
  Distribution d;
  int64_t other = 0;
};
std::vector<Shown> gather(const std::vector<Group>& groups, const StatsOptions& o, bool gpuOnly,
                          bool perGpu, bool bySize = false) {
  struct Parts {
    std::vector<const ValueRuns*> runs;
    int64_t other = 0;
  };
  std::map<std::pair<uint32_t, std::string>, Parts> by;
  for (const Group& g : groups) {
    if (gpuOnly && !gpuSelected(g.device, o)) continue;
    Parts& p = by[{perGpu ? g.device : kNone, g.label}];
    p.runs.push_back(bySize ? &g.bytes : &g.values);
    p.other = saturatingAdd(p.other, (bySize ? g.values : g.bytes).total());
  }
  std::vector<Shown> out;
  for (const auto& [key, p] : by)
    out.push_back({key.first, key.second, describeRuns(ValueRuns::joined(p.runs)), p.other});
  return out;
}

// The groups sorted by total, then by label for a stable order; `grand` gets the sum of the
// totals (for the time-share column).
std::vector<Shown> describeGroups(std::vector<Shown> groups, int64_t& grand) {
  grand = 0;
  for (const Shown& g : groups) grand = saturatingAdd(grand, g.d.total);
  std::sort(groups.begin(), groups.end(), [](const Shown& a, const Shown& b) {
    if (a.d.total != b.d.total) return a.d.total > b.d.total;
    if (a.label != b.label) return a.label < b.label;
    return a.device < b.device;
  });
  return groups;
}

StatsTable nameSummary(const StatsSummary& sum, const StatsOptions& o, bool gpu, const char* report,
                       const char* title, const char* countTitle) {
  const bool perGpu = gpu && o.perGpu;
  int64_t grand = 0;
  auto rows = describeGroups(gather(gpu ? sum.kernels : sum.api, o, gpu, perGpu), grand);
  StatsTable table{report, title, durationColumns(countTitle), {}, {}};
  if (perGpu) table.columns.push_back(col("gpu", "GPU", StatsUnit::Text));
  table.columns.push_back(col("name", "Name", StatsUnit::Text));
  for (const Shown& g : rows) {
    std::vector<StatsCell> row;
    appendDurationCells(row, g.d, grand);
    if (perGpu) row.emplace_back(gpuName(sum, g.device));
    row.emplace_back(g.label);
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(scopeNote(sum, o));
  if (!gpu && o.device != kNone)
    table.notes.push_back("API calls run on CPU threads: the GPU choice does not filter them.");
  table.notes.push_back(
      "Std dev is the sample standard deviation; events that cross the range's edges count whole.");
  return table;
}

// Copies by kind, memsets as one more operation, unified-memory migrations by kind apart from the
// copies: durations (mem_time) or bytes (mem_size).
StatsTable memorySummary(const StatsSummary& sum, const StatsOptions& o, bool bySize) {
  int64_t grand = 0;
  auto rows = describeGroups(gather(sum.memory, o, true, o.perGpu, bySize), grand);
  StatsTable table;
  table.report = bySize ? "mem_size" : "mem_time";
  table.title = bySize ? "GPU memory operations by size" : "GPU memory operations by time";
  if (bySize) {
    table.columns = {col("total_bytes", "Total", StatsUnit::Bytes),
                     col("count", "Count", StatsUnit::Count),
                     col("avg_bytes", "Average", StatsUnit::Bytes),
                     col("med_bytes", "Median", StatsUnit::Bytes),
                     col("min_bytes", "Min", StatsUnit::Bytes),
                     col("max_bytes", "Max", StatsUnit::Bytes),
                     col("stddev_bytes", "Std dev", StatsUnit::Bytes)};
  } else {
    table.columns = durationColumns("Count");
  }
  table.columns.push_back(col("bandwidth", "Bandwidth", StatsUnit::Bandwidth));
  if (o.perGpu) table.columns.push_back(col("gpu", "GPU", StatsUnit::Text));
  table.columns.push_back(col("operation", "Operation", StatsUnit::Text));
  for (const Shown& g : rows) {
    std::vector<StatsCell> row;
    const Distribution& d = g.d;
    const int64_t bytes = bySize ? d.total : g.other, time = bySize ? g.other : d.total;
    if (bySize) {
      row = {d.total, d.count, d.mean, d.median, d.min, d.max, d.stddev};
    } else {
      appendDurationCells(row, g.d, grand);
    }
    // Achieved bandwidth: all bytes over all busy time of the operation.
    row.emplace_back(time > 0 ? static_cast<double>(bytes) * 1e9 / static_cast<double>(time) : 0.0);
    if (o.perGpu) row.emplace_back(gpuName(sum, g.device));
    row.emplace_back(g.label);
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(scopeNote(sum, o));
  table.notes.push_back("Bandwidth = total bytes / total time of the operation's copies.");
  return table;
}

std::vector<StatsTable> gpuUtilisation(const StatsSummary& sum, const StatsOptions& o) {
  const TimeNs start = std::max(o.start, sum.start), end = std::min(o.end, sum.end);
  StatsTable util{"gpu_util", "GPU utilisation (kernels running) over time", {}, {}, {}};
  util.columns = {col("row", "GPU / stream", StatsUnit::Text),
                  col("kernels", "Kernels", StatsUnit::Count),
                  col("busy_pct", "Busy %", StatsUnit::Percent)};
  for (int b = 0; b < o.buckets; ++b) {
    auto [bs, be] = bucketBounds(start, end, o.buckets, b);
    // "+0 s" for the first, in its end's unit, not "+0 ns".
    const std::string from = formatEnds(bs - sum.start, be - sum.start).first;
    util.columns.push_back(col("bucket_" + std::to_string(b), "+" + from, StatsUnit::Percent));
  }
  StatsTable gaps{"gpu_gaps",
                  "GPU idle gaps (no kernel running) of at least " + formatDuration(o.minGap),
                  {},
                  {},
                  {}};
  gaps.columns = {col("gpu", "GPU", StatsUnit::Text),
                  col("start_ns", "Start", StatsUnit::Timestamp),
                  col("duration_ns", "Duration", StatsUnit::Duration),
                  col("cpu", "CPU activity meanwhile", StatsUnit::Text)};
  const TimeNs span = end - start;
  auto addRow = [&](const std::string& label, int64_t kernels, const std::vector<Interval>& iv) {
    std::vector<StatsCell> row{
        label, kernels,
        span > 0 ? 100.0 * static_cast<double>(coveredLength(iv)) / static_cast<double>(span)
                 : 0.0};
    for (double f : bucketCoverage(iv, start, end, o.buckets)) row.emplace_back(100.0 * f);
    util.rows.push_back(std::move(row));
  };
  int64_t total = 0;
  for (uint32_t d = 0; d < sum.devices.size(); ++d) {
    if (!deviceShown(sum, d, o)) continue;
    const StatsSummary::Device& device = sum.devices[d];
    addRow(device.label, device.kernels, device.busy);
    for (const StatsSummary::StreamBusy& st : device.streams) addRow(st.label, st.kernels, st.busy);
    total += device.gaps;
  }
  std::vector<const StatsSummary::Gap*> listed;
  for (const StatsSummary::Gap& g : sum.gaps) {
    if (deviceShown(sum, g.device, o)) listed.push_back(&g);
  }
  // Longest first: the gaps worth a look lead the list.
  std::sort(listed.begin(), listed.end(), [](const auto* a, const auto* b) {
    if (a->at.length() != b->at.length()) return a->at.length() > b->at.length();
    if (a->at.start != b->at.start) return a->at.start < b->at.start;
    return a->device < b->device;
  });
  if (listed.size() > o.maxGaps) listed.resize(o.maxGaps);
  for (const StatsSummary::Gap* g : listed) {
    gaps.rows.push_back(
        {sum.devices[g->device].label, g->at.start - sum.start, g->at.length(), g->cpu});
  }
  util.notes.push_back(scopeNote(sum, o));
  util.notes.push_back(
      "Busy = at least one kernel running (concurrent kernels count once); bucket columns are "
      "named by their start from the session start.");
  gaps.notes.push_back(
      std::to_string(total) + " gaps of at least " + formatDuration(o.minGap) +
      " between kernels (shorter ones not counted); the " + std::to_string(gaps.rows.size()) +
      " longest listed. Start is from the session start; CPU activity = what the GPU's rank's "
      "threads did meanwhile: CUDA API calls first, then ranges inside the gap, each with the "
      "share of the gap its calls cover (×N: that many calls), then the innermost range around "
      "the whole gap (\"in …\").");
  return {std::move(util), std::move(gaps)};
}

StatsTable copyOverlap(const StatsSummary& sum, const StatsOptions& o) {
  StatsTable table{"overlap", "Copy time overlapped by compute", {}, {}, {}};
  table.columns = {col("gpu", "GPU", StatsUnit::Text),
                   col("copy_kind", "Copies", StatsUnit::Text),
                   col("count", "Count", StatsUnit::Count),
                   col("copy_ns", "Copy time", StatsUnit::Duration),
                   col("overlap_ns", "Overlapped", StatsUnit::Duration),
                   col("overlap_pct", "Overlapped %", StatsUnit::Percent),
                   col("exposed_ns", "Exposed", StatsUnit::Duration),
                   col("compute_ns", "Compute time", StatsUnit::Duration)};
  for (const StatsSummary::OverlapRow& r : sum.overlap) {
    if (!deviceShown(sum, r.device, o)) continue;
    table.rows.push_back(
        {sum.devices[r.device].label, r.kind, r.count, r.copy, r.overlap,
         r.copy > 0 ? 100.0 * static_cast<double>(r.overlap) / static_cast<double>(r.copy) : 0.0,
         r.copy - r.overlap, r.compute});
  }
  table.notes.push_back(scopeNote(sum, o));
  table.notes.push_back(
      "Copy and compute time are unions of intervals (concurrent work counts once), clipped to the "
      "range; Exposed = copy time with no kernel running on that GPU. Memsets are not counted; "
      "unified-memory migrations (the driver moving pages) have rows of their own, not in "
      "\"all\".");
  return table;
}

// Kernel durations in log-spaced bins, four per decade (1 ns, 1.78 ns, 3.16 ns, 5.62 ns, 10 ns,
// ...), from the shortest kernel's bin to the longest's: the shape of a run's kernels at a glance.
StatsTable durationHistogram(const StatsSummary& sum, const StatsOptions& o) {
  constexpr int kPerDecade = 4;
  std::vector<const ValueRuns*> parts;
  for (const Group& g : sum.kernels) {
    if (gpuSelected(g.device, o)) parts.push_back(&g.values);
  }
  const ValueRuns all = parts.empty() ? ValueRuns{} : ValueRuns::joined(parts);
  // Kernels the trace gives no duration (below its resolution) apart: a log scale has no bin
  // for 0.
  size_t zeros = 0, first = 0;
  for (; first < all.value.size() && all.value[first] <= 0; ++first)
    zeros += static_cast<size_t>(all.count[first]);
  StatsTable table{"kern_hist", "Kernel durations (log-spaced bins)", {}, {}, {}};
  table.columns = {col("bin_start_ns", "From", StatsUnit::Duration),
                   col("bin_end_ns", "To", StatsUnit::Duration),
                   col("count", "Kernels", StatsUnit::Count),
                   col("count_pct", "Kernels %", StatsUnit::Percent),
                   col("total_ns", "Total time", StatsUnit::Duration),
                   col("time_pct", "Time %", StatsUnit::Percent)};
  table.notes.push_back(scopeNote(sum, o));
  table.notes.push_back(
      "Bins are four per decade; a kernel of duration d falls in the bin with From <= d < To; "
      "kernels of zero duration (shorter than the trace's resolution) have a row of their own.");
  const auto n = static_cast<double>(all.size());
  if (zeros > 0) {
    table.rows.push_back({int64_t{0}, int64_t{0}, static_cast<int64_t>(zeros),
                          100.0 * static_cast<double>(zeros) / n, int64_t{0}, 0.0});
  }
  if (first == all.value.size()) return table;
  auto binOf = [](int64_t d) {
    return static_cast<int>(std::floor(std::log10(static_cast<double>(d)) * kPerDecade + 1e-9));
  };
  auto edge = [](int bin) {
    return static_cast<int64_t>(
        std::llround(std::pow(10.0, static_cast<double>(bin) / kPerDecade)));
  };
  const int firstBin = binOf(all.value[first]), lastBin = binOf(all.value.back());
  std::vector<int64_t> counts(static_cast<size_t>(lastBin - firstBin + 1), 0),
      totals(counts.size(), 0);
  int64_t time = 0;
  for (size_t r = first; r < all.value.size(); ++r) {
    auto i = static_cast<size_t>(binOf(all.value[r]) - firstBin);
    const int64_t t = saturatingMul(all.value[r], all.count[r]);
    counts[i] = saturatingAdd(counts[i], all.count[r]);
    totals[i] = saturatingAdd(totals[i], t);
    time = saturatingAdd(time, t);
  }
  for (size_t i = 0; i < counts.size(); ++i) {
    int bin = firstBin + static_cast<int>(i);
    table.rows.push_back(
        {edge(bin), edge(bin + 1), counts[i], 100.0 * static_cast<double>(counts[i]) / n, totals[i],
         time > 0 ? 100.0 * static_cast<double>(totals[i]) / static_cast<double>(time) : 0.0});
  }
  return table;
}

// kern_sum grouped by layer (summariseLayers says which kernel belongs to which).
StatsTable layerSummary(const StatsSummary& sum, const StatsOptions& o) {
  int64_t grand = 0;
  auto rows = describeGroups(gather(sum.layers, o, true, o.perGpu), grand);
  StatsTable table{"layer_sum", "GPU kernels by layer", durationColumns("Kernels"), {}, {}};
  table.columns.insert(table.columns.begin(), col("layer", "Layer (phase)", StatsUnit::Text));
  if (o.perGpu) table.columns.push_back(col("gpu", "GPU", StatsUnit::Text));
  for (const Shown& g : rows) {
    std::vector<StatsCell> row{g.label};
    appendDurationCells(row, g.d, grand);
    if (o.perGpu) row.emplace_back(gpuName(sum, g.device));
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(scopeNote(sum, o));
  table.notes.push_back(
      !sum.layerRanges
          ? "No NVTX forward/<layer>, backward/<layer> or update/<layer> range launched a kernel: "
            "every kernel is in '(no layer)'."
          : "A kernel counts for the layer range around the API call that launched it.");
  return table;
}

Status checkOptions(size_t devices, const StatsOptions& o) {
  if (o.device != kNone && o.device >= devices) {
    return Error{"no GPU " + std::to_string(o.device) + ": the session has " +
                 std::to_string(devices)};
  }
  if (o.end <= o.start) return Error{"the range is empty (its end is not after its start)"};
  if (o.buckets < 1 || o.buckets > 1000) return Error{"buckets must be between 1 and 1000"};
  if (o.minGap < 0) return Error{"the minimum gap must not be negative"};
  return {};
}

}  // namespace

Result<std::vector<StatsTable>> renderStats(const StatsSummary& sum, StatsReport report,
                                            const StatsOptions& o) {
  TS_RETURN_IF_ERROR(checkOptions(sum.devices.size(), o));
  if (std::find(sum.reports.begin(), sum.reports.end(), report) == sum.reports.end())
    return Error{"the summary was not made for the report " + std::string(toString(report))};
  std::vector<StatsTable> out;
  switch (report) {
    case StatsReport::KernSum:
      out.push_back(
          nameSummary(sum, o, true, "kern_sum", "GPU kernels by total time", "Instances"));
      break;
    case StatsReport::MemTime:
      out.push_back(memorySummary(sum, o, false));
      break;
    case StatsReport::MemSize:
      out.push_back(memorySummary(sum, o, true));
      break;
    case StatsReport::ApiSum:
      out.push_back(nameSummary(sum, o, false, "api_sum", "CUDA API calls by total time", "Calls"));
      break;
    case StatsReport::GpuUtil:
      out = gpuUtilisation(sum, o);
      break;
    case StatsReport::Overlap:
      out.push_back(copyOverlap(sum, o));
      break;
    case StatsReport::KernHist:
      out.push_back(durationHistogram(sum, o));
      break;
    case StatsReport::LayerSum:
      out.push_back(layerSummary(sum, o));
      break;
    default:
      return Error{std::string(toString(report)) + " is not made from a summary"};
  }
  return out;
}

std::span<const StatsReport> allStatsReports() {
  return kReports;
}

std::string_view toString(StatsReport r) {
  switch (r) {
    case StatsReport::KernSum:
      return "kern_sum";
    case StatsReport::MemTime:
      return "mem_time";
    case StatsReport::MemSize:
      return "mem_size";
    case StatsReport::ApiSum:
      return "api_sum";
    case StatsReport::GpuUtil:
      return "gpu_util";
    case StatsReport::Overlap:
      return "overlap";
    case StatsReport::KernHist:
      return "kern_hist";
    case StatsReport::LayerSum:
      return "layer_sum";
    case StatsReport::Steps:
      return "steps";
    case StatsReport::Temporal:
      return "temporal";
    case StatsReport::KernelTypes:
      return "kernel_types";
    case StatsReport::Idle:
      return "idle";
    case StatsReport::CommOverlap:
      return "comm_overlap";
    case StatsReport::Launch:
      return "launch";
    case StatsReport::Queue:
      return "queue";
  }
  return "kern_sum";
}

std::string_view describe(StatsReport r) {
  switch (r) {
    case StatsReport::KernSum:
      return "GPU kernels by name: time share, total, count, average, median, min, max, std dev";
    case StatsReport::MemTime:
      return "copies by kind and memsets: time, count and achieved bandwidth";
    case StatsReport::MemSize:
      return "copies by kind and memsets: bytes, count and achieved bandwidth";
    case StatsReport::ApiSum:
      return "CUDA API calls by name: time share, total, count and spread";
    case StatsReport::GpuUtil:
      return "busy % per GPU and stream over time buckets, and the longest idle gaps";
    case StatsReport::Overlap:
      return "copy time overlapped by kernels, per GPU and copy kind";
    case StatsReport::KernHist:
      return "kernel durations in log-spaced bins: count and time per bin";
    case StatsReport::LayerSum:
      return "GPU kernels by model layer (NVTX forward/<layer>, backward/<layer>, update/<layer> "
             "around their launches)";
    case StatsReport::Steps:
      return "per training step: time, GPU busy by kind, idle by cause, exposed communication, "
             "data loading";
    case StatsReport::Temporal:
      return "per rank: kernel span, idle, compute and non-compute time (HTA's temporal "
             "breakdown)";
    case StatsReport::KernelTypes:
      return "per rank: time computing, communicating (nccl*), moving memory, and each overlap";
    case StatsReport::Idle:
      return "per stream: idle time by cause (host wait, kernel wait, other, unknown)";
    case StatsReport::CommOverlap:
      return "per rank: share of communication time overlapped by computation";
    case StatsReport::Launch:
      return "per operation name: CPU launch time, GPU time, launch delay, short operations and "
             "outliers";
    case StatsReport::Queue:
      return "per stream: outstanding operations (max, mean) and time blocked on a full queue";
  }
  return "";
}

std::optional<StatsReport> statsReportFromString(std::string_view name) {
  for (StatsReport r : kReports) {
    if (toString(r) == name) return r;
  }
  return std::nullopt;
}

Distribution describeValues(std::vector<int64_t>& v) {
  Distribution d;
  d.count = static_cast<int64_t>(v.size());
  if (v.empty()) return d;
  // Sorted first: the sums below then run in one order whatever order the values came in, so
  // that ranks summarised apart and combined give the very same figures as one session.
  std::sort(v.begin(), v.end());
  d.min = v.front(), d.max = v.back();
  for (int64_t x : v) d.total += x;
  d.mean = static_cast<double>(d.total) / static_cast<double>(v.size());
  double m2 = 0;
  for (int64_t x : v) m2 += (static_cast<double>(x) - d.mean) * (static_cast<double>(x) - d.mean);
  d.stddev = v.size() > 1 ? std::sqrt(m2 / static_cast<double>(v.size() - 1)) : 0.0;
  const size_t mid = v.size() / 2;
  d.median = v.size() % 2 ? static_cast<double>(v[mid])
                          : (static_cast<double>(v[mid - 1]) + static_cast<double>(v[mid])) / 2.0;
  return d;
}

Result<std::vector<StatsTable>> computeStats(const Session& s, StatsReport report,
                                             const StatsOptions& o, const Progress& progress) {
  TS_RETURN_IF_ERROR(checkOptions(s.devices.size(), o));
  std::vector<StatsTable> out;
  if (summarisable(report)) {
    // The same tables as rank files summarised one by one and combined (stats_summary.h).
    const StatsReport one[] = {report};
    StatsSummary sum = summariseStats(s, one, o, progress);
    if (progress.cancelled()) return Error::cancelled();
    auto tables = renderStats(sum, report, o);
    if (!tables) return tables.failure();
    out = std::move(*tables);
  } else {
    DiagnoseOptions d;
    d.range = {o.start, o.end};
    d.runRules = false;
    auto diagnosis = diagnose(s, d, progress);
    if (!diagnosis) return diagnosis.failure();
    DiagnosisTable which = report == StatsReport::Steps         ? DiagnosisTable::Steps
                           : report == StatsReport::Temporal    ? DiagnosisTable::Temporal
                           : report == StatsReport::KernelTypes ? DiagnosisTable::KernelTypes
                           : report == StatsReport::Idle        ? DiagnosisTable::Idle
                           : report == StatsReport::Launch      ? DiagnosisTable::Launch
                           : report == StatsReport::Queue       ? DiagnosisTable::Queue
                                                                : DiagnosisTable::CommOverlap;
    out.push_back(diagnosisTable(*diagnosis, which));
    // A rank is the unit of these figures: one GPU of it cannot be picked out.
    if (o.device != kNone)
      out.back().notes.push_back("Per rank: --gpu does not apply to this report.");
  }
  if (progress.cancelled()) return Error::cancelled();
  progress.update(1.0);
  return out;
}

}  // namespace ts
