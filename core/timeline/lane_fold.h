// Folding a lane for drawing: events wide enough are drawn as boxes, the rest are folded into runs
// (a pixel column or more, with the count of events inside) — so a frame costs
// O(pixels × log events) per lane, whatever the number of events. Also hit-testing a lane.
#pragma once

#include <cstdint>
#include <vector>

#include "session/track.h"
#include "timeline/time_axis.h"

namespace ts {

struct LaneSummary;

// One lane of a track, or a subset of it (e.g. only the HtoD copies): events sorted by start and
// not overlapping, so starts and ends are both sorted.
struct LaneView {
  const Track* track = nullptr;
  uint32_t lane = 0;
  const Column<uint32_t>* subset = nullptr;  // event indices; null: the whole lane
  const LaneSummary* summary = nullptr;      // optional: lets folding skip whole blocks

  uint32_t size() const {
    return subset ? static_cast<uint32_t>(subset->size()) : track->laneSize(lane);
  }
  uint32_t event(uint32_t position) const {
    return subset ? (*subset)[position] : track->laneEvent(lane, position);
  }
};

// Per block of kSummaryBlock positions of a lane view: where it starts and ends, its longest event
// and its widest gap. When zoomed out, folding swallows a block whose events and gaps are all
// narrower than a pixel in one step, reading this small contiguous table instead of the events.
// Blocks are summarised again kSummaryBlock at a time, level over level, until a level holds at
// most kSummaryBlock of them: a whole hour of one lane (millions of events) folds in a few
// hundred steps, where one level would take one per 64 events.
inline constexpr uint32_t kSummaryBlock = 64;
// Folded runs closer than this many pixels join: gaps that small carry no information at that
// zoom, and joining them bounds the items drawn per lane by about width / 2.
inline constexpr double kRunGapPx = 2.0;

struct LaneSummary {
  struct Block {
    TimeNs firstStart, lastEnd, maxDuration, maxGap;  // maxGap: between events inside the block
  };
  // Chunks of 1 k blocks (32 KB), not 64 k: a live layout extends a copy of the last snapshot's
  // summary, and the chunk its new blocks go into is copied first (Column::grow).
  using Blocks = Column<Block, 10>;
  // levels[0]: one block per kSummaryBlock positions; levels[k]: one per kSummaryBlock blocks of
  // levels[k - 1]. A summarised empty view has one level, empty; a default one has none.
  std::vector<Blocks> levels;
};

LaneSummary summarizeLane(const LaneView& view);
// Brings `summary`, made when the view held its first `summarized` positions, up to the view's
// size: the block that held the last of them is made again (it gains events, and its last event
// may be an open range whose end moved), the rest appended; and so on each level up. A live
// layout's, in time bounded by what is new.
void extendLaneSummary(LaneSummary& summary, const LaneView& view, uint32_t summarized);

struct DrawBox {
  double x0, x1;
  uint32_t event;
};

struct DrawRun {
  double x0, x1;
  uint32_t count;       // events folded into the run
  uint32_t firstEvent;  // the first of them (for colour and picking)
};

struct LaneDraw {
  std::vector<DrawBox> boxes;
  std::vector<DrawRun> runs;
  size_t steps = 0;  // loop iterations spent: bounded by pixels, which tests check
  void clear() { boxes.clear(), runs.clear(), steps = 0; }
};

// A run of one view with the colour of its first event: the views that share a lane (the streams
// of Compute; the kernels, copies and memsets of a stream) fold separately, then merge here.
struct ColouredRun {
  double x0, x1;
  uint32_t count;
  uint32_t colour;   // 0xAARRGGBB
  uint32_t top = 0;  // the count of the largest run merged in: it gives the colour
};

// Sorts `runs` by x0 and merges those closer than kRunGapPx into one that counts all their
// events and takes the colour of the run with the most: a lane's runs read as one, coloured by
// what dominates them.
void mergeLaneRuns(std::vector<ColouredRun>& runs);

// Events narrower than minBoxPx are folded. Appends to `out`.
void foldLane(const LaneView& view, const TimeAxis& axis, int width, double minBoxPx,
              LaneDraw& out);

// The event under x (within tolerancePx, nearest start first), or kNone.
uint32_t pickLane(const LaneView& view, const TimeAxis& axis, double x, double tolerancePx);

}  // namespace ts
