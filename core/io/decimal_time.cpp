#include "io/decimal_time.h"

#include <cstdint>

namespace ts {

namespace {

// Parses a JSON number into digits × 10^exponent with exact integer arithmetic.
struct Decimal {
  bool negative = false;
  __int128 digits = 0;
  int exponent = 0;  // of the last digit kept
};

bool parseDecimal(std::string_view s, Decimal& d) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') d.negative = true, ++i;
  size_t intStart = i;
  int significant = 0;
  auto addDigit = [&](char c, bool fraction) {
    if (significant < 30) {
      d.digits = d.digits * 10 + (c - '0');
      if (d.digits != 0) ++significant;
      if (fraction) --d.exponent;
    } else if (!fraction) {
      ++d.exponent;  // too many integer digits to keep: scale instead (will overflow later)
    }
  };
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') addDigit(s[i++], false);
  if (i == intStart) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t fracStart = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') addDigit(s[i++], true);
    if (i == fracStart) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negExp = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negExp = s[i++] == '-';
    size_t expStart = i;
    int e = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      e = e * 10 + (s[i++] - '0');
      if (e > 400) return false;
    }
    if (i == expStart) return false;
    d.exponent += negExp ? -e : e;
  }
  return i == s.size();
}

// digits × 10^exponent rounded to an integer, half away from zero.
bool toInteger(const Decimal& d, int64_t& out) {
  __int128 v = d.digits;
  int e = d.exponent;
  constexpr __int128 kLimit = static_cast<__int128>(INT64_MAX);
  for (; e > 0; --e) {
    v *= 10;
    if (v > kLimit) return false;
  }
  bool roundUp = false;
  for (; e < 0; ++e) {
    roundUp = v % 10 >= 5;
    v /= 10;
  }
  if (roundUp) ++v;
  if (v > kLimit) return false;
  out = static_cast<int64_t>(d.negative ? -v : v);
  return true;
}

}  // namespace

// The common shapes, "1695835573023613" and "2413669097444.592", in plain 64-bit arithmetic.
static bool fastMicros(std::string_view s, int64_t& ns) {
  size_t i = 0, n = s.size();
  bool negative = n > 0 && s[0] == '-';
  i += negative;
  if (i >= n || n - i > 20) return false;
  int64_t whole = 0;
  size_t start = i;
  // Up to 16 integer digits below 9.2e15: whole * 1000 + 999 stays within int64.
  while (i < n && s[i] >= '0' && s[i] <= '9') {
    if (i - start == 16) return false;
    whole = whole * 10 + (s[i++] - '0');
  }
  if (i == start || whole > (INT64_MAX - 999) / 1000) return false;
  int64_t frac = 0;
  int digits = 0;
  if (i < n) {
    if (s[i] != '.') return false;
    ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9' && digits < 3)
      frac = frac * 10 + (s[i++] - '0'), ++digits;
    if (digits == 0 || i != n) return false;  // more than three decimals or an exponent: slow path
    for (; digits < 3; ++digits) frac *= 10;
  }
  ns = whole * 1000 + frac;
  if (negative) ns = -ns;
  return true;
}

std::optional<int64_t> parseMicrosToNs(std::string_view text) {
  int64_t ns = 0;
  if (fastMicros(text, ns)) return ns;
  Decimal d;
  if (!parseDecimal(text, d)) return std::nullopt;
  d.exponent += 3;
  if (!toInteger(d, ns)) return std::nullopt;
  return ns;
}

std::optional<int64_t> parseJsonInteger(std::string_view text) {
  // Fast path: up to 18 plain digits.
  size_t i = text.size() > 0 && text[0] == '-';
  if (text.size() > i && text.size() - i <= 18) {
    int64_t v = 0;
    size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') v = v * 10 + (text[j++] - '0');
    if (j == text.size() && j > i) return i ? -v : v;
  }
  Decimal d;
  if (!parseDecimal(text, d)) return std::nullopt;
  Decimal whole = d;
  // Only exact integers: "7.0" is 7, "7.5" is not an integer.
  __int128 v = d.digits;
  for (int e = d.exponent; e < 0; ++e) {
    if (v % 10 != 0) return std::nullopt;
    v /= 10;
  }
  whole.digits = v;
  whole.exponent = d.exponent < 0 ? 0 : d.exponent;
  int64_t value = 0;
  if (!toInteger(whole, value)) return std::nullopt;
  return value;
}

}  // namespace ts
