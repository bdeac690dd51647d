#include "session/track.h"

#include <algorithm>
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

template <class E>
bool enumColumnValid(const std::vector<E>& values, int count) {
  return std::all_of(values.begin(), values.end(),
                     [count](E v) { return static_cast<int>(v) < count; });
}

}  // namespace

Status Track::finalize() {
  const size_t n = size();
  if (n > 0xFFFFFFF0u) return Error{"track has more than 4 billion events"};
  if (!columnsSized(hot, n)) return Error{"track columns differ in length"};
  bool detailsOk = false;
  switch (kind) {
    case EventKind::Kernel:
      detailsOk = columnsSized(kernels, n) &&
                  std::all_of(kernels.launch.begin(), kernels.launch.end(),
                              [&](uint32_t l) { return l < kernels.launches.size(); });
      break;
    case EventKind::Memcpy:
      detailsOk = columnsSized(memcpys, n) && enumColumnValid(memcpys.copyKind, kCopyKindCount) &&
                  enumColumnValid(memcpys.srcKind, kMemoryKindCount) &&
                  enumColumnValid(memcpys.dstKind, kMemoryKindCount) &&
                  enumColumnValid(memcpys.migrationCause, kMigrationCauseCount) &&
                  enumColumnValid(memcpys.migration, 2);
      break;
    case EventKind::Memset:
      detailsOk = columnsSized(memsets, n) && enumColumnValid(memsets.memKind, kMemoryKindCount);
      break;
    case EventKind::Api:
      detailsOk = columnsSized(apis, n) && enumColumnValid(apis.domain, 3);
      break;
    case EventKind::Nvtx:
      detailsOk = columnsSized(nvtx, n);
      break;
    case EventKind::Range:
      detailsOk = columnsSized(ranges, n);
      break;
  }
  if (!detailsOk) return Error{"track detail columns are missing, short or hold invalid values"};

  uint32_t lanes = n > 0 ? 1 : 0;
  minStart_ = n > 0 ? hot.start[0] : 0;
  maxEnd_ = minStart_;
  for (size_t i = 0; i < n; ++i) {
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
    maxEnd_ = std::max(maxEnd_, hot.end[i]);
  }
  laneCount_ = lanes;
  laneEvents_.clear();
  std::vector<TimeNs> laneEnd(lanes, INT64_MIN);
  if (lanes > 1) laneEvents_.resize(lanes);
  for (size_t i = 0; i < n; ++i) {
    uint16_t lane = hot.lane[i];
    if (laneEnd[lane] > hot.start[i]) {
      return Error{"event " + std::to_string(i) + " overlaps the previous event of lane " +
                   std::to_string(lane)};
    }
    laneEnd[lane] = effectiveEnd(static_cast<uint32_t>(i));
    if (lanes > 1) laneEvents_[lane].push_back(static_cast<uint32_t>(i));
  }
  return {};
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

}  // namespace ts
