#include "capture/allocation_counters.h"

#include <algorithm>
#include <unordered_map>

namespace ts::capture {

namespace {

// CUPTI_ACTIVITY_MEMORY_KIND_*: 2 pinned host, 3 device, 4 array, 5 managed, 6 device static,
// 7 managed static.
enum class Where { Gpu, PinnedHost, Other };
Where whereOf(uint8_t kind) {
  if (kind == 3 || kind == 5 || kind == 6 || kind == 7) return Where::Gpu;
  if (kind == 2) return Where::PinnedHost;
  return Where::Other;
}

}  // namespace

void AllocationCounters::add(const MemoryFrame& frame, uint32_t device, uint32_t process) {
  const Where where = whereOf(frame.memoryKind);
  if (where == Where::Other || (frame.operation != 1 && frame.operation != 2)) {
    ++leftOut_;
    return;
  }
  const bool gpu = where == Where::Gpu;
  Series& s = series_[{gpu ? device : kNone, gpu ? kNone : process}];
  if (s.name.empty()) {
    s.name = gpu ? "CUDA memory allocated" : "Pinned host memory allocated";
    s.device = gpu ? device : kNone;
    s.process = gpu ? kNone : process;
  }
  s.frames.push_back(frame);
  s.changed = true;
}

void AllocationCounters::publish(SessionBuilder& b) {
  for (auto& [key, s] : series_) {
    if (!s.changed) continue;
    s.changed = false;
    std::stable_sort(
        s.frames.begin(), s.frames.end(),
        [](const MemoryFrame& x, const MemoryFrame& y) { return x.timestamp < y.timestamp; });
    // The counter made on first use, then its samples written again whole, in time order. A free
    // of memory allocated before the capture began is kept as a sample (its pairing counts it)
    // but changes no total: the counter holds what the capture saw allocated.
    b.addCounterSample(s.name, "bytes", s.device, s.process, s.frames.front().timestamp, 0);
    CounterTrack* counter = nullptr;
    for (CounterTrack& c : b.draft().counters)
      if (c.name == s.name && c.device == s.device && c.process == s.process) counter = &c;
    counter->samples = CounterColumns{};
    std::unordered_map<uint64_t, int64_t> live;  // address → bytes
    int64_t total = 0;
    for (const MemoryFrame& f : s.frames) {
      const auto bytes = static_cast<int64_t>(std::min<uint64_t>(f.bytes, INT64_MAX / 4));
      if (f.operation == 1) {
        total -= live[f.address];  // allocated again without a free: the old one is gone
        live[f.address] = bytes;
        total += bytes;
      } else if (auto it = live.find(f.address); it != live.end()) {
        total -= it->second;
        live.erase(it);
      }
      counter->samples.push(
          {f.timestamp, static_cast<double>(total), f.operation == 1 ? bytes : -bytes, f.address});
    }
  }
}

}  // namespace ts::capture
