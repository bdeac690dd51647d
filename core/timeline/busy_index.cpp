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
  BusyIndex index;
  extendBusyIndex(index, s, kernelTracks, std::vector<size_t>(kernelTracks.size(), 0));
  return index;
}

void extendBusyIndex(BusyIndex& index, const Session& s, const std::vector<uint32_t>& kernelTracks,
                     const std::vector<size_t>& from) {
  std::vector<std::pair<TimeNs, TimeNs>> all;
  size_t n = 0;
  for (size_t k = 0; k < kernelTracks.size(); ++k) {
    const Track& t = s.tracks[kernelTracks[k]];
    n += t.size() - std::min(t.size(), from[k]);
  }
  all.reserve(n);
  TimeNs earliest = INT64_MAX;
  for (size_t k = 0; k < kernelTracks.size(); ++k) {
    const Track& t = s.tracks[kernelTracks[k]];
    for (size_t e = from[k]; e < t.size(); ++e) {
      if (t.hot.end[e] > t.hot.start[e]) all.emplace_back(t.hot.start[e], t.hot.end[e]);
    }
    if (from[k] < t.size()) earliest = std::min(earliest, t.hot.start[from[k]]);
  }
  if (all.empty()) return;
  // Intervals that end at or after the earliest new start may merge with what is new: out, and
  // in again below (those before it end before anything new starts, so they stay as they are).
  const auto keep = static_cast<size_t>(
      std::lower_bound(index.end.begin(), index.end.end(), earliest) - index.end.begin());
  TimeNs busy = keep < index.start.size() ? index.before[keep] : 0;
  if (keep == index.start.size() && keep > 0)
    busy = index.before[keep - 1] + (index.end[keep - 1] - index.start[keep - 1]);
  for (size_t i = keep; i < index.start.size(); ++i) all.emplace_back(index.start[i], index.end[i]);
  index.start.truncate(keep);
  index.end.truncate(keep);
  index.before.truncate(keep);
  index.coarse.truncate((keep + BusyIndex::kStride - 1) / BusyIndex::kStride);
  std::sort(all.begin(), all.end());
  TimeNs lastEnd = keep > 0 ? index.end[keep - 1] : INT64_MIN;
  for (auto [a, b] : all) {
    if (index.start.size() > keep && a <= lastEnd) {  // overlaps or touches the last one
      if (b > lastEnd) {
        busy += b - lastEnd;
        lastEnd = b;
        index.end.set(index.end.size() - 1, b);
      }
      continue;
    }
    index.start.grow(a);
    index.end.grow(b);
    index.before.grow(busy);
    busy += b - a;
    lastEnd = b;
  }
  for (size_t i = index.coarse.size() * BusyIndex::kStride; i < index.start.size();
       i += BusyIndex::kStride)
    index.coarse.grow(index.start[i]);
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
