#include "util/format.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "util/text.h"

namespace ts {

std::string formatDuration(TimeNs ns) {
  char buf[48];
  const double v = static_cast<double>(ns), a = std::fabs(v);
  if (a < 1e3) {
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
    return buf;
  }
  // Three significant digits in µs, four above; a value that rounds up to 1000 of a unit is
  // printed in the next (999.6 µs is "1 ms", not "1e+03 µs"), and seconds never in exponents.
  struct Unit {
    double scale;
    const char* name;
    int digits;
  };
  static constexpr Unit units[] = {{1e3, "µs", 3}, {1e6, "ms", 4}, {1e9, "s", 4}};
  double shown = v;  // as rounded so far: 999.6 µs goes on as 1000 µs, "1 ms"
  for (const Unit& u : units) {
    if (a >= 1000 * u.scale) continue;  // a larger unit by its raw value: no rounding to carry
    std::snprintf(buf, sizeof buf, "%.*g", u.digits, shown / u.scale);
    const double rounded = std::strtod(buf, nullptr);
    if (std::fabs(rounded) < 1000) {
      std::snprintf(buf, sizeof buf, "%s %s", std::string(buf).c_str(), u.name);
      return buf;
    }
    shown = rounded * u.scale;
  }
  std::snprintf(buf, sizeof buf, "%.0f s", v / 1e9);  // an hour: "3600 s", no exponent
  return buf;
}

std::string formatTimestamp(TimeNs t, TimeNs resolution) {
  const double v = static_cast<double>(t), a = std::fabs(v);
  if (a < 1e3) return formatDuration(t);
  const double unit = a < 1e6 ? 1e3 : a < 1e9 ? 1e6 : 1e9;
  const char* name = a < 1e6 ? "µs" : a < 1e9 ? "ms" : "s";
  // Four significant digits at least; more until a step of `resolution` shows.
  int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(a / unit))));
  if (resolution > 0) {
    const double needed = std::ceil(std::log10(unit / static_cast<double>(resolution)) - 1e-9);
    decimals = std::max(decimals, static_cast<int>(needed));
  }
  decimals = std::clamp(decimals, 0, unit == 1e9 ? 9 : unit == 1e6 ? 6 : 3);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v / unit, name);
  return buf;
}

std::pair<std::string, std::string> formatEnds(TimeNs from, TimeNs to) {
  const TimeNs length = std::max<TimeNs>(1, to - from);
  std::string a = formatTimestamp(from, length), b = formatTimestamp(to, length);
  auto unitOf = [](const std::string& t) { return t.substr(t.find(' ')); };
  if (from == 0 && to != 0) a = "0" + unitOf(b);
  if (to == 0 && from != 0) b = "0" + unitOf(a);
  return {a, b};
}

uint64_t bytesOfValue(double value) {
  if (!(value > 0)) return 0;                              // negative, zero, NaN
  if (value >= 18446744073709551615.0) return UINT64_MAX;  // 2^64 and beyond, infinity
  return static_cast<uint64_t>(value);
}

std::string formatBytes(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else  // three digits, four from 999.5 up (%.3g would write 1023.9 as "1.02e+03")
    std::snprintf(buf, sizeof buf, v >= 999.5 ? "%.4g %s" : "%.3g %s", v, units[u]);
  return buf;
}

std::string formatBandwidth(double bytesPerSecond) {
  static const char* units[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
  double v = bytesPerSecond;
  int u = 0;
  while (std::fabs(v) >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 999.5 && u < 4 ? "%.4g %s" : "%.3g %s", v,
                units[u]);
  return buf;
}

std::string formatCount(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::optional<TimeNs> parseDuration(std::string_view text) {
  text = trim(text);
  bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  size_t digitsEnd = 0;
  while (digitsEnd < text.size() &&
         ((text[digitsEnd] >= '0' && text[digitsEnd] <= '9') || text[digitsEnd] == '.')) {
    ++digitsEnd;
  }
  std::string_view number = text.substr(0, digitsEnd), unit = text.substr(digitsEnd);
  unit = trim(unit);
  int scaleDigits = 0;  // ns per unit = 10^scaleDigits
  if (unit.empty() || unit == "ns")
    scaleDigits = 0;
  else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs")
    scaleDigits = 3;
  else if (unit == "ms")
    scaleDigits = 6;
  else if (unit == "s")
    scaleDigits = 9;
  else
    return std::nullopt;
  auto dot = number.find('.');
  std::string_view whole = number.substr(0, dot);
  std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if ((whole.empty() && fraction.empty()) || fraction.find('.') != std::string_view::npos)
    return std::nullopt;
  if (fraction.size() > static_cast<size_t>(scaleDigits)) {
    // Digits below a nanosecond must be zeros: 1.5ns is not a time this tool can hold.
    if (fraction.substr(static_cast<size_t>(scaleDigits)).find_first_not_of('0') !=
        std::string_view::npos) {
      return std::nullopt;
    }
    fraction = fraction.substr(0, static_cast<size_t>(scaleDigits));
  }
  unsigned __int128 v = 0;
  for (char c : whole) {
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > static_cast<unsigned __int128>(INT64_MAX)) return std::nullopt;
  }
  for (int i = 0; i < scaleDigits; ++i) {
    v = v * 10 + (static_cast<size_t>(i) < fraction.size()
                      ? static_cast<unsigned>(fraction[static_cast<size_t>(i)] - '0')
                      : 0u);
    if (v > static_cast<unsigned __int128>(INT64_MAX)) return std::nullopt;
  }
  auto ns = static_cast<TimeNs>(v);
  return negative ? -ns : ns;
}

}  // namespace ts
