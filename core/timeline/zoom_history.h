// Back and forward through the views a timeline has shown (Alt+Left / Alt+Right), as a browser
// does: a new view clears the forward list. Kept apart from any widget so every canvas (the
// session's, the compare view's two, the simulation's) navigates the same way, and tests check it
// without a screen.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>

#include "timeline/time_axis.h"

namespace ts {

class ZoomHistory {
 public:
  static constexpr size_t kLimit = 256;  // the oldest views are forgotten beyond this

  // `current` is about to be replaced by a new view.
  void push(const TimeAxis& current);
  // The view to show instead of `current`, which becomes the way back (or forward); nullopt when
  // there is none.
  std::optional<TimeAxis> back(const TimeAxis& current);
  std::optional<TimeAxis> forward(const TimeAxis& current);
  bool canGoBack() const { return !back_.empty(); }
  bool canGoForward() const { return !forward_.empty(); }

 private:
  std::deque<TimeAxis> back_, forward_;
};

}  // namespace ts
