// A track: the events of one kind on one owner (a GPU stream, a CPU thread), sorted by start.
//
// Events that overlap are spread over lanes (nesting depth for NVTX, overlap lanes for streams),
// and within a lane no two events overlap. So in a lane both starts and ends are sorted, and every
// time query is a binary search: O(log n) whatever the track's size, and culling needs no extra
// min/max blocks — a lane's min/max over any span of positions is its first start and last end.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "session/event_columns.h"
#include "session/types.h"
#include "util/result.h"

namespace ts {

// Positions [begin, end) within one lane.
struct LaneSpan {
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t size() const { return end - begin; }
  bool empty() const { return begin >= end; }
};

struct Track {
  EventKind kind = EventKind::Kernel;
  uint32_t device = kNone;  // GPU tracks: index into devices
  uint32_t stream = kNone;  // GPU tracks: index into streams
  uint32_t thread = kNone;  // CPU tracks: index into threads

  HotColumns hot;
  // Exactly one of these is filled, the one of `kind`, row i describing event i.
  KernelColumns kernels;
  MemcpyColumns memcpys;
  MemsetColumns memsets;
  ApiColumns apis;
  NvtxColumns nvtx;
  RangeColumns ranges;

  size_t size() const { return hot.start.size(); }
  TimeNs minStart() const { return minStart_; }
  TimeNs maxEnd() const { return maxEnd_; }
  uint32_t laneCount() const { return laneCount_; }

  // Event indices of a lane in time order (lane 0 of a single-lane track is the track itself).
  uint32_t laneSize(uint32_t lane) const;
  uint32_t laneEvent(uint32_t lane, uint32_t position) const;
  // Positions in `lane` of the events that intersect [t0, t1). A zero-length event at t counts
  // as [t, t + 1).
  LaneSpan laneRange(uint32_t lane, TimeNs t0, TimeNs t1) const;
  // The event of `lane` that covers t, or kNone.
  uint32_t eventAt(uint32_t lane, TimeNs t) const;
  // Number of events, all lanes, intersecting [t0, t1).
  size_t countInRange(TimeNs t0, TimeNs t1) const;

  // Checks the invariants (sorted starts, end >= start, lanes free of overlap, detail columns as
  // long as the hot ones, enums in range) and builds the lane index. Called by the builder and by
  // every reader before a track is published.
  Status finalize();

  // Checks and indexes the events [from, size()) appended since the track was finalized or last
  // extended: a live session's growth (session/live_session.h), in time bounded by what is new —
  // except once, when a track gets its second lane and its first lane is indexed. From 0: the
  // whole track, as finalize().
  Status extend(size_t from);
  // Names this track's indexing: new (unique in the process) each time its events are indexed
  // from the first (finalize, extend(0)); copies keep it. Two tracks of one lineage are one
  // track of a live session at two moments: the larger holds the other's events at the same
  // indices and lane positions, more appended (and an open range's end moved: the last event of
  // its lane). A live layout extends what it computed for a track on that ground.
  uint64_t lineage() const { return lineage_; }
  // Moves the end of event i, the last of its lane (a live range that was open until now).
  void setEnd(uint32_t i, TimeNs end);

  // Bytes held by the lane index (4 per event of multi-lane tracks, else 0).
  size_t laneIndexBytes() const;

  TimeNs effectiveEnd(uint32_t i) const {
    TimeNs s = hot.start[i], e = hot.end[i];
    return e > s ? e : s + 1;
  }

 private:
  std::vector<Column<uint32_t>> laneEvents_;  // empty when laneCount_ == 1
  uint32_t laneCount_ = 0;
  uint64_t lineage_ = 0;
  TimeNs minStart_ = 0;
  TimeNs maxEnd_ = 0;
};

// Bytes of detail columns per event of a kind (for memory reports).
size_t detailBytesPerEvent(EventKind kind);

// What links a GPU work track's events (kernels, copies, memsets) to the API calls that launched
// them: each event's correlation id (0: none) and CUPTI context. Null for other tracks.
struct LaunchLinks {
  const Column<uint32_t>* correlation = nullptr;
  const Column<uint32_t>* context = nullptr;
};
LaunchLinks launchLinks(const Track& t);

}  // namespace ts
