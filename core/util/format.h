// Human-readable numbers: durations with adaptive units, byte sizes, grouped counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "util/time_ns.h"

namespace ts {

std::string formatDuration(TimeNs ns);  // "12.3 µs", "4.56 ms", "1.234 s"
// A time on the session's clock (from its start): four significant digits like formatDuration,
// or more where `resolution` (the smallest difference that must show: an event's duration, the
// gap to the neighbouring row) needs them — "43.28512 s" for an 822 µs kernel 43 s in.
std::string formatTimestamp(TimeNs t, TimeNs resolution);

// The two ends of a stretch on the session's clock, each with the digits the stretch's length
// needs ("43.21 s", "43.40 s"); an end at 0 reads "0" in the other's unit ("0 s", not "0 ns").
std::pair<std::string, std::string> formatEnds(TimeNs from, TimeNs to);
std::string formatBytes(uint64_t bytes);  // "512 B", "1.5 MiB"
// A counter's value as bytes: negative and NaN as 0, past 2^64 (a damaged file's 1e30) as the
// largest (converting such a double is undefined).
uint64_t bytesOfValue(double value);
// A rate in the units sizes use, so a table's bytes and bandwidths read alike: "11.2 GiB/s".
std::string formatBandwidth(double bytesPerSecond);
std::string formatCount(uint64_t n);  // "1,234,567"

// "250", "1.5ms", "20 us", "20µs", "2s", "-3ns": a decimal with an optional unit (ns when none),
// converted exactly (no floating point). Empty on anything else or on overflow.
std::optional<TimeNs> parseDuration(std::string_view text);

}  // namespace ts
