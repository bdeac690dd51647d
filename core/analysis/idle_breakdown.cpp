#include "analysis/idle_breakdown.h"

#include <algorithm>

namespace ts {

std::string_view toString(IdleCause cause) {
  switch (cause) {
    case IdleCause::HostWait:
      return "host wait";
    case IdleCause::KernelWait:
      return "kernel wait";
    case IdleCause::Other:
      return "other";
    case IdleCause::Unknown:
      return "unknown";
  }
  return "unknown";
}

std::vector<IdleGap> idleGaps(const Session& s, const LaunchIndex& launches, const IdleOptions& o) {
  struct Op {
    TimeNs start, end;
    uint32_t track, event;
  };
  // A stream's operations are on several tracks (kernels, copies, memsets): gathered, then in
  // time order. Gaps are found over the whole stream and clipped to the range afterwards, so the
  // first gap inside the range still knows what ran before it.
  std::vector<std::vector<Op>> byStream(s.streams.size());
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (!isGpuOp(track.kind) || track.stream >= s.streams.size()) continue;
    for (uint32_t i = 0; i < track.size(); ++i)
      byStream[track.stream].push_back({track.hot.start[i], track.hot.end[i], t, i});
  }
  std::vector<IdleGap> gaps;
  for (uint32_t st = 0; st < byStream.size(); ++st) {
    std::vector<Op>& ops = byStream[st];
    std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
    // The latest end so far: a stream runs its work in order, but a trace may carry overlaps.
    TimeNs previousEnd = ops.empty() ? 0 : ops[0].end;
    for (size_t k = 1; k < ops.size(); ++k) {
      const Op& op = ops[k];
      TimeNs before = previousEnd;
      previousEnd = std::max(previousEnd, op.end);
      if (op.start <= before) continue;
      IdleCause cause;
      LaunchRef launch = launches.launchOf(op.track, op.event);
      if (!launch.known())
        cause = IdleCause::Unknown;
      else if (s.tracks[launch.track].hot.start[launch.event] > before)
        cause = IdleCause::HostWait;
      else if (op.start - before < o.kernelWaitBelow)
        cause = IdleCause::KernelWait;
      else
        cause = IdleCause::Other;
      TimeNs a = std::max(before, o.range.start), b = std::min(op.start, o.range.end);
      if (b > a) gaps.push_back({st, a, b, cause, op.track, op.event});
    }
  }
  return gaps;
}

std::vector<StreamIdle> idleByStream(const Session& s, const std::vector<IdleGap>& gaps) {
  std::vector<StreamIdle> rows(s.streams.size());
  std::vector<bool> hasOps(s.streams.size(), false);
  for (const Track& t : s.tracks) {
    if (isGpuOp(t.kind) && t.stream < hasOps.size() && t.size()) hasOps[t.stream] = true;
  }
  for (uint32_t st = 0; st < rows.size(); ++st) {
    rows[st].stream = st;
    rows[st].streamId = s.streams[st].streamId;
    uint32_t device = s.streams[st].device;
    uint32_t rank = device < s.devices.size() ? s.devices[device].rank : 0;
    rows[st].rank = rank < s.ranks.size() ? s.ranks[rank].rank : 0;
  }
  for (const IdleGap& g : gaps) {
    rows[g.stream].time[static_cast<int>(g.cause)] += g.end - g.start;
    ++rows[g.stream].gaps[static_cast<int>(g.cause)];
  }
  std::vector<StreamIdle> out;
  for (uint32_t st = 0; st < rows.size(); ++st) {
    if (hasOps[st]) out.push_back(rows[st]);
  }
  std::stable_sort(out.begin(), out.end(), [](const StreamIdle& a, const StreamIdle& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.streamId < b.streamId;
  });
  return out;
}

}  // namespace ts
