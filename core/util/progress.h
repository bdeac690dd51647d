// Progress reporting and cooperative cancellation for long jobs (load, import, plan).
// The GUI runs these off its thread; a newer request cancels the older one through `cancel`.
#pragma once

#include <atomic>
#include <functional>

namespace ts {

struct Progress {
  std::function<void(double fraction)> report;  // may be empty; fraction in [0, 1]
  const std::atomic<bool>* cancel = nullptr;    // may be null

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  void update(double fraction) const {
    if (report) report(fraction);
  }
};

}  // namespace ts
