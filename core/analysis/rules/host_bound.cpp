// host_bound: steps in which the GPU sat idle waiting for the CPU to launch its next operation
// for more than 10 % of the step: the CPU, not the GPU, sets the pace. Counted on the GPU as a
// whole: the time inside a host-wait gap of some stream (as the idle breakdown classifies each
// gap) while no stream of the rank ran anything — one stream waiting while another computes
// costs nothing, and streams waiting together count once.
#include <algorithm>
#include <string>

#include "analysis/diagnosis.h"
#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleHostBound(const RuleInput& in, RuleOutput& out) {
  const size_t ranks = in.busy.byRank.size();
  std::vector<std::vector<Interval>> waiting(ranks), waitingBusy(ranks);
  for (const IdleGap& g : in.diagnosis.gaps) {
    if (g.cause != IdleCause::HostWait || g.stream >= in.session.streams.size()) continue;
    uint32_t device = in.session.streams[g.stream].device;
    uint32_t rank = device < in.session.devices.size() ? in.session.devices[device].rank : 0;
    waiting[std::min<size_t>(rank, ranks - 1)].push_back({g.start, g.end});
  }
  for (size_t r = 0; r < ranks; ++r) {
    mergeIntervals(waiting[r]);
    waitingBusy[r] = intersectIntervals(waiting[r], in.busy.byRank[r]);
  }
  auto j = windowsAbove(in, "host_bound", in.options.hostBoundShare, [&](const Step& w) {
    size_t r = std::min<size_t>(w.rank, ranks - 1);
    return coveredWithin(waiting[r], w.start, w.end) -
           coveredWithin(waitingBusy[r], w.start, w.end);
  });
  bool unknown = false;
  for (const Step& w : in.windows) unknown |= w.idle[static_cast<int>(IdleCause::Unknown)] > 0;
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
  if (unknown)
    out.notes.push_back(
        "host_bound: some idle gaps have an unknown cause (their operations' launching calls "
        "are not in the trace), so host wait may be more than shown.");
}

}  // namespace ts
