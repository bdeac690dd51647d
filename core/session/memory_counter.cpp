#include "session/memory_counter.h"

#include <algorithm>
#include <cctype>

namespace ts {

std::optional<MemoryPeak> gpuMemoryPeak(const Session& s, uint32_t device, TimeNs from, TimeNs to) {
  for (const CounterTrack& c : s.counters) {
    std::string lower = c.name;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (c.device != device || c.unit != "bytes" || lower.find("alloc") == std::string::npos ||
        c.size() == 0)
      continue;
    const auto& time = c.samples.time;
    // The sample in force when the window opens, then every one inside it.
    size_t i = static_cast<size_t>(std::upper_bound(time.begin(), time.end(), from) - time.begin());
    if (i > 0) --i;
    std::optional<MemoryPeak> peak;
    for (; i < time.size() && time[i] <= to; ++i) {
      const auto bytes = static_cast<int64_t>(c.samples.value[i]);
      if (!peak || bytes > peak->bytes) peak = MemoryPeak{bytes, std::max(time[i], from), c.name};
    }
    if (peak) return peak;
  }
  return std::nullopt;
}

}  // namespace ts
