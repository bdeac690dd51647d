// gpu_time_util (nsys): each GPU's span (its first operation to its last) cut into equal chunks
// (30); chunks in which the GPU was busy less than the threshold (50 %) of the time are low
// utilisation, reported as runs of neighbouring chunks. The cost is the idle time inside them.
#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/rules/rules.h"
#include "util/format.h"

namespace ts {

void ruleGpuTimeUtil(const RuleInput& in, RuleOutput& out) {
  const Session& s = in.session;
  const int chunks = std::max(in.options.utilisationChunks, 1);
  for (uint32_t d = 0; d < in.busy.byDevice.size(); ++d) {
    const auto& busy = in.busy.byDevice[d];
    if (busy.empty()) continue;
    TimeNs first = busy.front().start, last = busy.back().end;
    if (last - first < chunks) continue;
    auto coverage = bucketCoverage(busy, first, last, chunks);
    FindingBuilder b("gpu_time_util", rankNumberOf(s, s.devices[d].rank));
    b.setOccurrence("stretch of low use");
    size_t lowChunks = 0;
    for (int i = 0; i < chunks;) {
      if (coverage[i] * 100 >= in.options.lowUtilisation) {
        ++i;
        continue;
      }
      int j = i;  // a run of low chunks [i, j)
      TimeNs idle = 0;
      for (; j < chunks && coverage[j] * 100 < in.options.lowUtilisation; ++j) {
        auto [a, e] = bucketBounds(first, last, chunks, j);
        idle += (e - a) - coveredWithin(busy, a, e);
      }
      b.add(bucketBounds(first, last, chunks, i).first,
            bucketBounds(first, last, chunks, j - 1).second, idle);
      lowChunks += static_cast<size_t>(j - i);
      i = j;
    }
    if (b.empty()) continue;
    char threshold[16];
    std::snprintf(threshold, sizeof threshold, "%.0f %%", in.options.lowUtilisation);
    out.findings.push_back(b.finish(
        findingDeviceLabel(in, d) + " was busy less than " + threshold + " of the time in " +
            std::to_string(lowChunks) + " of the " + std::to_string(chunks) +
            " equal parts of its span (" + countOf(b.count(), "stretch") + "), idle for " +
            formatDuration(b.cost()) + " inside them.",
        "Zoom to a stretch and read the idle gaps' causes: host wait (the CPU launches too "
        "slowly), synchronisation, data loading or communication waits each have their own "
        "remedy in the other findings."));
  }
}

}  // namespace ts
