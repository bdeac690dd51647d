#include "analysis/range_summary.h"

#include <algorithm>

namespace ts {

RangeSummary summarizeRange(const Session& s, TimeNs start, TimeNs end) {
  RangeSummary r;
  r.start = start;
  r.end = end;
  r.gpuBusy.assign(s.devices.size(), 0.0);
  if (end <= start) return r;
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> busy(s.devices.size());
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Kernel && t.kind != EventKind::Memcpy) continue;
    for (uint32_t lane = 0; lane < t.laneCount(); ++lane) {
      LaneSpan span = t.laneRange(lane, start, end);
      for (uint32_t p = span.begin; p < span.end; ++p) {
        uint32_t e = t.laneEvent(lane, p);
        if (t.kind == EventKind::Kernel) {
          ++r.kernels;
          busy[t.device].emplace_back(std::max(t.hot.start[e], start), std::min(t.hot.end[e], end));
        } else if (t.hot.start[e] >= start) {
          r.copyBytes[static_cast<size_t>(t.memcpys.copyKind[e])] += t.memcpys.bytes[e];
          ++r.copies;
        }
      }
    }
  }
  // Busy time is the union of kernel intervals: concurrent kernels count once.
  for (size_t d = 0; d < busy.size(); ++d) {
    auto& iv = busy[d];
    std::sort(iv.begin(), iv.end());
    TimeNs covered = 0, curStart = 0, curEnd = INT64_MIN;
    for (auto [a, b] : iv) {
      if (a > curEnd) {
        if (curEnd > curStart) covered += curEnd - curStart;
        curStart = a, curEnd = b;
      } else {
        curEnd = std::max(curEnd, b);
      }
    }
    if (curEnd > curStart) covered += curEnd - curStart;
    r.gpuBusy[d] = static_cast<double>(covered) / static_cast<double>(end - start);
  }
  return r;
}

}  // namespace ts
