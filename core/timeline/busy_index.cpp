#include "timeline/busy_index.h"

#include <algorithm>

namespace ts {

TimeNs BusyIndex::busyBefore(TimeNs t) const {
  // The last interval starting before t: all of it before t, or the part up to t. Its stride
  // first (the last sampled start <= t), then within that stride.
  auto c = std::upper_bound(coarse.begin(), coarse.end(), t);
  if (c == coarse.begin()) return 0;
  const size_t lo = static_cast<size_t>(c - coarse.begin() - 1) * kStride;
  const size_t hi = std::min(start.size(), lo + kStride);
  auto it = std::upper_bound(start.begin() + static_cast<std::ptrdiff_t>(lo),
                             start.begin() + static_cast<std::ptrdiff_t>(hi), t);
  if (it == start.begin()) return 0;
  const size_t i = static_cast<size_t>(it - start.begin()) - 1;
  return before[i] + (std::min(t, end[i]) - start[i]);
}

BusyIndex buildBusyIndex(const Session& s, const std::vector<uint32_t>& kernelTracks) {
  std::vector<std::pair<TimeNs, TimeNs>> all;
  size_t n = 0;
  for (uint32_t ti : kernelTracks) n += s.tracks[ti].size();
  all.reserve(n);
  for (uint32_t ti : kernelTracks) {
    const Track& t = s.tracks[ti];
    for (uint32_t e = 0; e < t.size(); ++e) {
      if (t.hot.end[e] > t.hot.start[e]) all.emplace_back(t.hot.start[e], t.hot.end[e]);
    }
  }
  std::sort(all.begin(), all.end());
  BusyIndex index;
  TimeNs busy = 0;
  for (auto [a, b] : all) {
    if (!index.end.empty() && a <= index.end.back()) {  // overlaps or touches the last one
      if (b > index.end.back()) {
        busy += b - index.end.back();
        index.end.back() = b;
      }
      continue;
    }
    index.start.push_back(a);
    index.end.push_back(b);
    index.before.push_back(busy);
    busy += b - a;
  }
  for (size_t i = 0; i < index.start.size(); i += BusyIndex::kStride)
    index.coarse.push_back(index.start[i]);
  return index;
}

void foldBusy(const BusyIndex& index, const TimeAxis& axis, int width, std::vector<float>& out) {
  out.assign(static_cast<size_t>(std::max(width, 0)), 0.0f);
  if (index.empty()) return;
  TimeNs from = axis.timeAt(0);
  TimeNs busyFrom = index.busyBefore(from);
  for (int x = 0; x < width; ++x) {
    const TimeNs to = axis.timeAt(x + 1);
    const TimeNs busyTo = index.busyBefore(to);
    if (to > from)
      out[static_cast<size_t>(x)] = static_cast<float>(static_cast<double>(busyTo - busyFrom) /
                                                       static_cast<double>(to - from));
    from = to;
    busyFrom = busyTo;
  }
}

}  // namespace ts
