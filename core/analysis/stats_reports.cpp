#include "analysis/stats_reports.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/diagnosis_tables.h"
#include "analysis/intervals.h"
#include "util/format.h"

namespace ts {

namespace {

constexpr std::array kReports = {
    StatsReport::KernSum,     StatsReport::MemTime,     StatsReport::MemSize,
    StatsReport::ApiSum,      StatsReport::GpuUtil,     StatsReport::Overlap,
    StatsReport::KernHist,    StatsReport::LayerSum,    StatsReport::Steps,
    StatsReport::Temporal,    StatsReport::KernelTypes, StatsReport::Idle,
    StatsReport::CommOverlap, StatsReport::Launch,      StatsReport::Queue};

// The events of a track that intersect [start, end), lane by lane.
template <class F>
void forEachInRange(const Track& t, TimeNs start, TimeNs end, F&& f) {
  for (uint32_t lane = 0; lane < t.laneCount(); ++lane) {
    LaneSpan span = t.laneRange(lane, start, end);
    for (uint32_t p = span.begin; p < span.end; ++p) f(t.laneEvent(lane, p));
  }
}

bool gpuTrackSelected(const Track& t, const StatsOptions& o) {
  return t.device != kNone && (o.device == kNone || t.device == o.device);
}

// Values grouped by a key (name, operation), optionally per GPU, in first-seen order.
struct Groups {
  struct Group {
    uint32_t device = kNone;
    std::string label;
    std::vector<int64_t> values;
    std::vector<int64_t> extra;  // second series (durations of copies measured by size)
  };
  std::unordered_map<uint64_t, size_t> index;
  std::vector<Group> groups;

  template <class Label>
  Group& at(uint32_t device, uint32_t key, const Label& label) {
    uint64_t k = (static_cast<uint64_t>(device) << 32) | key;
    auto [it, fresh] = index.try_emplace(k, groups.size());
    if (fresh) groups.push_back({device, label(), {}, {}});
    return groups[it->second];
  }
};

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

std::string gpuName(const Session& s, uint32_t device) {
  return device == kNone ? "" : s.deviceLabel(device);
}

std::string scopeNote(const Session& s, const StatsOptions& o) {
  std::string note = "Scope: ";
  note += o.device == kNone ? "all GPUs" : s.deviceLabel(o.device);
  if (o.start != std::numeric_limits<TimeNs>::min() ||
      o.end != std::numeric_limits<TimeNs>::max()) {
    const TimeNs from = std::max(o.start, s.startTime()) - s.startTime(),
                 to = std::min(o.end, s.endTime()) - s.startTime();
    const auto [a, b] = formatEnds(from, to);
    note += "; range " + a + " to " + b + " from the session start";
  } else {
    note += "; whole session";
  }
  return note + ".";
}

// Each group's distribution, sorted by total, then by label for a stable order; `grand` gets the
// sum of the totals (for the time-share column).
std::vector<std::pair<Distribution, const Groups::Group*>> describeGroups(Groups& groups,
                                                                          int64_t& grand) {
  std::vector<std::pair<Distribution, const Groups::Group*>> rows;
  grand = 0;
  for (auto& g : groups.groups) {
    rows.emplace_back(describeValues(g.values), &g);
    grand += rows.back().first.total;
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.first.total != b.first.total) return a.first.total > b.first.total;
    if (a.second->label != b.second->label) return a.second->label < b.second->label;
    return a.second->device < b.second->device;
  });
  return rows;
}

