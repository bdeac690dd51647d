// host_bound: steps in which the GPU sat idle waiting for the CPU to launch its next operation
// for more than 10 % of the step: the CPU, not the GPU, sets the pace. Counted on the GPU as a
// whole: a stretch with no stream of the rank running anything is host wait when the operation
// that ends it — the first to start again — waited for its launch (its gap is host wait, as the
// idle breakdown classifies each gap). A rarely used stream sits in long host-wait gaps; they do
// not make the GPU's other idle stretches host wait, nor does one stream waiting while another
// computes cost anything.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "analysis/diagnosis.h"
#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleHostBound(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  const size_t ranks = in.stepBusy.byRank.size();
  // Per rank, when an operation that waited for its launch started, and the longest such wait
  // ending then (for the stretch before a rank's first operation).
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> resumes(ranks);  // (start, gap start)
  for (const IdleGap& g : in.stepGaps) {
    if (g.cause != IdleCause::HostWait || g.stream >= s.streams.size()) continue;
    uint32_t device = s.streams[g.stream].device;
    uint32_t rank = device < s.devices.size() ? s.devices[device].rank : 0;
    const TimeNs start = s.tracks[g.nextTrack].hot.start[g.nextEvent];
    resumes[std::min<size_t>(rank, ranks - 1)].emplace_back(start, g.start);
  }
  std::vector<std::vector<Interval>> waiting(ranks);
  for (size_t r = 0; r < ranks; ++r) {
    auto& at = resumes[r];
    std::sort(at.begin(), at.end());
    // The earliest gap start among the waits ending at `t`, or none.
    auto waitedUntil = [&](TimeNs t) -> std::optional<TimeNs> {
      auto it =
          std::lower_bound(at.begin(), at.end(), std::pair(t, std::numeric_limits<TimeNs>::min()));
      if (it == at.end() || it->first != t) return std::nullopt;
      return it->second;
    };
    const std::vector<Interval>& busy = in.stepBusy.byRank[r];
    for (size_t i = 0; i < busy.size(); ++i) {
      auto from = waitedUntil(busy[i].start);
      if (!from) continue;
      // Idle since the previous busy stretch (before the first: since the wait began).
      const TimeNs idleFrom = i > 0 ? busy[i - 1].end : *from;
      if (idleFrom < busy[i].start) waiting[r].push_back({idleFrom, busy[i].start});
    }
  }
  auto j = windowsAbove(in, "host_bound", in.options.hostBoundShare, [&](const Step& w) {
    size_t r = std::min<size_t>(w.rank, ranks - 1);
    return coveredWithin(waiting[r], w.start, w.end);
  });
  uint64_t unknown = 0;
  for (const IdleGap& g : in.stepGaps) unknown += g.cause == IdleCause::Unknown;
  for (size_t r = 0; r < j.builders.size(); ++r) {
    if (j.builders[r].empty()) continue;
    out.findings.push_back(j.builders[r].finish(
        "The GPU waited for the CPU to launch work for " + formatDuration(j.builders[r].cost()) +
            " " + j.where(in, r) + " (" + j.share(r) + " of their time; above " +
            percentOf(in.options.hostBoundShare) + " each).",
        "Launch less from Python: capture the step in a CUDA graph (torch.compile with "
        "mode=\"reduce-overhead\", torch.cuda.graphs), fuse small operations (torch.compile), "
        "raise the batch size, and move CPU work such as preprocessing or logging out of the "
        "step. Check that the CPU is not shared with other busy processes."));
  }
  if (unknown) out.notes.push_back({"host_bound", unknown});
}

}  // namespace ts
