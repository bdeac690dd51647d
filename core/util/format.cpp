#include "util/format.h"

#include <cmath>
#include <cstdio>

namespace ts {

std::string formatDuration(TimeNs ns) {
  char buf[48];
  double v = static_cast<double>(ns);
  double a = std::fabs(v);
  if (a < 1e3) std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  else if (a < 1e6) std::snprintf(buf, sizeof buf, "%.3g µs", v / 1e3);
  else if (a < 1e9) std::snprintf(buf, sizeof buf, "%.4g ms", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.4g s", v / 1e9);
  return buf;
}

std::string formatBytes(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buf, sizeof buf, "%.3g %s", v, units[u]);
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

}  // namespace ts
