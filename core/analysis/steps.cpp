#include "analysis/steps.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "analysis/repeated_blocks.h"

namespace ts {

namespace {

struct CpuRange {
  TimeNs start, end;
  uint32_t rank;
  StringId name;
};

// The annotation ranges on CPU threads (NVTX, PyTorch's user annotations and ops) whose name
// `match` accepts, in start order.
template <class Match>
std::vector<CpuRange> cpuRanges(const Session& s, Match match) {
  std::vector<CpuRange> out;
  for (const Track& t : s.tracks) {
    if ((t.kind != EventKind::Nvtx && t.kind != EventKind::Range) || t.thread == kNone) continue;
    uint32_t rank = rankOfThread(s, t.thread);
    for (uint32_t e = 0; e < t.size(); ++e) {
      if (match(s.str(t.hot.name[e])))
        out.push_back({t.hot.start[e], t.hot.end[e], rank, t.hot.name[e]});
    }
  }
  // Stable: ranges starting together keep the tracks' order, whichever session holds them.
  std::stable_sort(out.begin(), out.end(),
                   [](const CpuRange& a, const CpuRange& b) { return a.start < b.start; });
  return out;
}

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

using Pick = bool (*)(std::string_view);

// The CPU ranges of data loading, forward, backward and optimizer (PyTorch's names and the NVTX
// conventions model mapping uses), in Step's field order.
const std::array<Pick, 4>& annotationPicks() {
  static const std::array<Pick, 4> picks = {
      [](std::string_view n) { return n.starts_with("enumerate(DataLoader)"); },
      [](std::string_view n) { return n == "forward" || n.starts_with("forward/"); },
      [](std::string_view n) {
        return n == "backward" || n.starts_with("backward/") ||
               n.starts_with("autograd::engine::evaluate_function:");
      },
      [](std::string_view n) {
        return n == "optimizer" || n.starts_with("update/") || n.starts_with("Optimizer.step#") ||
               n.starts_with("Optimizer.zero_grad#");
      }};
  return picks;
}

// Each repetition of the first forward/<layer> range starts a step; the last one ends with the
// last layer range (forward/, backward/, update/) that starts inside it.
std::vector<Step> layerSteps(const Session& s) {
  auto forward = cpuRanges(s, [](std::string_view n) { return n.starts_with("forward/"); });
  if (forward.empty()) return {};
  StringId first = forward.front().name;
  auto layers = cpuRanges(s, [](std::string_view n) {
    return n.starts_with("forward/") || n.starts_with("backward/") || n.starts_with("update/");
  });
  std::vector<Step> steps;
  for (const CpuRange& r : forward) {
    if (r.name != first) continue;
    Step st;
    st.rank = r.rank, st.start = r.start, st.end = r.end;
    steps.push_back(st);
  }
  // Rank by rank: ranks run the same layers at about the same times, so in start order the next
  // step is often another rank's, and a step would run to its rank's last layer.
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.start < b.start;
  });
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i + 1 < steps.size() && steps[i + 1].rank == steps[i].rank) {
      steps[i].end = steps[i + 1].start;
      continue;
    }
    for (const CpuRange& l : layers) {
      if (l.rank == steps[i].rank && l.start >= steps[i].start)
        steps[i].end = std::max(steps[i].end, l.end);
    }
  }
  return steps;
}

// Steps from structure: per rank, the kernels in start order read as repeated blocks of names.
std::vector<Step> repeatedKernelSteps(const Session& s, const LaunchIndex& launches) {
  struct K {
    TimeNs start, end, launch;
    StringId name;
  };
  std::vector<std::vector<K>> byRank(std::max<size_t>(s.ranks.size(), 1));
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (track.kind != EventKind::Kernel) continue;
    auto& out = byRank[std::min<size_t>(rankOfTrack(s, track), byRank.size() - 1)];
    for (uint32_t i = 0; i < track.size(); ++i) {
      LaunchRef l = launches.launchOf(t, i);
      TimeNs at = l.known() ? s.tracks[l.track].hot.start[l.event] : track.hot.start[i];
      out.push_back({track.hot.start[i], track.hot.end[i], at, track.hot.name[i]});
    }
  }
  std::vector<Step> steps;
  for (uint32_t r = 0; r < byRank.size(); ++r) {
    auto& ks = byRank[r];
    std::sort(ks.begin(), ks.end(), [](const K& a, const K& b) { return a.start < b.start; });
    std::vector<StringId> names;
    for (const K& k : ks) names.push_back(k.name);
    auto blocks = repeatedBlocks(names);
    size_t firstStep = steps.size();
    for (auto [b, e] : blocks) {
      Step st;
      st.rank = r;
      st.start = ks[b].launch;
      for (size_t i = b; i < e; ++i) {
        st.start = std::min(st.start, ks[i].launch);
        st.end = std::max(st.end, ks[i].end);
      }
      steps.push_back(st);
    }
    // Consecutive: a step lasts until the next one's first launch.
    for (size_t i = firstStep; i + 1 < steps.size(); ++i) steps[i].end = steps[i + 1].start;
  }
  return steps;
}

}  // namespace

