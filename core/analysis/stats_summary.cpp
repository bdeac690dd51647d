#include "analysis/stats_summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "util/format.h"
#include "util/saturate.h"

namespace ts {

namespace {

// The events of a track that intersect [start, end), lane by lane.
template <class F>
void forEachInRange(const Track& t, TimeNs start, TimeNs end, F&& f) {
  for (uint32_t lane = 0; lane < t.laneCount(); ++lane) {
    LaneSpan span = t.laneRange(lane, start, end);
    for (uint32_t p = span.begin; p < span.end; ++p) f(t.laneEvent(lane, p));
  }
}

bool wants(std::span<const StatsReport> reports, std::initializer_list<StatsReport> any) {
  for (StatsReport r : any) {
    if (std::find(reports.begin(), reports.end(), r) != reports.end()) return true;
  }
  return false;
}

// Groups of values keyed by (device, a number standing for the label), in first-seen order; the
// values written out while events are read, then made runs (finish).
class GroupIndex {
 public:
  struct Raw {
    std::vector<int64_t> values, bytes;
  };
  explicit GroupIndex(std::vector<StatsSummary::Group>& groups) : groups_(groups) {}
  ~GroupIndex() {
    for (size_t i = 0; i < raw_.size(); ++i) {
      groups_[i].values = ValueRuns::of(std::move(raw_[i].values));
      groups_[i].bytes = ValueRuns::of(std::move(raw_[i].bytes));
    }
  }
  GroupIndex(const GroupIndex&) = delete;
  GroupIndex& operator=(const GroupIndex&) = delete;

  template <class Label>
  Raw& at(uint32_t device, uint32_t key, const Label& label) {
    const uint64_t k = (static_cast<uint64_t>(device) << 32) | key;
    auto [it, fresh] = index_.try_emplace(k, groups_.size());
    if (fresh) {
      groups_.push_back({device, label(), {}, {}});
      raw_.emplace_back();
    }
    return raw_[it->second];
  }

