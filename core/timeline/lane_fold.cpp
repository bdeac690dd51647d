#include "timeline/lane_fold.h"

#include <algorithm>
#include <array>
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
  using Block = LaneSummary::Block;
  const Track& t = *v.track;
  const uint32_t n = v.size();
  if (s.levels.empty()) s.levels.emplace_back();
  // The first block of a level made again; those before it hold what they held.
  size_t changed = summarized == 0 ? 0 : (summarized - 1) / kSummaryBlock;
  s.levels[0].truncate(changed);
  for (size_t b = changed * kSummaryBlock; b < n; b += kSummaryBlock) {
    Block block{t.hot.start[v.event(static_cast<uint32_t>(b))], 0, 0, 0};
    TimeNs previousEnd = block.firstStart;
    for (size_t p = b; p < std::min<size_t>(n, b + kSummaryBlock); ++p) {
      uint32_t e = v.event(static_cast<uint32_t>(p));
      block.maxDuration = std::max(block.maxDuration, t.effectiveEnd(e) - t.hot.start[e]);
      block.maxGap = std::max(block.maxGap, t.hot.start[e] - previousEnd);
      previousEnd = t.effectiveEnd(e);
    }
    block.lastEnd = previousEnd;
    s.levels[0].grow(block);
  }
  size_t k = 0;
  for (; s.levels[k].size() > kSummaryBlock; ++k) {
    if (k + 1 == s.levels.size()) {
      s.levels.emplace_back();
      changed = 0;
    } else {
      changed /= kSummaryBlock;
    }
    const LaneSummary::Blocks& below = s.levels[k];
    LaneSummary::Blocks& level = s.levels[k + 1];
    level.truncate(changed);
    for (size_t b = changed * kSummaryBlock; b < below.size(); b += kSummaryBlock) {
      Block block = below[b];
      for (size_t c = b + 1; c < std::min(below.size(), b + kSummaryBlock); ++c) {
        const Block& x = below[c];
        block.maxDuration = std::max(block.maxDuration, x.maxDuration);
        block.maxGap = std::max({block.maxGap, x.maxGap, x.firstStart - block.lastEnd});
        block.lastEnd = x.lastEnd;
      }
      level.grow(block);
    }
  }
  s.levels.resize(k + 1);  // a view summarised again from 0 may need fewer levels
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
    // once (see LaneSummary): the coarsest block that holds q and passes, level over level. A
    // block of level k + 1 holds the one of level k, so when the first level's fails, all do.
    // A first-level block narrower than a pixel is left to the next column's search, which
    // costs one step whatever it skips: a frame stays bounded by pixels × levels.
    if (v.summary && !v.summary->levels.empty()) {
      const std::vector<LaneSummary::Blocks>& levels = v.summary->levels;
      const double pixel = axis.nsPerPixel();
      TimeNs lastEnd = t.effectiveEnd(v.event(q - 1));
      // The block (or the rest of it, from q) must end in view, hold only narrow events and
      // narrow gaps, and follow the run closely.
      auto passes = [&](const LaneSummary::Block& block) {
        ++out.steps;
        return block.lastEnd < t1 && static_cast<double>(block.maxDuration) < minBoxPx * pixel &&
               static_cast<double>(std::max(block.maxGap, block.firstStart - lastEnd)) <
                   kRunGapPx * pixel;
      };
      // The block of each level found failing: it holds q until q passes it.
      std::array<size_t, 8> failed;
      failed.fill(~size_t{0});
      while (q < n && q / kSummaryBlock < levels[0].size()) {
        const LaneSummary::Block& first = levels[0][q / kSummaryBlock];
        if (!passes(first)) break;
        const LaneSummary::Block* take = &first;
        uint64_t takeSpan = kSummaryBlock, span = kSummaryBlock;
        for (size_t k = 1; k < levels.size(); ++k) span *= kSummaryBlock;
        for (size_t k = levels.size() - 1; k > 0; --k, span /= kSummaryBlock) {
          const size_t b = q / span;
          if (b >= levels[k].size() || k >= failed.size() || failed[k] == b) continue;
          if (passes(levels[k][b])) {
            take = &levels[k][b], takeSpan = span;
            break;
          }
          failed[k] = b;
        }
        if (take == &first && static_cast<double>(first.lastEnd - first.firstStart) < pixel) break;
        q = static_cast<uint32_t>(std::min<uint64_t>(n, (q / takeSpan + 1) * takeSpan));
        lastEnd = take->lastEnd;
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