std::optional<int64_t> stepNumberOf(std::string_view name, bool* profilerStep) {
  if (profilerStep) *profilerStep = false;
  size_t at = 0;
  if (name.starts_with("ProfilerStep#")) {
    at = 13;
    if (profilerStep) *profilerStep = true;
  } else {
    for (std::string_view word : {"iteration", "iter", "step"}) {
      if (startsWithNoCase(name, word)) {
        at = word.size();
        break;
      }
    }
    if (at == 0) return std::nullopt;
    while (at < name.size() && (name[at] == ' ' || name[at] == '#' || name[at] == '_' ||
                                name[at] == ':' || name[at] == '-'))
      ++at;
  }
  if (at >= name.size() || name.size() - at > 18) return std::nullopt;
  int64_t n = 0;
  for (size_t i = at; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::nullopt;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}

void measureSteps(const Session& s, const LaunchIndex& launches, const std::vector<IdleGap>& gaps,
                  std::vector<Step>& steps) {
  // Each GPU operation belongs to the step whose CPU range holds its launch (its own start when
  // the launch is unknown).
  auto stepAt = [&](uint32_t rank, TimeNs t) -> int32_t {
    auto it =
        std::upper_bound(steps.begin(), steps.end(), std::make_pair(rank, t),
                         [](const std::pair<uint32_t, TimeNs>& k, const Step& st) {
                           return k.first != st.rank ? k.first < st.rank : k.second < st.start;
                         });
    if (it == steps.begin()) return -1;
    --it;
    if (it->rank != rank || t >= it->end) return -1;
    return static_cast<int32_t>(it - steps.begin());
  };
  std::vector<std::vector<Interval>> busy(steps.size());
  std::vector<std::array<std::vector<Interval>, kOpTypeCount>> byType(steps.size());
  std::vector<std::vector<int32_t>> stepOfOp(s.tracks.size());
  std::vector<int8_t> typeOfName(s.strings.size(), -1);
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (!isGpuOp(track.kind)) continue;
    uint32_t rank = rankOfTrack(s, track);
    stepOfOp[t].assign(track.size(), -1);
    for (uint32_t i = 0; i < track.size(); ++i) {
      LaunchRef l = launches.launchOf(t, i);
      TimeNs at = l.known() ? s.tracks[l.track].hot.start[l.event] : track.hot.start[i];
      int32_t k = stepAt(rank, at);
      stepOfOp[t][i] = k;
      if (k < 0) continue;
      Step& st = steps[static_cast<size_t>(k)];
      TimeNs a = track.hot.start[i], b = track.hot.end[i];
      if (st.ops == 0 || a < st.gpuStart) st.gpuStart = a;
      if (st.ops == 0 || b > st.gpuEnd) st.gpuEnd = b;
      ++st.ops;
      OpType type = OpType::Memory;
      if (track.kind == EventKind::Kernel) {
        int8_t& cached = typeOfName[track.hot.name[i] < typeOfName.size() ? track.hot.name[i] : 0];
        if (cached < 0)
          cached = static_cast<int8_t>(opTypeOf(track.kind, s.str(track.hot.name[i])));
        type = static_cast<OpType>(cached);
      }
      busy[static_cast<size_t>(k)].push_back({a, b});
      byType[static_cast<size_t>(k)][static_cast<int>(type)].push_back({a, b});
    }
  }
  for (size_t k = 0; k < steps.size(); ++k) {
    mergeIntervals(busy[k]);
    steps[k].busy = coveredLength(busy[k]);
    for (int t = 0; t < kOpTypeCount; ++t) {
      mergeIntervals(byType[k][t]);
      steps[k].byType[t] = coveredLength(byType[k][t]);
    }
    const auto& comm = byType[k][static_cast<int>(OpType::Communication)];
    const auto& comp = byType[k][static_cast<int>(OpType::Computation)];
    steps[k].exposedCommunication =
        coveredLength(comm) - coveredLength(intersectIntervals(comm, comp));
  }
  // Each step's stretch of the GPU: from the previous step's last operation (same rank).
  for (size_t k = 0; k < steps.size(); ++k) {
    Step& st = steps[k];
    const Step* before = k > 0 && steps[k - 1].rank == st.rank ? &steps[k - 1] : nullptr;
    if (before && before->ops)
      st.gpuFrom = std::min(before->gpuEnd, st.gpuStart);
    else
      st.gpuFrom = std::min(st.start, st.gpuStart);
  }
  std::vector<TimeNs> firstGap(steps.size(), std::numeric_limits<TimeNs>::max());
  for (const IdleGap& g : gaps) {
    if (g.nextTrack >= stepOfOp.size() || g.nextEvent >= stepOfOp[g.nextTrack].size()) continue;
    int32_t k = stepOfOp[g.nextTrack][g.nextEvent];
    if (k < 0) continue;
    steps[static_cast<size_t>(k)].idle[static_cast<int>(g.cause)] += g.end - g.start;
    firstGap[static_cast<size_t>(k)] = std::min(firstGap[static_cast<size_t>(k)], g.start);
  }
  // A rank's first step waits from its start to its first operation with no gap to tell why (no
  // operation before it on the stream): unknown, so that on one stream the causes still add up
  // to the GPU idle.
  for (size_t k = 0; k < steps.size(); ++k) {
    Step& st = steps[k];
    const bool first = k == 0 || steps[k - 1].rank != st.rank || steps[k - 1].ops == 0;
    if (first && st.ops && st.gpuFrom < st.gpuStart && firstGap[k] >= st.gpuStart)
      st.idle[static_cast<int>(IdleCause::Unknown)] += st.gpuStart - st.gpuFrom;
  }

  // Annotated CPU time: data loading, forward, backward, optimizer (PyTorch's names and the NVTX
  // conventions model mapping uses), per rank, merged, then clipped to each step.
  const auto& picks = annotationPicks();
  std::optional<TimeNs> Step::*fields[4] = {&Step::dataLoader, &Step::forward, &Step::backward,
                                            &Step::optimizer};
  for (int c = 0; c < 4; ++c) {
    auto ranges = cpuRanges(s, picks[c]);
    if (ranges.empty()) continue;  // not annotated: left empty, not zero
    std::vector<std::vector<Interval>> byRank(std::max<size_t>(s.ranks.size(), 1));
    for (const CpuRange& r : ranges)
      byRank[std::min<size_t>(r.rank, byRank.size() - 1)].push_back({r.start, r.end});
    for (auto& v : byRank) mergeIntervals(v);
    for (Step& st : steps)
      st.*fields[c] =
          coveredWithin(byRank[std::min<size_t>(st.rank, byRank.size() - 1)], st.start, st.end);
  }
}