StatsTable nameSummary(const Session& s, const StatsOptions& o, EventKind kind, const char* report,
                       const char* title, const char* countTitle) {
  const bool gpu = kind == EventKind::Kernel;
  Groups groups;
  for (const Track& t : s.tracks) {
    if (t.kind != kind || (gpu && !gpuTrackSelected(t, o))) continue;
    uint32_t device = gpu && o.perGpu ? t.device : kNone;
    forEachInRange(t, o.start, o.end, [&](uint32_t e) {
      StringId name = t.hot.name[e];
      groups.at(device, name, [&] { return std::string(s.str(name)); })
          .values.push_back(t.hot.end[e] - t.hot.start[e]);
    });
  }
  int64_t grand = 0;
  auto rows = describeGroups(groups, grand);
  StatsTable table{report, title, durationColumns(countTitle), {}, {}};
  if (gpu && o.perGpu) table.columns.push_back(col("gpu", "GPU", StatsUnit::Text));
  table.columns.push_back(col("name", "Name", StatsUnit::Text));
  for (const auto& [d, g] : rows) {
    std::vector<StatsCell> row;
    appendDurationCells(row, d, grand);
    if (gpu && o.perGpu) row.emplace_back(gpuName(s, g->device));
    row.emplace_back(g->label);
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(scopeNote(s, o));
  if (!gpu && o.device != kNone)
    table.notes.push_back("API calls run on CPU threads: the GPU choice does not filter them.");
  table.notes.push_back(
      "Std dev is the sample standard deviation; events that cross the range's edges count whole.");
  return table;
}

// Copies by kind, memsets as one more operation, unified-memory migrations by kind apart from the
// copies: durations (mem_time) or bytes (mem_size).
StatsTable memorySummary(const Session& s, const StatsOptions& o, bool bySize) {
  Groups groups;
  constexpr uint32_t kMemsetKey = kCopyKindCount, kMigrationKey = kCopyKindCount + 1;
  for (const Track& t : s.tracks) {
    if ((t.kind != EventKind::Memcpy && t.kind != EventKind::Memset) || !gpuTrackSelected(t, o))
      continue;
    uint32_t device = o.perGpu ? t.device : kNone;
    forEachInRange(t, o.start, o.end, [&](uint32_t e) {
      bool memset = t.kind == EventKind::Memset;
      const bool migration = !memset && t.memcpys.migration[e];
      const uint32_t kind = memset ? 0 : static_cast<uint32_t>(t.memcpys.copyKind[e]);
      uint32_t key = memset ? kMemsetKey : migration ? kMigrationKey + kind : kind;
      auto label = [&] {
        return memset ? std::string("Memset") : copyLabel(static_cast<CopyKind>(kind), migration);
      };
      Groups::Group& g = groups.at(device, key, label);
      int64_t bytes = static_cast<int64_t>(memset ? t.memsets.bytes[e] : t.memcpys.bytes[e]);
      int64_t duration = t.hot.end[e] - t.hot.start[e];
      g.values.push_back(bySize ? bytes : duration);
      g.extra.push_back(bySize ? duration : bytes);
    });
  }
  int64_t grand = 0;
  auto rows = describeGroups(groups, grand);
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
  for (const auto& [d, g] : rows) {
    std::vector<StatsCell> row;
    int64_t other = 0;
    for (int64_t v : g->extra) other += v;
    int64_t bytes = bySize ? d.total : other, time = bySize ? other : d.total;
    if (bySize) {
      row = {d.total, d.count, d.mean, d.median, d.min, d.max, d.stddev};
    } else {
      appendDurationCells(row, d, grand);
    }
    // Achieved bandwidth: all bytes over all busy time of the operation.
    row.emplace_back(time > 0 ? static_cast<double>(bytes) * 1e9 / static_cast<double>(time) : 0.0);
    if (o.perGpu) row.emplace_back(gpuName(s, g->device));
    row.emplace_back(g->label);
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(scopeNote(s, o));
  table.notes.push_back("Bandwidth = total bytes / total time of the operation's copies.");
  return table;
}

// Effective range: the requested one clipped to the session.
std::pair<TimeNs, TimeNs> clippedRange(const Session& s, const StatsOptions& o) {
  return {std::max(o.start, s.startTime()), std::min(o.end, s.endTime())};
}

std::vector<Interval> busyIntervals(const Track& t, TimeNs start, TimeNs end) {
  std::vector<Interval> iv;
  forEachInRange(t, start, end, [&](uint32_t e) {
    iv.push_back({std::max(t.hot.start[e], start), std::min(t.hot.end[e], end)});
  });
  return iv;
}

// What the CPU threads of the GPU's rank did during [g.start, g.end), most telling first: the CUDA
// API calls (the GPU often waits on cudaMalloc or a synchronisation), then ranges inside or
// across the gap, then — once — the innermost range around all of it ("in aten::addmm"). Calls of
// one name add up: twelve cudaMalloc calls may fill a gap that no single one does.
std::string cpuActivity(const Session& s, uint32_t device, const Interval& g) {
  uint32_t rank = s.devices[device].rank;
  struct Activity {
    TimeNs overlap = 0;                                  // summed over its events, at most the gap
    TimeNs length = std::numeric_limits<TimeNs>::max();  // its shortest event
    size_t count = 0;
    bool api = false;
    bool enclosing = true;  // every event of it covers the whole gap
  };
  std::map<std::string, Activity> by;
  for (const Track& t : s.tracks) {
    if (t.thread == kNone || s.processes[s.threads[t.thread].process].rank != rank) continue;
    if (t.kind != EventKind::Api && t.kind != EventKind::Nvtx && t.kind != EventKind::Range)
      continue;
    forEachInRange(t, g.start, g.end, [&](uint32_t e) {
      Activity& a = by[std::string(s.str(t.hot.name[e]))];
      a.overlap += std::min(t.hot.end[e], g.end) - std::max(t.hot.start[e], g.start);
      a.length = std::min(a.length, t.hot.end[e] - t.hot.start[e]);
      ++a.count;
      a.api = a.api || t.kind == EventKind::Api;
      a.enclosing = a.enclosing && t.hot.start[e] <= g.start && t.hot.end[e] >= g.end;
    });
  }
  if (by.empty()) return "no CPU activity recorded";
  using Entry = std::pair<const std::string*, const Activity*>;
  std::vector<Entry> inside, around;
  for (const auto& [name, a] : by)
    (a.enclosing && !a.api ? around : inside).emplace_back(&name, &a);
  auto tier = [](const Activity& a) { return a.api ? 0 : 1; };
  std::sort(inside.begin(), inside.end(), [&](const Entry& x, const Entry& y) {
    if (tier(*x.second) != tier(*y.second)) return tier(*x.second) < tier(*y.second);
    if (x.second->overlap != y.second->overlap) return x.second->overlap > y.second->overlap;
    return *x.first < *y.first;
  });
  std::sort(around.begin(), around.end(), [](const Entry& x, const Entry& y) {
    if (x.second->length != y.second->length) return x.second->length < y.second->length;
    return *x.first < *y.first;
  });
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  size_t listed = 0;
  for (size_t i = 0; i < inside.size() && listed < (around.empty() ? 3u : 2u); ++i) {
    const Activity& a = *inside[i].second;
    const TimeNs overlap = std::min(a.overlap, g.length());
    const long pct = std::lround(100.0 * static_cast<double>(overlap) /
                                 static_cast<double>(std::max<TimeNs>(g.length(), 1)));
    if (pct == 0 && (listed > 0 || !around.empty())) continue;  // explains nothing of it
    ++listed;
    add(*inside[i].first + (a.count > 1 ? " ×" + std::to_string(a.count) : "") + " (" +
        std::to_string(pct) + "%)");
  }
  if (!around.empty()) add("in " + *around.front().first);
  return out;
}

std::vector<StatsTable> gpuUtilisation(const Session& s, const StatsOptions& o,
                                       const Progress& progress) {
  auto [start, end] = clippedRange(s, o);
  StatsTable util{"gpu_util", "GPU utilisation (kernels running) over time", {}, {}, {}};
  util.columns = {col("row", "GPU / stream", StatsUnit::Text),
                  col("kernels", "Kernels", StatsUnit::Count),
                  col("busy_pct", "Busy %", StatsUnit::Percent)};
  for (int b = 0; b < o.buckets; ++b) {
    auto [bs, be] = bucketBounds(start, end, o.buckets, b);
    // "+0 s" for the first, in its end's unit, not "+0 ns".
    const std::string from = formatEnds(bs - s.startTime(), be - s.startTime()).first;
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
  struct Gap {
    uint32_t device;
    Interval at;
  };
  std::vector<Gap> allGaps;
  const TimeNs span = end - start;
  auto addRow = [&](std::string label, size_t kernels, std::vector<Interval>& iv) {
    mergeIntervals(iv);
    std::vector<StatsCell> row{
        std::move(label), static_cast<int64_t>(kernels),
        span > 0 ? 100.0 * static_cast<double>(coveredLength(iv)) / static_cast<double>(span)
                 : 0.0};
    for (double f : bucketCoverage(iv, start, end, o.buckets)) row.emplace_back(100.0 * f);
    util.rows.push_back(std::move(row));
  };
  const std::vector<bool> active = s.activeDevices();
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    if (o.device != kNone ? d != o.device : !active[d]) continue;  // idle GPUs only when asked
    if (progress.cancelled()) break;
    progress.update(static_cast<double>(d) / static_cast<double>(s.devices.size()));
    std::vector<Interval> device;
    size_t deviceKernels = 0;
    std::vector<std::pair<std::string, std::vector<Interval>>> streams;
    for (const Track& t : s.tracks) {
      if (t.kind != EventKind::Kernel || t.device != d) continue;
      std::vector<Interval> iv = busyIntervals(t, start, end);
      deviceKernels += iv.size();
      device.insert(device.end(), iv.begin(), iv.end());
      streams.emplace_back("  " + s.streamLabel(t.stream), std::move(iv));
    }
    addRow(s.deviceLabel(d), deviceKernels, device);
    // A gap that runs across an end of the range (a kernel before it, the next one inside) is a
    // gap between kernels too, clipped to the range: the range's ends bound it like kernels.
    bool before = false, after = false;
    for (const Track& t : s.tracks) {
      if (t.kind != EventKind::Kernel || t.device != d || !t.size()) continue;
      before = before || t.hot.start[0] < start;
      after = after || t.hot.end[t.size() - 1] > end || t.hot.start[t.size() - 1] >= end;
    }
    std::vector<Interval> bounded = device;
    if (before) bounded.push_back({start - 1, start});  // 1 ns outside: merging keeps it
    if (after) bounded.push_back({end, end + 1});
    mergeIntervals(bounded);
    for (Interval g : gapsBetween(bounded, o.minGap)) allGaps.push_back({d, g});
    for (auto& [label, iv] : streams) {
      size_t n = iv.size();
      addRow(label, n, iv);
    }
  }
  // Longest first: the gaps worth a look lead the list.
  std::sort(allGaps.begin(), allGaps.end(), [](const Gap& a, const Gap& b) {
    return a.at.length() > b.at.length() ||
           (a.at.length() == b.at.length() && a.at.start < b.at.start);
  });
  size_t total = allGaps.size();
  if (allGaps.size() > o.maxGaps) allGaps.resize(o.maxGaps);
  for (const Gap& g : allGaps) {
    gaps.rows.push_back({s.deviceLabel(g.device), g.at.start - s.startTime(), g.at.length(),
                         cpuActivity(s, g.device, g.at)});
  }
  util.notes.push_back(scopeNote(s, o));
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

StatsTable copyOverlap(const Session& s, const StatsOptions& o) {
  auto [start, end] = clippedRange(s, o);
  StatsTable table{"overlap", "Copy time overlapped by compute", {}, {}, {}};
  table.columns = {col("gpu", "GPU", StatsUnit::Text),
                   col("copy_kind", "Copies", StatsUnit::Text),
                   col("count", "Count", StatsUnit::Count),
                   col("copy_ns", "Copy time", StatsUnit::Duration),
                   col("overlap_ns", "Overlapped", StatsUnit::Duration),
                   col("overlap_pct", "Overlapped %", StatsUnit::Percent),
                   col("exposed_ns", "Exposed", StatsUnit::Duration),
                   col("compute_ns", "Compute time", StatsUnit::Duration)};
  const std::vector<bool> active = s.activeDevices();
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    if (o.device != kNone ? d != o.device : !active[d]) continue;
    std::vector<Interval> compute;
    // Copies by kind, then unified-memory migrations by kind (the driver's, not the program's:
    // not in "all").
    std::array<std::vector<Interval>, 2 * kCopyKindCount> byKind;
    for (const Track& t : s.tracks) {
      if (t.device != d) continue;
      if (t.kind == EventKind::Kernel) {
        auto iv = busyIntervals(t, start, end);
        compute.insert(compute.end(), iv.begin(), iv.end());
      } else if (t.kind == EventKind::Memcpy) {
        forEachInRange(t, start, end, [&](uint32_t e) {
          byKind[static_cast<size_t>(t.memcpys.copyKind[e]) +
                 (t.memcpys.migration[e] ? kCopyKindCount : 0)]
              .push_back({std::max(t.hot.start[e], start), std::min(t.hot.end[e], end)});
        });
      }
    }
    mergeIntervals(compute);
    TimeNs computeTime = coveredLength(compute);
    auto addRow = [&](std::string kind, size_t count, std::vector<Interval> iv) {
      mergeIntervals(iv);
      TimeNs copy = coveredLength(iv), overlap = coveredLength(intersectIntervals(iv, compute));
      table.rows.push_back(
          {s.deviceLabel(d), std::move(kind), static_cast<int64_t>(count), copy, overlap,
           copy > 0 ? 100.0 * static_cast<double>(overlap) / static_cast<double>(copy) : 0.0,
           copy - overlap, computeTime});
    };
    std::vector<Interval> all;
    for (int k = 0; k < kCopyKindCount; ++k)
      all.insert(all.end(), byKind[k].begin(), byKind[k].end());
    bool migrations = false;
    for (int k = kCopyKindCount; k < 2 * kCopyKindCount; ++k) migrations |= !byKind[k].empty();
    if (all.empty() && compute.empty() && !migrations) continue;
    addRow("all", all.size(), all);
    for (int k = 0; k < 2 * kCopyKindCount; ++k) {
      if (!byKind[k].empty())
        addRow(copyLabel(static_cast<CopyKind>(k % kCopyKindCount), k >= kCopyKindCount),
               byKind[k].size(), byKind[k]);
    }
  }
  table.notes.push_back(scopeNote(s, o));
  table.notes.push_back(
      "Copy and compute time are unions of intervals (concurrent work counts once), clipped to the "
      "range; Exposed = copy time with no kernel running on that GPU. Memsets are not counted; "
      "unified-memory migrations (the driver moving pages) have rows of their own, not in "
      "\"all\".");
  return table;
}

// Kernel durations in log-spaced bins, four per decade (1 ns, 1.78 ns, 3.16 ns, 5.62 ns, 10 ns,
// ...), from the shortest kernel's bin to the longest's: the shape of a run's kernels at a glance.
StatsTable durationHistogram(const Session& s, const StatsOptions& o) {
  constexpr int kPerDecade = 4;
  std::vector<int64_t> durations;  // the nonzero ones: a log scale has no bin for 0
  size_t zeros = 0;                // kernels the trace gives no duration (below its resolution)
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Kernel || !gpuTrackSelected(t, o)) continue;
    forEachInRange(t, o.start, o.end, [&](uint32_t e) {
      const int64_t d = t.hot.end[e] - t.hot.start[e];
      if (d <= 0)
        ++zeros;
      else
        durations.push_back(d);
    });
  }
  StatsTable table{"kern_hist", "Kernel durations (log-spaced bins)", {}, {}, {}};
  table.columns = {col("bin_start_ns", "From", StatsUnit::Duration),
                   col("bin_end_ns", "To", StatsUnit::Duration),
                   col("count", "Kernels", StatsUnit::Count),
                   col("count_pct", "Kernels %", StatsUnit::Percent),
                   col("total_ns", "Total time", StatsUnit::Duration),
                   col("time_pct", "Time %", StatsUnit::Percent)};
  table.notes.push_back(scopeNote(s, o));
  table.notes.push_back(
      "Bins are four per decade; a kernel of duration d falls in the bin with From <= d < To; "
      "kernels of zero duration (shorter than the trace's resolution) have a row of their own.");
  const auto n = static_cast<double>(durations.size() + zeros);
  if (zeros > 0) {
    table.rows.push_back({int64_t{0}, int64_t{0}, static_cast<int64_t>(zeros),
                          100.0 * static_cast<double>(zeros) / n, int64_t{0}, 0.0});
  }
  if (durations.empty()) return table;
  auto binOf = [](int64_t d) {
    return static_cast<int>(std::floor(std::log10(static_cast<double>(d)) * kPerDecade + 1e-9));
  };
  auto edge = [](int bin) {
    return static_cast<int64_t>(
        std::llround(std::pow(10.0, static_cast<double>(bin) / kPerDecade)));
  };
  auto [lo, hi] = std::minmax_element(durations.begin(), durations.end());
  const int first = binOf(*lo), last = binOf(*hi);
  std::vector<int64_t> counts(static_cast<size_t>(last - first + 1), 0), totals(counts.size(), 0);
  int64_t all = 0;
  for (int64_t d : durations) {
    auto i = static_cast<size_t>(binOf(d) - first);
    ++counts[i];
    totals[i] += d;
    all += d;
  }
  for (size_t i = 0; i < counts.size(); ++i) {
    int bin = first + static_cast<int>(i);
    table.rows.push_back(
        {edge(bin), edge(bin + 1), counts[i], 100.0 * static_cast<double>(counts[i]) / n, totals[i],
         all > 0 ? 100.0 * static_cast<double>(totals[i]) / static_cast<double>(all) : 0.0});
  }
  return table;
}

