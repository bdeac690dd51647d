// Checked integer parsing for numbers read from files and command lines: std::stoi and friends
// throw on out-of-range text (an uncaught throw ends the process), atoi is undefined there.
// These say "no" instead, so the caller can name the file, line and value.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace ts {

// The whole of `text` as a base-10 integer of type T; nullopt when it is not one or does not fit.
template <class T>
std::optional<T> parseInteger(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace ts
