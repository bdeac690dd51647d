#include "analysis/intervals.h"

#include <algorithm>

namespace ts {

void mergeIntervals(std::vector<Interval>& iv) {
  std::sort(iv.begin(), iv.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  size_t out = 0;
  for (const Interval& x : iv) {
    if (x.end <= x.start) continue;
    if (out > 0 && x.start <= iv[out - 1].end) {
      iv[out - 1].end = std::max(iv[out - 1].end, x.end);
    } else {
      iv[out++] = x;
    }
  }
  iv.resize(out);
}

TimeNs coveredLength(const std::vector<Interval>& merged) {
  TimeNs total = 0;
  for (const Interval& x : merged) total += x.length();
  return total;
}

TimeNs coveredWithin(const std::vector<Interval>& merged, TimeNs a, TimeNs b) {
  auto it = std::lower_bound(merged.begin(), merged.end(), a,
                             [](const Interval& x, TimeNs t) { return x.end <= t; });
  TimeNs total = 0;
  for (; it != merged.end() && it->start < b; ++it)
    total += std::min(it->end, b) - std::max(it->start, a);
  return total;
}

std::vector<Interval> intersectIntervals(const std::vector<Interval>& a,
                                         const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    TimeNs s = std::max(a[i].start, b[j].start), e = std::min(a[i].end, b[j].end);
    if (e > s) out.push_back({s, e});
    // The one that ends first cannot meet anything later in the other set.
    if (a[i].end < b[j].end)
      ++i;
    else
      ++j;
  }
  return out;
}

std::vector<Interval> gapsBetween(const std::vector<Interval>& merged, TimeNs minLength) {
  std::vector<Interval> gaps;
  for (size_t i = 1; i < merged.size(); ++i) {
    Interval g{merged[i - 1].end, merged[i].start};
    if (g.length() >= minLength && g.length() > 0) gaps.push_back(g);
  }
  return gaps;
}

std::pair<TimeNs, TimeNs> bucketBounds(TimeNs start, TimeNs end, int buckets, int i) {
  TimeNs width = (end - start) / buckets;
  TimeNs s = start + width * i;
  return {s, i + 1 == buckets ? end : s + width};
}

std::vector<double> bucketCoverage(const std::vector<Interval>& merged, TimeNs start, TimeNs end,
                                   int buckets) {
  std::vector<double> out(static_cast<size_t>(std::max(buckets, 0)), 0.0);
  if (buckets <= 0 || end <= start) return out;
  // Both the buckets and the intervals are sorted: one pass over each.
  auto first = std::lower_bound(merged.begin(), merged.end(), start,
                                [](const Interval& x, TimeNs t) { return x.end <= t; });
  for (int b = 0; b < buckets; ++b) {
    auto [bs, be] = bucketBounds(start, end, buckets, b);
    TimeNs covered = 0;
    for (auto it = first; it != merged.end() && it->start < be; ++it) {
      covered += std::max<TimeNs>(0, std::min(it->end, be) - std::max(it->start, bs));
    }
    while (first != merged.end() && first->end <= be) ++first;
    if (be > bs)
      out[static_cast<size_t>(b)] = static_cast<double>(covered) / static_cast<double>(be - bs);
  }
  return out;
}

}  // namespace ts
