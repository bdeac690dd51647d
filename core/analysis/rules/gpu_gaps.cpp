// gpu_gaps (nsys): stretches where a GPU ran nothing at all (no kernel, copy or memset on any
// stream) for at least the threshold (500 ms); the time before its first operation and after
// its last is not a gap.
#include <algorithm>
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleGpuGaps(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  for (uint32_t d = 0; d < in.busy.byDevice.size(); ++d) {
    auto gaps = gapsBetween(in.busy.byDevice[d], in.options.gapThreshold);
    if (gaps.empty()) continue;
    FindingBuilder b("gpu_gaps", rankNumberOf(s, s.devices[d].rank));
    b.setOccurrence("gap");
    for (const Interval& g : gaps) b.add(g.start, g.end, g.length());
    TimeNs longestGap = 0;
    for (const Interval& g : gaps) longestGap = std::max(longestGap, g.length());
    out.findings.push_back(b.finish(
        findingDeviceLabel(in, d) + " sat idle in " + countOf(gaps.size(), "gap") +
            " of at least " + formatDuration(in.options.gapThreshold) + ": " +
            formatDuration(b.cost()) + " in all, the longest " + formatDuration(longestGap) + ".",
        "Look at the CPU threads during the gaps (zoom to one): data loading, checkpointing, "
        "evaluation, logging or a synchronisation keep the GPU waiting. Overlap them with GPU "
        "work (DataLoader workers, asynchronous checkpoints) or move them out of the loop."));
  }
}

}  // namespace ts
