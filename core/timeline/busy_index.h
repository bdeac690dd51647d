// BusyIndex: when a GPU ran at least one kernel — the union of its kernels' intervals, with the
// busy time before each — so the busy share of any stretch costs two binary searches. The GPU's
// header row on the timeline draws it per pixel column (a utilisation lane whose cost is bounded
// by pixels, not kernels).
#pragma once

#include <vector>

#include "session/session.h"
#include "timeline/time_axis.h"

namespace ts {

struct BusyIndex {
  // Columns, so that the layouts of a live capture's snapshots share them (Column::grow).
  Column<TimeNs> start, end;  // disjoint, sorted
  Column<TimeNs> before;      // busy time before start[i]
  // Every kStride-th start: a search goes through this small array (in cache) first, then
  // through one stride of `start`, instead of missing the cache down all of a 10 M interval array
  // once per pixel column.
  static constexpr size_t kStride = 64;
  Column<TimeNs> coarse;

  TimeNs busyBefore(TimeNs t) const;
  TimeNs busyIn(TimeNs a, TimeNs b) const { return b > a ? busyBefore(b) - busyBefore(a) : 0; }
  bool empty() const { return start.empty(); }
};

// From the kernel tracks of one device.
BusyIndex buildBusyIndex(const Session& session, const std::vector<uint32_t>& kernelTracks);
// Adds the kernels of kernelTracks[i] from position from[i] on (a live layout's: what the
// snapshot added). They may start before intervals already there (records come a little out of
// order): the intervals they can touch are taken out and merged again with them, so the cost is
// what is new and recent.
void extendBusyIndex(BusyIndex& index, const Session& session,
                     const std::vector<uint32_t>& kernelTracks, const std::vector<size_t>& from);

// The busy share (0 to 1) of each of `width` pixel columns of `axis`, into `out`.
void foldBusy(const BusyIndex& index, const TimeAxis& axis, int width, std::vector<float>& out);

}  // namespace ts