std::vector<Step> rankWindows(const Session& s, const LaunchIndex& launches,
                              const std::vector<IdleGap>& gaps, const AnalysisRange& range) {
  std::vector<Step> windows;
  const std::vector<Interval> spans = rankSpans(s);
  for (uint32_t r = 0; r < spans.size(); ++r) {
    Step w;
    w.rank = r;
    w.rankNumber = rankNumberOf(s, r);
    w.start = std::max(range.start, spans[r].start);
    w.end = std::min(range.end, spans[r].end);
    if (w.end > w.start) windows.push_back(w);
  }
  measureSteps(s, launches, gaps, windows);
  std::erase_if(windows, [](const Step& w) { return w.ops == 0; });
  return windows;
}

std::string_view toString(StepSource source) {
  switch (source) {
    case StepSource::ProfilerSteps:
      return "profiler steps";
    case StepSource::NvtxSteps:
      return "NVTX step ranges";
    case StepSource::LayerRanges:
      return "NVTX layer ranges";
    case StepSource::RepeatedKernels:
      return "repeated kernels";
    case StepSource::None:
      break;
  }
  return "";
}

bool stepSourceHolds(StepSource source, size_t candidates) {
  // One ProfilerStep marks steps; a single NVTX "step" or layer range is more likely a one-off.
  const bool two = source == StepSource::NvtxSteps || source == StepSource::LayerRanges;
  return source != StepSource::None && candidates >= (two ? 2u : 1u);
}

