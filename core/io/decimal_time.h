// Exact conversion of JSON number text to integers: Chrome trace times are microseconds with up to
// three (sometimes more) decimals, and going through double would lose nanoseconds on absolute
// timestamps (1.7e18 ns needs 61 bits; a double has 53).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ts {

// "1695835572943613", "2413669097444.592", "1.76", "-3", "1e3" (µs) → ns, rounded half away from
// zero past the third decimal. None for anything that is not a JSON number or overflows.
std::optional<int64_t> parseMicrosToNs(std::string_view text);

// A JSON integer (or a number with an all-zero fraction, "7.0"); none otherwise.
std::optional<int64_t> parseJsonInteger(std::string_view text);

}  // namespace ts