 private:
  std::vector<StatsSummary::Group>& groups_;
  std::vector<Raw> raw_;
  std::unordered_map<uint64_t, size_t> index_;
};

// The range busy time is clipped to: the one asked for, within the session. An open end stays
// open: a rank summarised alone must not stop at its own last event, where the job it belongs to
// goes on (a zero-length kernel at that instant is inside the job's session).
std::pair<TimeNs, TimeNs> clipRange(const Session& s, const StatsOptions& o) {
  constexpr TimeNs kOpenStart = std::numeric_limits<TimeNs>::min(),
                   kOpenEnd = std::numeric_limits<TimeNs>::max();
  return {o.start == kOpenStart ? kOpenStart : std::max(o.start, s.startTime()),
          o.end == kOpenEnd ? kOpenEnd : std::min(o.end, s.endTime())};
}

std::vector<Interval> busyIntervals(const Track& t, TimeNs start, TimeNs end) {
  std::vector<Interval> iv;
  forEachInRange(t, start, end, [&](uint32_t e) {
    iv.push_back({std::max(t.hot.start[e], start), std::min(t.hot.end[e], end)});
  });
  return iv;
}

// Longest first, then earliest, then by GPU: the order gaps are listed in.
bool longerGap(const StatsSummary::Gap& a, const StatsSummary::Gap& b) {
  if (a.at.length() != b.at.length()) return a.at.length() > b.at.length();
  if (a.at.start != b.at.start) return a.at.start < b.at.start;
  return a.device < b.device;
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

// Each GPU's and stream's busy intervals, and its idle gaps: the longest `maxGaps` kept with what
// the CPU did meanwhile (the rest counted), enough for any choice of GPU when rendering.
void summariseUtilisation(const Session& s, const StatsOptions& o, StatsSummary& sum,
                          const Progress& progress) {
  const auto [start, end] = clipRange(s, o);
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    if (progress.cancelled()) return;
    StatsSummary::Device& device = sum.devices[d];
    std::vector<Interval> all;
    bool before = false, after = false;
    for (const Track& t : s.tracks) {
      if (t.kind != EventKind::Kernel || t.device != d) continue;
      std::vector<Interval> iv = busyIntervals(t, start, end);
      device.kernels += static_cast<int64_t>(iv.size());
      all.insert(all.end(), iv.begin(), iv.end());
      StatsSummary::StreamBusy stream{"  " + s.streamLabel(t.stream),
                                      static_cast<int64_t>(iv.size()), std::move(iv)};
      mergeIntervals(stream.busy);
      device.streams.push_back(std::move(stream));
      // A gap that runs across an end of the range (a kernel before it, the next one inside) is
      // a gap between kernels too, clipped to the range: the range's ends bound it like kernels.
      if (!t.size()) continue;
      before = before || t.hot.start[0] < start;
      after = after || t.hot.end[t.size() - 1] > end || t.hot.start[t.size() - 1] >= end;
    }
    mergeIntervals(all);
    std::vector<Interval> bounded = all;
    if (before) bounded.push_back({start - 1, start});  // 1 ns outside: merging keeps it
    if (after) bounded.push_back({end, end + 1});
    mergeIntervals(bounded);
    std::vector<StatsSummary::Gap> gaps;
    for (Interval g : gapsBetween(bounded, o.minGap)) gaps.push_back({d, g, {}});
    device.gaps = static_cast<int64_t>(gaps.size());
    std::sort(gaps.begin(), gaps.end(), longerGap);
    if (gaps.size() > o.maxGaps) gaps.resize(o.maxGaps);
    for (StatsSummary::Gap& g : gaps) {
      g.cpu = cpuActivity(s, d, g.at);
      sum.gaps.push_back(std::move(g));
    }
    device.busy = std::move(all);
    progress.update(static_cast<double>(d + 1) / static_cast<double>(s.devices.size()));
  }
}

// Per GPU: copy time by kind (then unified-memory migrations by kind), and how much of it
// kernels overlap.
void summariseOverlap(const Session& s, const StatsOptions& o, StatsSummary& sum) {
  const auto [start, end] = clipRange(s, o);
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    std::vector<Interval> compute;
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
    const TimeNs computeTime = coveredLength(compute);
    auto addRow = [&](std::string kind, size_t count, std::vector<Interval> iv) {
      mergeIntervals(iv);
      sum.overlap.push_back({d, std::move(kind), static_cast<int64_t>(count), coveredLength(iv),
                             coveredLength(intersectIntervals(iv, compute)), computeTime});
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
}

// Kernel durations by layer: a kernel belongs to the layer whose NVTX range (forward/<layer>,
// backward/<layer>, update/<layer> — the convention model mapping uses) encloses the API call
// that launched it, on the same CPU thread.
void summariseLayers(const Session& s, const StatsOptions& o, StatsSummary& sum) {
  std::map<std::pair<uint32_t, uint32_t>, std::string> layerOf;  // (kernel track, event) → label
  const FlowColumns flows = flowsBySource(s);
  const auto& src = flows.srcTrack;
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
            if (flows.srcEvent[static_cast<size_t>(f)] != call) continue;
            layerOf.try_emplace(
                {flows.dstTrack[static_cast<size_t>(f)], flows.dstEvent[static_cast<size_t>(f)]},
                label);
          }
        });
      }
    }
  }
  GroupIndex groups(sum.layers);
  std::map<std::string, uint32_t> keys;
  const std::string none = "(no layer)";
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Kernel || t.device == kNone) continue;
    auto trackIndex = static_cast<uint32_t>(&t - s.tracks.data());
    forEachInRange(t, o.start, o.end, [&](uint32_t e) {
      auto it = layerOf.find({trackIndex, e});
      const std::string& label = it != layerOf.end() ? it->second : none;
      auto key = keys.try_emplace(label, static_cast<uint32_t>(keys.size())).first->second;
      groups.at(t.device, key, [&] { return label; })
          .values.push_back(t.hot.end[e] - t.hot.start[e]);
    });
  }
  sum.layerRanges = !layerOf.empty();
}

}  // namespace

ValueRuns ValueRuns::of(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  ValueRuns runs;
  for (int64_t v : values) {
    if (!runs.value.empty() && runs.value.back() == v) {
      ++runs.count.back();
    } else {
      runs.value.push_back(v);
      runs.count.push_back(1);
    }
  }
  return runs;
}

ValueRuns ValueRuns::joined(const std::vector<const ValueRuns*>& parts) {
  if (parts.size() == 1) return *parts[0];
  std::vector<std::pair<int64_t, int64_t>> all;
  for (const ValueRuns* p : parts) {
    for (size_t i = 0; i < p->value.size(); ++i) all.emplace_back(p->value[i], p->count[i]);
  }
  std::sort(all.begin(), all.end());
  ValueRuns runs;
  for (const auto& [v, c] : all) {
    if (!runs.value.empty() && runs.value.back() == v) {
      runs.count.back() = saturatingAdd(runs.count.back(), c);
    } else {
      runs.value.push_back(v);
      runs.count.push_back(c);
    }
  }
  return runs;
}

int64_t ValueRuns::size() const {
  int64_t n = 0;
  for (int64_t c : count) n = saturatingAdd(n, c);
  return n;
}

int64_t ValueRuns::total() const {
  int64_t sum = 0;
  for (size_t i = 0; i < value.size(); ++i)
    sum = saturatingAdd(sum, saturatingMul(value[i], count[i]));
  return sum;
}

