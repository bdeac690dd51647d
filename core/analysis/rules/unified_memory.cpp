// unified_memory: unified-memory page migrations (the copies the driver made, copy kinds 11-13 in
// Nsight exports) inside the steps: pages that fault and move on demand stall the kernels that
// touch them.
#include <algorithm>
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleUnifiedMemory(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  auto builders = buildersPerRank(s, "unified_memory");
  for (FindingBuilder& b : builders) b.setOccurrence("migration");
  std::vector<uint64_t> bytes(builders.size());
  // A step's window, by rank: the steps are sorted by rank, then start.
  auto inWindow = [&](uint32_t rank, TimeNs t) {
    auto it = std::upper_bound(in.windows.begin(), in.windows.end(), std::make_pair(rank, t),
                               [](const std::pair<uint32_t, TimeNs>& k, const Step& w) {
                                 return k.first != w.rank ? k.first < w.rank : k.second < w.start;
                               });
    if (it == in.windows.begin()) return false;
    --it;
    return it->rank == rank && t < it->end;
  };
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (track.kind != EventKind::Memcpy) continue;
    uint32_t rank = rankOfTrack(s, track);
    size_t r = std::min<size_t>(rank, builders.size() - 1);
    for (uint32_t i = 0; i < track.size(); ++i) {
      TimeNs a = track.hot.start[i];
      if (a < in.range.start || a >= in.range.end) continue;
      // Sessions saved before the flag existed named their migrations "Unified Memory …".
      if (!track.memcpys.migration[i] && !s.str(track.hot.name[i]).starts_with("Unified Memory"))
        continue;
      if (!inWindow(rank, a)) continue;
      builders[r].add(a, track.hot.end[i], track.hot.end[i] - a, t, i);
      bytes[r] += track.memcpys.bytes[i];
    }
  }
  for (size_t r = 0; r < builders.size(); ++r) {
    if (builders[r].empty()) continue;
    out.findings.push_back(builders[r].finish(
        countOf(builders[r].count(), "unified-memory migration") + " (" + formatBytes(bytes[r]) +
            ", " + formatDuration(builders[r].cost()) + ") moved pages on demand " +
            (in.windowsAreSteps ? "inside the steps." : "inside the range."),
        "Prefetch managed memory before the kernels need it (cudaMemPrefetchAsync), give "
        "placement hints (cudaMemAdvise), or allocate the tensors in device memory."));
  }
}

}  // namespace ts