// kern_sum grouped by layer: a kernel belongs to the layer whose NVTX range (forward/<layer>,
// backward/<layer>, update/<layer> — the convention model mapping uses) encloses the API call
// that launched it, on the same CPU thread.
StatsTable layerSummary(const Session& s, const StatsOptions& o) {
  std::map<std::pair<uint32_t, uint32_t>, std::string> layerOf;  // (kernel track, event) → label
  const auto& src = s.flows.srcTrack;
  for (const Track& nvtx : s.tracks) {
    if (nvtx.kind != EventKind::Nvtx || nvtx.thread == kNone) continue;
    for (uint32_t e = 0; e < nvtx.size(); ++e) {
      std::string_view name = s.str(nvtx.hot.name[e]);
      size_t slash = name.find('/');
      if (slash == std::string_view::npos) continue;
      std::string_view phase = name.substr(0, slash);
      if (phase != "forward" && phase != "backward" && phase != "update") continue;
      std::string label = std::string(name.substr(slash + 1)) + " (" + std::string(phase) + ")";
      for (const Track& api : s.tracks) {
        if (api.kind != EventKind::Api || api.thread != nvtx.thread) continue;
        auto apiIndex = static_cast<uint32_t>(&api - s.tracks.data());
        auto lo = std::lower_bound(src.begin(), src.end(), apiIndex) - src.begin();
        auto hi = std::upper_bound(src.begin(), src.end(), apiIndex) - src.begin();
        if (lo == hi) continue;
        forEachInRange(api, nvtx.hot.start[e], nvtx.hot.end[e], [&](uint32_t call) {
          if (api.hot.start[call] < nvtx.hot.start[e]) return;
          for (auto f = lo; f < hi; ++f) {
            if (s.flows.srcEvent[static_cast<size_t>(f)] != call) continue;
            layerOf.try_emplace({s.flows.dstTrack[static_cast<size_t>(f)],
                                 s.flows.dstEvent[static_cast<size_t>(f)]},
                                label);
          }
        });
      }
    }
  }
  Groups groups;
  std::map<std::string, uint32_t> keys;
  const std::string none = "(no layer)";
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Kernel || !gpuTrackSelected(t, o)) continue;
    auto trackIndex = static_cast<uint32_t>(&t - s.tracks.data());
    uint32_t device = o.perGpu ? t.device : kNone;
    forEachInRange(t, o.start, o.end, [&](uint32_t e) {
      auto it = layerOf.find({trackIndex, e});
      const std::string& label = it != layerOf.end() ? it->second : none;
      auto key = keys.try_emplace(label, static_cast<uint32_t>(keys.size())).first->second;
      groups.at(device, key, [&] { return label; }).values.push_back(t.hot.end[e] - t.hot.start[e]);
    });
  }
  int64_t grand = 0;
  auto rows = describeGroups(groups, grand);
  StatsTable table{"layer_sum", "GPU kernels by layer", durationColumns("Kernels"), {}, {}};
  table.columns.insert(table.columns.begin(), col("layer", "Layer (phase)", StatsUnit::Text));
  if (o.perGpu) table.columns.push_back(col("gpu", "GPU", StatsUnit::Text));
  for (const auto& [d, g] : rows) {
    std::vector<StatsCell> row{g->label};
    appendDurationCells(row, d, grand);
    if (o.perGpu) row.emplace_back(gpuName(s, g->device));
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(scopeNote(s, o));
  table.notes.push_back(
      layerOf.empty()
          ? "No NVTX forward/<layer>, backward/<layer> or update/<layer> range launched a kernel: "
            "every kernel is in '(no layer)'."
          : "A kernel counts for the layer range around the API call that launched it.");
  return table;
}

}  // namespace

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
  d.min = v[0], d.max = v[0];
  for (int64_t x : v) {
    d.total += x;
    d.min = std::min(d.min, x);
    d.max = std::max(d.max, x);
  }
  d.mean = static_cast<double>(d.total) / static_cast<double>(v.size());
  double m2 = 0;
  for (int64_t x : v) m2 += (static_cast<double>(x) - d.mean) * (static_cast<double>(x) - d.mean);
  d.stddev = v.size() > 1 ? std::sqrt(m2 / static_cast<double>(v.size() - 1)) : 0.0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  d.median = static_cast<double>(v[mid]);
  if (v.size() % 2 == 0) {
    int64_t below = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    d.median = (static_cast<double>(below) + d.median) / 2.0;
  }
  return d;
}

