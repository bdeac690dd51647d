#include "timeline/time_axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ts {

namespace {
constexpr double kMinNsPerPixel = 0.01;  // 1 ns spans 100 px
constexpr double kMaxNsPerPixel = 1e12;  // 1,000 s per pixel
}  // namespace

void TimeAxis::fit(TimeNs t0, TimeNs t1, int width) {
  start_ = t0;
  nsPerPixel_ = std::clamp(static_cast<double>(std::max<TimeNs>(t1 - t0, 1)) / std::max(width, 1),
                           kMinNsPerPixel, kMaxNsPerPixel);
}

void TimeAxis::zoomAround(double x, double factor) {
  if (factor <= 0) return;
  TimeNs anchor = timeAt(x);
  nsPerPixel_ = std::clamp(nsPerPixel_ / factor, kMinNsPerPixel, kMaxNsPerPixel);
  start_ = anchor - static_cast<TimeNs>(x * nsPerPixel_);
}

TimeNs rulerStep(double nsPerPixel, double minSpacingPx) {
  double minStep = std::max(1.0, nsPerPixel * minSpacingPx);
  double decade = std::pow(10.0, std::floor(std::log10(minStep)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * decade >= minStep) return static_cast<TimeNs>(std::llround(m * decade));
  }
  return static_cast<TimeNs>(std::llround(10 * decade));
}

std::vector<RulerTick> rulerTicks(const TimeAxis& axis, int width, double minSpacingPx,
                                  TimeNs origin) {
  std::vector<RulerTick> ticks;
  TimeNs step = rulerStep(axis.nsPerPixel(), minSpacingPx);
  TimeNs t0 = axis.start() - origin, t1 = axis.end(width) - origin;
  // The unit follows the magnitude of the times shown ("30.5424 s", not "3.05424e+07 µs"), the
  // decimals follow the step so that neighbouring labels differ.
  const TimeNs magnitude = std::max(std::llabs(t0), std::llabs(t1));
  const char* unit = "ns";
  double scale = 1;
  if (magnitude >= 1'000'000'000)
    unit = "s", scale = 1e9;
  else if (magnitude >= 1'000'000)
    unit = "ms", scale = 1e6;
  else if (magnitude >= 1'000)
    unit = "µs", scale = 1e3;
  const int decimals = std::clamp(
      static_cast<int>(std::ceil(std::log10(scale / static_cast<double>(step)) - 1e-9)), 0, 9);
  TimeNs first = (t0 >= 0 ? (t0 + step - 1) / step : -((-t0) / step)) * step;
  for (TimeNs t = first; t <= t1 && ticks.size() < 1000; t += step) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, static_cast<double>(t) / scale, unit);
    ticks.push_back({t + origin, buf});
  }
  return ticks;
}

}  // namespace ts