std::vector<Step> stepCandidates(const Session& s, const LaunchIndex& launches, StepSource source) {
  auto numbered = [&](bool profiler) {
    auto ranges = cpuRanges(s, [&](std::string_view n) {
      bool isProfiler = false;
      return stepNumberOf(n, &isProfiler) && isProfiler == profiler;
    });
    std::vector<Step> out;
    for (const CpuRange& r : ranges) {
      Step st;
      st.rank = r.rank, st.start = r.start, st.end = r.end;
      st.number = stepNumberOf(s.str(r.name)).value_or(0);
      out.push_back(st);
    }
    return out;
  };
  switch (source) {
    case StepSource::ProfilerSteps:
      return numbered(true);
    case StepSource::NvtxSteps:
      return numbered(false);
    case StepSource::LayerRanges:
      return layerSteps(s);
    case StepSource::RepeatedKernels:
      return repeatedKernelSteps(s, launches);
    case StepSource::None:
      break;
  }
  return {};
}

std::array<bool, 4> annotatedCpuTime(const Session& s) {
  std::array<bool, 4> out{};
  for (int c = 0; c < 4; ++c) out[c] = !cpuRanges(s, annotationPicks()[c]).empty();
  return out;
}

std::optional<std::string> firstLayerName(const Session& s, TimeNs* at) {
  auto forward = cpuRanges(s, [](std::string_view n) { return n.starts_with("forward/"); });
  if (forward.empty()) return std::nullopt;
  if (at) *at = forward.front().start;
  return std::string(s.str(forward.front().name));
}

void describeStepTimes(StepTable& table) {
  std::vector<Step>& steps = table.steps;
  if (steps.empty()) return;
  std::vector<int64_t> sorted;
  for (const Step& st : steps) sorted.push_back(st.duration());
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  table.median =
      n % 2 ? static_cast<double>(sorted[n / 2])
            : (static_cast<double>(sorted[n / 2 - 1]) + static_cast<double>(sorted[n / 2])) / 2;
  table.min = sorted.front(), table.max = sorted.back();
  double sum = 0;
  for (int64_t t : sorted) sum += static_cast<double>(t);
  table.mean = sum / static_cast<double>(n);
  std::vector<double> deviations;
  for (int64_t t : sorted) deviations.push_back(std::abs(static_cast<double>(t) - table.median));
  std::sort(deviations.begin(), deviations.end());
  double mad = n % 2 ? deviations[n / 2] : (deviations[n / 2 - 1] + deviations[n / 2]) / 2;
  for (Step& st : steps) {
    double t = static_cast<double>(st.duration());
    st.outlier = n >= 3 && t > table.median + 3 * 1.4826 * mad && t > 1.05 * table.median;
  }
}

StepTable stepsFrom(const Session& s, const LaunchIndex& launches, const std::vector<IdleGap>& gaps,
                    const AnalysisRange& range, StepSource source, std::vector<Step> steps) {
  StepTable table;
  table.source = toString(source);
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.start < b.start;
  });
  bool numberedByName = source == StepSource::ProfilerSteps || source == StepSource::NvtxSteps;
  for (size_t i = 0; i < steps.size(); ++i) {
    Step& st = steps[i];
    st.rankNumber = st.rank < s.ranks.size() ? s.ranks[st.rank].rank : 0;
    if (!numberedByName)
      st.number = (i > 0 && steps[i - 1].rank == st.rank) ? steps[i - 1].number + 1 : 1;
  }
  // Measured whole (a step's stretch of the GPU starts where the one before it ended, inside the
  // range or not), then kept when at least half of it — its CPU start to its GPU end — lies in
  // the range: a range dragged around a step's GPU work diagnoses that step, not the next one
  // whose launches begin at its far end.
  measureSteps(s, launches, gaps, steps);
  if (!range.whole()) {
    std::erase_if(steps, [&](const Step& st) {
      const TimeNs from = st.ops ? std::min(st.start, st.gpuStart) : st.start;
      const TimeNs to = st.ops ? std::max(st.end, st.gpuEnd) : st.end;
      if (to == from) return from < range.start || from >= range.end;  // an instant: inside?
      const TimeNs inside = std::min(to, range.end) - std::max(from, range.start);
      return 2 * inside < to - from || inside <= 0;
    });
  }
  table.steps = std::move(steps);
  describeStepTimes(table);
  return table;
}

StepTable findSteps(const Session& s, const LaunchIndex& launches, const std::vector<IdleGap>& gaps,
                    const AnalysisRange& range) {
  for (StepSource source : kStepSources) {
    std::vector<Step> steps = stepCandidates(s, launches, source);
    if (stepSourceHolds(source, steps.size()))
      return stepsFrom(s, launches, gaps, range, source, std::move(steps));
  }
  return {};
}

}  // namespace ts
