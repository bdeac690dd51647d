// Human-readable numbers: durations with adaptive units, byte sizes, grouped counts.
#pragma once

#include <cstdint>
#include <string>

#include "session/types.h"

namespace ts {

std::string formatDuration(TimeNs ns);  // "12.3 µs", "4.56 ms", "1.234 s"
std::string formatBytes(uint64_t bytes);  // "512 B", "1.5 MiB"
std::string formatCount(uint64_t n);      // "1,234,567"

}  // namespace ts