Result<std::vector<StatsTable>> computeStats(const Session& s, StatsReport report,
                                             const StatsOptions& o, const Progress& progress) {
  if (o.device != kNone && o.device >= s.devices.size()) {
    return Error{"no GPU " + std::to_string(o.device) + ": the session has " +
                 std::to_string(s.devices.size())};
  }
  if (o.end <= o.start) return Error{"the range is empty (its end is not after its start)"};
  if (o.buckets < 1 || o.buckets > 1000) return Error{"buckets must be between 1 and 1000"};
  if (o.minGap < 0) return Error{"the minimum gap must not be negative"};
  std::vector<StatsTable> out;
  switch (report) {
    case StatsReport::KernSum:
      out.push_back(nameSummary(s, o, EventKind::Kernel, "kern_sum", "GPU kernels by total time",
                                "Instances"));
      break;
    case StatsReport::MemTime:
      out.push_back(memorySummary(s, o, false));
      break;
    case StatsReport::MemSize:
      out.push_back(memorySummary(s, o, true));
      break;
    case StatsReport::ApiSum:
      out.push_back(
          nameSummary(s, o, EventKind::Api, "api_sum", "CUDA API calls by total time", "Calls"));
      break;
    case StatsReport::GpuUtil:
      out = gpuUtilisation(s, o, progress);
      break;
    case StatsReport::Overlap:
      out.push_back(copyOverlap(s, o));
      break;
    case StatsReport::KernHist:
      out.push_back(durationHistogram(s, o));
      break;
    case StatsReport::LayerSum:
      out.push_back(layerSummary(s, o));
      break;
    case StatsReport::Steps:
    case StatsReport::Temporal:
    case StatsReport::KernelTypes:
    case StatsReport::Idle:
    case StatsReport::CommOverlap:
    case StatsReport::Launch:
    case StatsReport::Queue: {
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
      break;
    }
  }
  if (progress.cancelled()) return Error::cancelled();
  progress.update(1.0);
  return out;
}

}  // namespace ts