Distribution describeRuns(const ValueRuns& runs) {
  Distribution d;
  d.count = runs.size();
  if (d.count == 0) return d;
  d.total = runs.total();
  d.min = runs.value.front();
  d.max = runs.value.back();
  d.mean = static_cast<double>(d.total) / static_cast<double>(d.count);
  double m2 = 0;
  for (size_t i = 0; i < runs.value.size(); ++i) {
    const double dev = static_cast<double>(runs.value[i]) - d.mean;
    m2 += static_cast<double>(runs.count[i]) * dev * dev;
  }
  d.stddev = d.count > 1 ? std::sqrt(m2 / static_cast<double>(d.count - 1)) : 0.0;
  // The k-th value (0-based) in order.
  auto nth = [&](int64_t k) {
    for (size_t i = 0; i < runs.value.size(); ++i) {
      if (k < runs.count[i]) return runs.value[i];
      k -= runs.count[i];
    }
    return runs.value.back();
  };
  const int64_t mid = d.count / 2;
  d.median = d.count % 2
                 ? static_cast<double>(nth(mid))
                 : (static_cast<double>(nth(mid - 1)) + static_cast<double>(nth(mid))) / 2.0;
  return d;
}

bool summarisable(StatsReport r) {
  switch (r) {
    case StatsReport::KernSum:
    case StatsReport::MemTime:
    case StatsReport::MemSize:
    case StatsReport::ApiSum:
    case StatsReport::GpuUtil:
    case StatsReport::Overlap:
    case StatsReport::KernHist:
    case StatsReport::LayerSum:
      return true;
    default:
      return false;
  }
}

StatsSummary summariseStats(const Session& s, std::span<const StatsReport> reports,
                            const StatsOptions& o, const Progress& progress) {
  StatsSummary sum;
  for (StatsReport r : reports) {
    if (summarisable(r) &&
        std::find(sum.reports.begin(), sum.reports.end(), r) == sum.reports.end())
      sum.reports.push_back(r);
  }
  sum.empty = s.eventCount() == 0 &&
              std::all_of(s.counters.begin(), s.counters.end(),
                          [](const CounterTrack& c) { return c.samples.time.empty(); });
  sum.start = s.startTime();
  sum.end = s.endTime();
  const std::vector<bool> active = s.activeDevices();
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    StatsSummary::Device device;
    device.label = s.deviceLabel(d);
    device.active = active[d];
    sum.devices.push_back(std::move(device));
  }
  if (wants(sum.reports, {StatsReport::KernSum, StatsReport::KernHist})) {
    GroupIndex groups(sum.kernels);
    for (const Track& t : s.tracks) {
      if (t.kind != EventKind::Kernel || t.device == kNone) continue;
      forEachInRange(t, o.start, o.end, [&](uint32_t e) {
        const StringId name = t.hot.name[e];
        groups.at(t.device, name, [&] { return std::string(s.str(name)); })
            .values.push_back(t.hot.end[e] - t.hot.start[e]);
      });
    }
  }
  if (wants(sum.reports, {StatsReport::ApiSum})) {
    GroupIndex groups(sum.api);
    for (const Track& t : s.tracks) {
      if (t.kind != EventKind::Api) continue;
      forEachInRange(t, o.start, o.end, [&](uint32_t e) {
        const StringId name = t.hot.name[e];
        groups.at(kNone, name, [&] { return std::string(s.str(name)); })
            .values.push_back(t.hot.end[e] - t.hot.start[e]);
      });
    }
  }
  if (wants(sum.reports, {StatsReport::MemTime, StatsReport::MemSize})) {
    // Copies by kind, memsets as one more operation, unified-memory migrations by kind apart.
    GroupIndex groups(sum.memory);
    constexpr uint32_t kMemsetKey = kCopyKindCount, kMigrationKey = kCopyKindCount + 1;
    for (const Track& t : s.tracks) {
      if ((t.kind != EventKind::Memcpy && t.kind != EventKind::Memset) || t.device == kNone)
        continue;
      forEachInRange(t, o.start, o.end, [&](uint32_t e) {
        const bool memset = t.kind == EventKind::Memset;
        const bool migration = !memset && t.memcpys.migration[e];
        const uint32_t kind = memset ? 0 : static_cast<uint32_t>(t.memcpys.copyKind[e]);
        const uint32_t key = memset ? kMemsetKey : migration ? kMigrationKey + kind : kind;
        auto label = [&] {
          return memset ? std::string("Memset") : copyLabel(static_cast<CopyKind>(kind), migration);
        };
        GroupIndex::Raw& g = groups.at(t.device, key, label);
        g.values.push_back(t.hot.end[e] - t.hot.start[e]);
        g.bytes.push_back(static_cast<int64_t>(memset ? t.memsets.bytes[e] : t.memcpys.bytes[e]));
      });
    }
  }
  if (wants(sum.reports, {StatsReport::GpuUtil})) summariseUtilisation(s, o, sum, progress);
  if (wants(sum.reports, {StatsReport::Overlap})) summariseOverlap(s, o, sum);
  if (wants(sum.reports, {StatsReport::LayerSum})) summariseLayers(s, o, sum);
  return sum;
}

}  // namespace ts
