#include "analysis/range_summary.h"

#include <algorithm>

#include "analysis/intervals.h"

namespace ts {

RangeSummary summarizeRange(const Session& s, TimeNs start, TimeNs end, const Progress& progress) {
  RangeSummary r;
  r.start = start;
  r.end = end;
  r.gpuBusy.assign(s.devices.size(), 0.0);
  if (end <= start) return r;
  std::vector<std::vector<Interval>> busy(s.devices.size());
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Kernel && t.kind != EventKind::Memcpy) continue;
    if (progress.cancelled()) return r;  // a newer selection: this one is not shown
    for (uint32_t lane = 0; lane < t.laneCount(); ++lane) {
      LaneSpan span = t.laneRange(lane, start, end);
      for (uint32_t p = span.begin; p < span.end; ++p) {
        uint32_t e = t.laneEvent(lane, p);
        if (t.kind == EventKind::Kernel) {
          ++r.kernels;
          busy[t.device].push_back({std::max(t.hot.start[e], start), std::min(t.hot.end[e], end)});
        } else if (t.hot.start[e] >= start && !t.memcpys.migration[e]) {  // the program's copies
          r.copyBytes[static_cast<size_t>(t.memcpys.copyKind[e])] += t.memcpys.bytes[e];
          ++r.copies;
        }
      }
    }
  }
  // Busy time is the union of kernel intervals: concurrent kernels count once.
  for (size_t d = 0; d < busy.size(); ++d) {
    mergeIntervals(busy[d]);
    r.gpuBusy[d] = static_cast<double>(coveredLength(busy[d])) / static_cast<double>(end - start);
  }
  return r;
}

}  // namespace ts
