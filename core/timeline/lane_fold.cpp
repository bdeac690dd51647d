#include "timeline/lane_fold.h"

#include <algorithm>
#include <cmath>

namespace ts {

namespace {

// First position whose effective end is after t.
uint32_t firstEndingAfter(const LaneView& v, TimeNs t) {
  uint32_t lo = 0, hi = v.size();
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (v.track->effectiveEnd(v.event(mid)) > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// First position at or after `from` whose start is at or after t. Galloping first: the answer is
// usually near `from` (one pixel column further), so this costs O(log distance), not O(log n).
uint32_t firstStartingAt(const LaneView& v, uint32_t from, TimeNs t) {
  const uint32_t n = v.size();
  uint32_t lo = from, step = 1;
  while (lo + step < n && v.track->hot.start[v.event(lo + step)] < t) {
    lo += step;
    step *= 2;
  }
  uint32_t hi = std::min(n, lo + step);
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (v.track->hot.start[v.event(mid)] >= t)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

}  // namespace

LaneSummary summarizeLane(const LaneView& v) {
  LaneSummary s;
  extendLaneSummary(s, v, 0);
  return s;
}

void extendLaneSummary(LaneSummary& s, const LaneView& v, uint32_t summarized) {
  const Track& t = *v.track;
  const uint32_t n = v.size();
  const uint32_t first = summarized == 0 ? 0 : (summarized - 1) / kSummaryBlock;
  s.blocks.truncate(first);
  for (uint32_t b = first * kSummaryBlock; b < n; b += kSummaryBlock) {
    LaneSummary::Block block{t.hot.start[v.event(b)], 0, 0, 0};
    TimeNs previousEnd = block.firstStart;
    for (uint32_t p = b; p < std::min(n, b + kSummaryBlock); ++p) {
      uint32_t e = v.event(p);
      block.maxDuration = std::max(block.maxDuration, t.effectiveEnd(e) - t.hot.start[e]);
      block.maxGap = std::max(block.maxGap, t.hot.start[e] - previousEnd);
      previousEnd = t.effectiveEnd(e);
    }
    block.lastEnd = previousEnd;
    s.blocks.grow(block);
  }
}

void foldLane(const LaneView& v, const TimeAxis& axis, int width, double minBoxPx, LaneDraw& out) {
  const Track& t = *v.track;
  const TimeNs t0 = axis.start(), t1 = axis.end(width);
  const uint32_t n = v.size();
  for (uint32_t p = firstEndingAfter(v, t0); p < n;) {
    ++out.steps;
    uint32_t e = v.event(p);
    if (t.hot.start[e] >= t1) break;
    double x0 = axis.xOf(t.hot.start[e]), x1 = axis.xOf(t.effectiveEnd(e));
    if (x1 - x0 >= minBoxPx) {
      out.boxes.push_back({x0, x1, e});
      ++p;
      continue;
    }
    // Fold every event that starts before the next pixel boundary. In a lane only the last of
    // them can be wide (the others end before it starts): that one is drawn as a box next.
    double boundary = std::floor(std::max(x0, 0.0)) + 1;
    uint32_t q = std::max(p + 1, firstStartingAt(v, p + 1, axis.timeAt(boundary)));
    if (q - 1 > p) {
      uint32_t last = v.event(q - 1);
      if (axis.xOf(t.effectiveEnd(last)) - axis.xOf(t.hot.start[last]) >= minBoxPx) --q;
    }
    // Zoomed out, whole blocks of sub-pixel events separated by sub-pixel gaps join the run at
    // once (see LaneSummary).
    if (v.summary) {
      const double pixel = axis.nsPerPixel();
      TimeNs lastEnd = t.effectiveEnd(v.event(q - 1));
      for (size_t b = q / kSummaryBlock; q < n && b < v.summary->blocks.size(); ++b) {
        const LaneSummary::Block& block = v.summary->blocks[b];
        // The block (or the rest of it, from q) must end in view, hold only narrow events and
        // narrow gaps, and follow the run closely.
        if (block.lastEnd >= t1 || static_cast<double>(block.maxDuration) >= minBoxPx * pixel ||
            static_cast<double>(std::max(block.maxGap, block.firstStart - lastEnd)) >=
                kRunGapPx * pixel) {
          break;
        }
        ++out.steps;
        q = std::min<uint32_t>(n, static_cast<uint32_t>((b + 1) * kSummaryBlock));
        lastEnd = block.lastEnd;
      }
    }
    double runEnd = std::max(boundary, axis.xOf(t.effectiveEnd(v.event(q - 1))));
    if (!out.runs.empty() && x0 - out.runs.back().x1 < kRunGapPx) {
      out.runs.back().x1 = std::max(out.runs.back().x1, runEnd);  // adjacent columns: one run
      out.runs.back().count += q - p;
    } else {
      out.runs.push_back({x0, runEnd, q - p, e});
    }
    p = q;
  }
}

uint32_t pickLane(const LaneView& v, const TimeAxis& axis, double x, double tolerancePx) {
  const Track& t = *v.track;
  TimeNs at = axis.timeAt(x);
  uint32_t p = firstEndingAfter(v, at);
  if (p < v.size() && t.hot.start[v.event(p)] <= at) return v.event(p);  // directly under x
  // Nothing under x: the nearest event within the tolerance, on either side.
  uint32_t best = kNone;
  double bestDistance = tolerancePx;
  auto consider = [&](uint32_t position) {
    if (position >= v.size()) return;
    uint32_t e = v.event(position);
    double x0 = axis.xOf(t.hot.start[e]), x1 = axis.xOf(t.effectiveEnd(e));
    double d = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
    if (d <= bestDistance) best = e, bestDistance = d;
  };
  if (p > 0) consider(p - 1);
  consider(p);
  return best;
}

void mergeLaneRuns(std::vector<ColouredRun>& runs) {
  std::sort(runs.begin(), runs.end(),
            [](const ColouredRun& x, const ColouredRun& y) { return x.x0 < y.x0; });
  size_t merged = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    ColouredRun& m = runs[merged];
    if (i > 0 && runs[i].x0 - m.x1 < kRunGapPx) {
      if (runs[i].count > m.top) m.colour = runs[i].colour, m.top = runs[i].count;
      m.x1 = std::max(m.x1, runs[i].x1);
      m.count += runs[i].count;
    } else {
      if (i > 0) ++merged;
      runs[merged] = runs[i];
      runs[merged].top = runs[i].count;
    }
  }
  if (!runs.empty()) runs.resize(merged + 1);
}

}  // namespace ts
