#include "analysis/launch_stats.h"

#include <algorithm>
#include <unordered_map>

namespace ts {

LaunchStats launchStats(const Session& s, const LaunchIndex& launches, const LaunchOptions& o) {
  LaunchStats out;
  // Summaries keyed by (rank, name): one map lookup per operation.
  std::unordered_map<uint64_t, size_t> index;
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (!isGpuOp(track.kind)) continue;
    uint32_t rank = rankOfTrack(s, track);
    for (uint32_t i = 0; i < track.size(); ++i) {
      TimeNs start = track.hot.start[i];
      if (start < o.range.start || start >= o.range.end) continue;
      ++out.ops;
      LaunchRef l = launches.launchOf(t, i);
      if (!l.known()) continue;
      ++out.withLaunch;
      const Track& api = s.tracks[l.track];
      TimeNs cpu = api.hot.end[l.event] - api.hot.start[l.event];
      TimeNs gpu = track.hot.end[i] - start;
      TimeNs delay = start - api.hot.end[l.event];
      uint8_t flags = 0;
      if (gpu < cpu) flags |= kShortOp;
      if (cpu > o.runtimeOutlier) flags |= kRuntimeOutlier;
      if (delay > o.delayOutlier) flags |= kDelayOutlier;
      if (flags) out.flagged.push_back({t, i, l.track, l.event, cpu, gpu, delay, flags});
      uint64_t key = (uint64_t{rank} << 32) | track.hot.name[i];
      auto [it, added] = index.try_emplace(key, out.byName.size());
      if (added) {
        LaunchSummary sum;
        sum.rank = rank;
        sum.rankNumber = rank < s.ranks.size() ? s.ranks[rank].rank : 0;
        sum.name = track.hot.name[i];
        sum.label = std::string(s.str(sum.name));
        sum.kind = track.kind;
        out.byName.push_back(sum);
      }
      LaunchSummary& sum = out.byName[it->second];
      ++sum.count;
      sum.cpuTotal += cpu, sum.gpuTotal += gpu, sum.delayTotal += delay;
      sum.delayMax = sum.count == 1 ? delay : std::max(sum.delayMax, delay);
      sum.shortOps += (flags & kShortOp) != 0;
      sum.runtimeOutliers += (flags & kRuntimeOutlier) != 0;
      sum.delayOutliers += (flags & kDelayOutlier) != 0;
    }
  }
  std::sort(out.byName.begin(), out.byName.end(),
            [](const LaunchSummary& a, const LaunchSummary& b) {
              if (a.rank != b.rank) return a.rank < b.rank;
              if (a.gpuTotal != b.gpuTotal) return a.gpuTotal > b.gpuTotal;
              // By name, not string id: the same order whichever session holds the rank.
              return a.label < b.label;
            });
  return out;
}

}  // namespace ts
