// launch_bound: most GPU operations of a rank end sooner than the CPU takes to launch them
// (short operations, as the launch statistics flag them) and the GPU does wait for them: a
// short operation behind a deep queue costs nothing, so the cost is the host-wait idle before
// the short operations (the stream had drained and the launch came late).
#include <algorithm>
#include <string>

#include "analysis/diagnosis.h"
#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleLaunchBound(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  const LaunchStats& stats = in.diagnosis.launch;
  auto builders = buildersPerRank(s, "launch_bound");
  for (FindingBuilder& b : builders) b.setOccurrence("wait for launches");
  std::vector<uint64_t> launched(builders.size()), shortOps(builders.size());
  std::vector<TimeNs> cpu(builders.size()), gpu(builders.size());
  for (const LaunchSummary& l : stats.byName) {
    size_t r = std::min<size_t>(l.rank, builders.size() - 1);
    launched[r] += l.count;
    shortOps[r] += l.shortOps;
  }
  // Host-wait gaps by the operation after them, to join with the flagged operations (both in
  // (track, event) order).
  std::vector<const IdleGap*> waits;
  for (const IdleGap& g : in.diagnosis.gaps) {
    if (g.cause == IdleCause::HostWait) waits.push_back(&g);
  }
  std::sort(waits.begin(), waits.end(), [](const IdleGap* a, const IdleGap* b) {
    return a->nextTrack != b->nextTrack ? a->nextTrack < b->nextTrack : a->nextEvent < b->nextEvent;
  });
  size_t w = 0;
  for (const FlaggedLaunch& f : stats.flagged) {
    while (w < waits.size() && std::make_pair(waits[w]->nextTrack, waits[w]->nextEvent) <
                                   std::make_pair(f.track, f.event))
      ++w;
    if (!(f.flags & kShortOp)) continue;
    const Track& op = s.tracks[f.track];
    size_t r = std::min<size_t>(rankOfTrack(s, op), builders.size() - 1);
    if (static_cast<double>(shortOps[r]) <=
        in.options.launchBoundShare * static_cast<double>(launched[r]))
      continue;
    cpu[r] += f.cpu, gpu[r] += f.gpu;
    if (w < waits.size() && waits[w]->nextTrack == f.track && waits[w]->nextEvent == f.event)
      builders[r].add(waits[w]->start, op.hot.end[f.event], waits[w]->end - waits[w]->start,
                      f.track, f.event);
  }
  for (size_t r = 0; r < builders.size(); ++r) {
    if (builders[r].empty()) continue;
    auto n = static_cast<TimeNs>(shortOps[r]);
    out.findings.push_back(builders[r].finish(
        formatCount(shortOps[r]) + " of " + countOf(launched[r], "operation") + " (" +
            percentOf(static_cast<double>(shortOps[r]) / static_cast<double>(launched[r])) +
            ") ran shorter on the GPU than the CPU took to launch them (launches of " +
            formatDuration(cpu[r] / n) + " on average for " + formatDuration(gpu[r] / n) +
            " of GPU work); the GPU sat idle waiting for the launch before " +
            formatCount(builders[r].count()) + " of them" + ", " +
            formatDuration(builders[r].cost()) + " in all.",
        "Give the GPU more work per launch: fuse small kernels (torch.compile), capture the "
        "step in a CUDA graph (mode=\"reduce-overhead\") so that one launch replays it all, "
        "raise the batch size, or avoid per-element Python loops over tensors."));
  }
  if (stats.ops > stats.withLaunch)
    out.notes.push_back({"launch_bound", stats.ops - stats.withLaunch});
}

}  // namespace ts
