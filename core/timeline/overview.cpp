#include "timeline/overview.h"

#include <algorithm>

namespace ts {

namespace {

// The first position of `view` whose event starts at or after `t` (events are sorted by start).
uint32_t firstStartingAt(const LaneView& view, TimeNs t) {
  uint32_t lo = 0, hi = view.size();
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (view.track->hot.start[view.event(mid)] < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool cpuSide(TimelineRow::Kind kind) {
  return kind == TimelineRow::Kind::Api || kind == TimelineRow::Kind::Nvtx ||
         kind == TimelineRow::Kind::Range;
}

// The GPU rows the strip folds: those with kernels.
std::vector<const TimelineRow*> busyGpus(const TimelineRows& rows) {
  std::vector<const TimelineRow*> gpus;
  for (const TimelineRow& row : rows.rows()) {
    if (row.busy && !row.busy->empty()) gpus.push_back(&row);
  }
  return gpus;
}

// The CPU lanes the strip counts: a thread's top lane of calls, annotations or ranges that is
// measured (not a simulation overlay's) and not empty; `visit` gets each.
template <class Visit>
void forEachCpuLane(const TimelineRows& rows, Visit visit) {
  const Session& s = rows.session();
  const TimelineOverlay* overlay = rows.overlay();
  for (const TimelineRow& row : rows.rows()) {
    if (!cpuSide(row.kind) || row.lanes.empty()) continue;
    for (const LaneView& view : row.lanes.front()) {
      if (view.size() == 0) continue;
      const auto track = static_cast<size_t>(view.track - s.tracks.data());
      if (overlay && track < overlay->ownsTrack.size() && overlay->ownsTrack[track]) continue;
      visit(view);
    }
  }
}

}  // namespace

size_t overviewLaneCount(const TimelineRows& rows) {
  const size_t gpus = busyGpus(rows).size();
  bool cpu = false;
  forEachCpuLane(rows, [&](const LaneView&) { cpu = true; });
  return (gpus > kOverviewGpuLanes ? 1 : gpus) + (cpu ? 1 : 0);
}

std::vector<OverviewLane> foldOverview(const TimelineRows& rows, const TimeAxis& axis, int width) {
  std::vector<OverviewLane> lanes;
  if (width <= 0) return lanes;
  const auto columns = static_cast<size_t>(width);
  const Session& s = rows.session();

  const std::vector<const TimelineRow*> gpus = busyGpus(rows);
  std::vector<float> share;
  if (gpus.size() <= kOverviewGpuLanes) {
    for (const TimelineRow* row : gpus) {
      OverviewLane lane;
      std::string label = s.deviceLabel(row->device);
      lane.label = label.substr(0, label.find(':'));  // the model name is in the row below
      foldBusy(*row->busy, axis, width, lane.values);
      lanes.push_back(std::move(lane));
    }
  } else {
    OverviewLane lane;
    lane.label = std::to_string(gpus.size()) + " GPUs (mean)";
    lane.values.assign(columns, 0.0f);
    for (const TimelineRow* row : gpus) {
      foldBusy(*row->busy, axis, width, share);
      for (size_t x = 0; x < columns; ++x) lane.values[x] += share[x];
    }
    for (float& v : lane.values) v /= static_cast<float>(gpus.size());
    lanes.push_back(std::move(lane));
  }

  // The CPU: events starting per column on the threads' top lanes (the outermost calls and
  // ranges; nested ones would count the same work again). Starts, not covered time: a column
  // where a thread waits in one long call shows as quiet, which is what it is for the CPU.
  OverviewLane cpu;
  cpu.kind = OverviewLane::Kind::Cpu;
  cpu.label = "CPU";
  cpu.counts.assign(columns, 0);
  bool any = false;
  forEachCpuLane(rows, [&](const LaneView& view) {
    any = true;
    uint32_t from = firstStartingAt(view, axis.timeAt(0));
    for (size_t x = 0; x < columns && from < view.size(); ++x) {
      const uint32_t to = firstStartingAt(view, axis.timeAt(static_cast<double>(x + 1)));
      cpu.counts[x] += to - from;
      from = to;
    }
  });
  if (any) {
    const uint32_t peak = *std::max_element(cpu.counts.begin(), cpu.counts.end());
    cpu.values.assign(columns, 0.0f);
    if (peak > 0) {
      for (size_t x = 0; x < columns; ++x)
        cpu.values[x] = static_cast<float>(cpu.counts[x]) / static_cast<float>(peak);
    }
    lanes.push_back(std::move(cpu));
  }
  return lanes;
}

}  // namespace ts
