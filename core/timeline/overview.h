// The overview strip (minimap) above the timeline: the whole session folded into a few lanes of
// pixel columns — each GPU's busy share, and how much the CPU threads do — so a user sees where
// the work is before zooming, and where the view sits in it. Computed when the strip's width or
// the rows change, never per frame; the cost is bounded by rows × columns × log(events).
#pragma once

#include <string>
#include <vector>

#include "timeline/time_axis.h"
#include "timeline/timeline_rows.h"

namespace ts {

struct OverviewLane {
  enum class Kind { Gpu, Cpu };
  Kind kind = Kind::Gpu;
  std::string label;          // "GPU 0", "4 GPUs (mean)", "CPU"
  std::vector<float> values;  // per column, 0 to 1: busy share (GPU), share of the peak (CPU)
  // The CPU lane: events starting in each column (values are these over the busiest column's).
  std::vector<uint32_t> counts;
};

// More GPUs than this fold into one lane of their mean busy share.
inline constexpr size_t kOverviewGpuLanes = 4;

// The lanes for `width` columns of `axis`: a lane per GPU with kernels (or one for all of them
// when there are more than kOverviewGpuLanes), then one for the CPU threads' top-level API calls,
// annotations and ranges (absent when the session has none). Simulation overlay rows are left out:
// the strip shows what was measured.
std::vector<OverviewLane> foldOverview(const TimelineRows& rows, const TimeAxis& axis, int width);

// How many lanes foldOverview gives for `rows`, without folding (the strip's height).
size_t overviewLaneCount(const TimelineRows& rows);

}  // namespace ts
