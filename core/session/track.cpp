#include "session/track.h"

#include <algorithm>
#include <atomic>
#include <string>

namespace ts {

uint32_t Track::laneSize(uint32_t lane) const {
  if (laneEvents_.empty()) return lane == 0 ? static_cast<uint32_t>(size()) : 0;
  return lane < laneEvents_.size() ? static_cast<uint32_t>(laneEvents_[lane].size()) : 0;
}

uint32_t Track::laneEvent(uint32_t lane, uint32_t position) const {
  return laneEvents_.empty() ? position : laneEvents_[lane][position];
}

LaneSpan Track::laneRange(uint32_t lane, TimeNs t0, TimeNs t1) const {
  uint32_t n = laneSize(lane);
  // Within a lane, effective ends are sorted as well as starts.
  uint32_t lo = 0, hi = n;
  while (lo < hi) {  // first position whose effective end > t0
    uint32_t mid = lo + (hi - lo) / 2;
    if (effectiveEnd(laneEvent(lane, mid)) > t0)
      hi = mid;
    else
      lo = mid + 1;
  }
  uint32_t first = lo;
  hi = n;
  while (lo < hi) {  // first position whose start >= t1
    uint32_t mid = lo + (hi - lo) / 2;
    if (hot.start[laneEvent(lane, mid)] >= t1)
      hi = mid;
    else
      lo = mid + 1;
  }
  return {first, std::max(first, lo)};
}

uint32_t Track::eventAt(uint32_t lane, TimeNs t) const {
  LaneSpan span = laneRange(lane, t, t + 1);
  return span.empty() ? kNone : laneEvent(lane, span.begin);
}

size_t Track::countInRange(TimeNs t0, TimeNs t1) const {
  size_t count = 0;
  for (uint32_t lane = 0; lane < laneCount_; ++lane) count += laneRange(lane, t0, t1).size();
  return count;
}

namespace {

template <class Columns>
bool columnsSized(const Columns& columns, size_t n) {
  bool ok = true;
  columns.visit([&](const char*, const auto& values) { ok = ok && values.size() == n; });
  return ok;
}

// Whether every value of [from, size) is below `count`.
template <class E>
bool enumColumnValid(const Column<E>& values, int count, size_t from) {
  return std::all_of(values.begin() + static_cast<std::ptrdiff_t>(from), values.end(),
                     [count](E v) { return static_cast<int>(v) < count; });
}

}  // namespace

Status Track::finalize() {
  return extend(0);
}

Status Track::extend(size_t from) {
  const size_t n = size();
  from = std::min(from, n);
  if (n > 0xFFFFFFF0u) return Error{"track has more than 4 billion events"};
  if (!columnsSized(hot, n)) return Error{"track columns differ in length"};
  bool detailsOk = false;
  switch (kind) {
    case EventKind::Kernel:
      detailsOk = columnsSized(kernels, n) &&
                  std::all_of(kernels.launch.begin() + static_cast<std::ptrdiff_t>(from),
                              kernels.launch.end(),
                              [&](uint32_t l) { return l < kernels.launches.size(); });
      break;
    case EventKind::Memcpy:
      detailsOk = columnsSized(memcpys, n) &&
                  enumColumnValid(memcpys.copyKind, kCopyKindCount, from) &&
                  enumColumnValid(memcpys.srcKind, kMemoryKindCount, from) &&
                  enumColumnValid(memcpys.dstKind, kMemoryKindCount, from) &&
                  enumColumnValid(memcpys.migrationCause, kMigrationCauseCount, from) &&
                  enumColumnValid(memcpys.migration, 2, from);
      break;
    case EventKind::Memset:
      detailsOk =
          columnsSized(memsets, n) && enumColumnValid(memsets.memKind, kMemoryKindCount, from);
      break;
    case EventKind::Api:
      detailsOk = columnsSized(apis, n) && enumColumnValid(apis.domain, 3, from);
      break;
    case EventKind::Nvtx:
      detailsOk = columnsSized(nvtx, n);
      break;
    case EventKind::Range:
      detailsOk = columnsSized(ranges, n);
      break;
  }
  if (!detailsOk) return Error{"track detail columns are missing, short or hold invalid values"};
  if (from == 0) {  // indexed afresh
    static std::atomic<uint64_t> lineages{0};
    laneEvents_.clear(), laneCount_ = 0, minStart_ = maxEnd_ = 0;
    lineage_ = ++lineages;
  }
  if (from >= n) return {};

  // Checked first, indexed after: a failed check leaves the new events unindexed.
  uint32_t lanes = std::max<uint32_t>(laneCount_, 1);
  for (size_t i = from; i < n; ++i) {
    if (hot.end[i] < hot.start[i]) {
      return Error{"event " + std::to_string(i) + " ends before it starts"};
    }
    if (!timeInRange(hot.start[i]) || !timeInRange(hot.end[i])) {
      return Error{"event " + std::to_string(i) + " has a time past ±2^62 ns"};
    }
    if (i > 0 && hot.start[i] < hot.start[i - 1]) {
      return Error{"events are not sorted by start at event " + std::to_string(i)};
    }
    lanes = std::max<uint32_t>(lanes, hot.lane[i] + 1u);
  }
  // Each lane's end so far: the effective end of its last event (ends are sorted in a lane).
  std::vector<TimeNs> laneEnd(lanes, INT64_MIN);
  if (laneEvents_.empty()) {
    if (from > 0) laneEnd[0] = effectiveEnd(static_cast<uint32_t>(from - 1));
  } else {
    for (uint32_t lane = 0; lane < laneCount_; ++lane) {
      if (uint32_t k = laneSize(lane)) laneEnd[lane] = effectiveEnd(laneEvent(lane, k - 1));
    }
  }
  for (size_t i = from; i < n; ++i) {
    uint16_t lane = hot.lane[i];
    if (laneEnd[lane] > hot.start[i]) {
      return Error{"event " + std::to_string(i) + " overlaps the previous event of lane " +
                   std::to_string(lane)};
    }
    laneEnd[lane] = effectiveEnd(static_cast<uint32_t>(i));
  }

  if (from == 0) minStart_ = maxEnd_ = hot.start[0];
  for (size_t i = from; i < n; ++i) maxEnd_ = std::max(maxEnd_, hot.end[i]);
  if (lanes > 1) {
    // A live track indexes its lanes in chunks that snapshots share (Column::append).
    const bool live = hot.start.chunked();
    size_t indexFrom = from;
    if (laneEvents_.empty()) indexFrom = 0;  // a second lane: the first is indexed too
    const size_t had = laneEvents_.size();
    laneEvents_.resize(lanes);
    for (size_t lane = had; lane < lanes; ++lane) {
      if (live) laneEvents_[lane].makeChunked();
    }
    for (size_t i = indexFrom; i < n; ++i)
      laneEvents_[hot.lane[i]].append(static_cast<uint32_t>(i));
  }
  laneCount_ = lanes;
  return {};
}

void Track::setEnd(uint32_t i, TimeNs end) {
  hot.end.set(i, end);
  // Ends are sorted within a lane: the track's last end is the latest of its lanes' last ends.
  maxEnd_ = hot.end[i];
  for (uint32_t lane = 0; lane < laneCount_; ++lane) {
    if (uint32_t k = laneSize(lane)) maxEnd_ = std::max(maxEnd_, hot.end[laneEvent(lane, k - 1)]);
  }
}

size_t Track::laneIndexBytes() const {
  size_t bytes = 0;
  for (const auto& lane : laneEvents_) bytes += lane.size() * sizeof(uint32_t);
  return bytes;
}

size_t detailBytesPerEvent(EventKind kind) {
  switch (kind) {
    case EventKind::Kernel:
      return KernelColumns::kRowBytes;
    case EventKind::Memcpy:
      return MemcpyColumns::kRowBytes;
    case EventKind::Memset:
      return MemsetColumns::kRowBytes;
    case EventKind::Api:
      return ApiColumns::kRowBytes;
    case EventKind::Nvtx:
      return NvtxColumns::kRowBytes;
    case EventKind::Range:
      return RangeColumns::kRowBytes;
  }
  return 0;
}

LaunchLinks launchLinks(const Track& t) {
  switch (t.kind) {
    case EventKind::Kernel:
      return {&t.kernels.correlation, &t.kernels.context};
    case EventKind::Memcpy:
      return {&t.memcpys.correlation, &t.memcpys.context};
    case EventKind::Memset:
      return {&t.memsets.correlation, &t.memsets.context};
    default:
      return {};
  }
}

}  // namespace ts
