#include "session/memory_counter.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ts {

bool isAllocatedCounter(const CounterTrack& c) {
  std::string lower = c.name;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return c.unit == "bytes" && lower.find("alloc") != std::string::npos;
}

const CounterTrack* gpuAllocatedCounter(const Session& s, uint32_t device) {
  for (const CounterTrack& c : s.counters)
    if (c.device == device && isAllocatedCounter(c) && c.size() > 0) return &c;
  return nullptr;
}

int64_t counterBytesAt(const CounterTrack& c, TimeNs t) {
  const auto& time = c.samples.time;
  const size_t i =
      static_cast<size_t>(std::upper_bound(time.begin(), time.end(), t) - time.begin());
  if (i == 0) return 0;
  const double v = c.samples.value[i - 1];
  return std::isnan(v) ? 0 : static_cast<int64_t>(std::clamp(v, -9.2e18, 9.2e18));
}

std::optional<MemoryPeak> gpuMemoryPeak(const Session& s, uint32_t device, TimeNs from, TimeNs to) {
  for (const CounterTrack& c : s.counters) {
    if (c.device != device || !isAllocatedCounter(c) || c.size() == 0) continue;
    const auto& time = c.samples.time;
    // The sample in force when the window opens, then every one inside it.
    size_t i = static_cast<size_t>(std::upper_bound(time.begin(), time.end(), from) - time.begin());
    if (i > 0) --i;
    std::optional<size_t> best;
    for (; i < time.size() && time[i] <= to; ++i) {
      const double v = c.samples.value[i];
      if (!std::isnan(v) && (!best || v > c.samples.value[*best])) best = i;
    }
    if (best) {
      // Bytes as a whole number, within int64 whatever the file said.
      const double v = std::clamp(c.samples.value[*best], -9.2e18, 9.2e18);
      return MemoryPeak{static_cast<int64_t>(v), std::max(time[*best], from), c.name};
    }
  }
  return std::nullopt;
}

}  // namespace ts
