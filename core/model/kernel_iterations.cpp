#include "model/kernel_iterations.h"

#include <algorithm>
#include <limits>

#include "analysis/repeated_blocks.h"

namespace ts::model {

namespace {

constexpr TimeNs kTimeMax = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kTimeMin = std::numeric_limits<TimeNs>::min();

// Annotation ranges whose name matches, across threads, in start order. Only the host's: a
// stream's copy of an annotation (Kineto's gpu_user_annotation) is on the GPU's clock, later
// than the launches it covers, and would cut one step into two.
template <class Match>
std::vector<TimeRange> rangesNamed(const Session& s, Match match) {
  std::vector<TimeRange> ranges;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Nvtx && t.kind != EventKind::Range) continue;
    if (t.thread == kNone) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      if (match(s.str(t.hot.name[e]))) ranges.push_back({t.hot.start[e], t.hot.end[e]});
    }
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const TimeRange& a, const TimeRange& b) { return a.start < b.start; });
  return ranges;
}

// Kernels by the range (sorted, not overlapping) their launch falls in: one binary search each.
std::vector<std::vector<size_t>> byLaunch(const std::vector<LaunchedKernel>& all,
                                          const std::vector<TimeRange>& ranges) {
  std::vector<std::vector<size_t>> members(ranges.size());
  for (size_t i = 0; i < all.size(); ++i) {
    auto after = std::upper_bound(ranges.begin(), ranges.end(), all[i].launch,
                                  [](TimeNs t, const TimeRange& r) { return t < r.start; });
    if (after == ranges.begin()) continue;
    const TimeRange& r = *std::prev(after);
    if (all[i].launch < r.end)
      members[static_cast<size_t>(std::prev(after) - ranges.begin())].push_back(i);
  }
  std::erase_if(members, [](const std::vector<size_t>& list) { return list.empty(); });
  return members;
}

// Each repetition of the first forward/<layer> NVTX range starts an iteration.
std::vector<TimeRange> layerRangeIterations(const Session& s) {
  auto layerRanges = rangesNamed(s, [](std::string_view n) { return n.rfind("forward/", 0) == 0; });
  if (layerRanges.empty()) return {};
  std::string first;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Nvtx) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      if (t.hot.start[e] == layerRanges.front().start &&
          s.str(t.hot.name[e]).rfind("forward/", 0) == 0)
        first = s.str(t.hot.name[e]);
    }
  }
  auto starts = rangesNamed(s, [&](std::string_view n) { return n == first; });
  std::vector<TimeRange> its;
  for (size_t i = 0; i < starts.size(); ++i)
    its.push_back({starts[i].start, i + 1 < starts.size() ? starts[i + 1].start : kTimeMax});
  return its;
}

}  // namespace

KernelIterations findIterations(const Session& s, const std::vector<LaunchedKernel>& all,
                                const std::optional<TimeRange>& asked) {
  KernelIterations it;
  if (asked) {
    it.source = "your range";
    std::vector<size_t> members;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].start >= asked->start && all[i].start < asked->end) members.push_back(i);
    }
    if (members.empty()) {  // nothing to map: said as it is, not replaced by a guess
      it.ranges = {*asked};
      return it;
    }
    it.members.push_back(std::move(members));
  }
  if (it.source.empty()) {
    if (auto its = layerRangeIterations(s); its.size() > 1) {
      it.members = byLaunch(all, its);
      it.source = "NVTX layer ranges";
    }
  }
  if (it.source.empty()) {
    auto steps =
        rangesNamed(s, [](std::string_view n) { return n.rfind("ProfilerStep#", 0) == 0; });
    if (!steps.empty()) {
      it.members = byLaunch(all, steps);
      it.source = "profiler steps";
    }
  }
  if (it.source.empty()) {
    std::vector<StringId> names;
    for (const LaunchedKernel& k : all) names.push_back(k.name);
    for (auto [b, e] : repeatedBlocks(names)) {
      std::vector<size_t> members;
      for (size_t i = b; i < e; ++i) members.push_back(i);
      it.members.push_back(std::move(members));
    }
    if (!it.members.empty()) it.source = "repeated kernels";
  }
  if (it.members.empty()) {
    std::vector<size_t> members(all.size());
    for (size_t i = 0; i < all.size(); ++i) members[i] = i;
    it.members.push_back(std::move(members));
    it.source = "whole session";
  }
  for (const auto& list : it.members) {
    TimeRange r{kTimeMax, kTimeMin};
    for (size_t i : list)
      r.start = std::min(r.start, all[i].start), r.end = std::max(r.end, all[i].end);
    it.ranges.push_back(r);
  }
  return it;
}

}  // namespace ts::model
