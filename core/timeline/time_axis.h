// TimeAxis: the mapping between session time (ns) and canvas x (pixels) of the timeline, with the
// zoom and pan operations users drive. Pure arithmetic, tested without a screen.
#pragma once

#include <string>
#include <vector>

#include "session/types.h"

namespace ts {

class TimeAxis {
 public:
  TimeAxis() = default;
  TimeAxis(TimeNs start, double nsPerPixel) : start_(start), nsPerPixel_(nsPerPixel) {}

  TimeNs start() const { return start_; }
  double nsPerPixel() const { return nsPerPixel_; }
  TimeNs timeAt(double x) const { return start_ + static_cast<TimeNs>(x * nsPerPixel_); }
  double xOf(TimeNs t) const { return static_cast<double>(t - start_) / nsPerPixel_; }
  TimeNs end(int width) const { return timeAt(width); }

  // Shows [t0, t1) across `width` pixels.
  void fit(TimeNs t0, TimeNs t1, int width);
  // factor > 1 zooms in; the time under x stays under x. Zoom stops at 1 ns per 100 px and at
  // 1,000 s per pixel.
  void zoomAround(double x, double factor);
  void panPixels(double dx) { start_ += static_cast<TimeNs>(dx * nsPerPixel_); }

  bool operator==(const TimeAxis&) const = default;

 private:
  TimeNs start_ = 0;
  double nsPerPixel_ = 1.0;
};

// A ruler tick: its time and label ("1.5 ms", "120 µs").
struct RulerTick {
  TimeNs time;
  std::string label;
};

// Ticks for the visible range, at a round step (1, 2, 5 × 10^k ns) no closer than minSpacingPx,
// labelled relative to `origin` in the unit that suits the step.
std::vector<RulerTick> rulerTicks(const TimeAxis& axis, int width, double minSpacingPx,
                                  TimeNs origin);

// The step rulerTicks uses, exposed for tests.
TimeNs rulerStep(double nsPerPixel, double minSpacingPx);

}  // namespace ts
