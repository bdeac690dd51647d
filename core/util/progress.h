// Progress reporting and cooperative cancellation for long jobs (load, import, plan, simulate,
// capture). The GUI runs these off its thread; a newer request cancels the older one through
// `cancel`. A job that stops because of it returns Error::cancelled() (util/result.h).
#pragma once

#include <atomic>
#include <functional>
#include <string_view>

namespace ts {

struct Progress {
  std::function<void(double fraction)> report;  // may be empty; fraction in [0, 1]
  const std::atomic<bool>* cancel = nullptr;    // may be null
  // May be empty: hears the name of each step as it starts ("mapping kernels", "planning").
  std::function<void(std::string_view stage)> stage;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  void update(double fraction) const {
    if (report) report(fraction);
  }
  // Announces the next step; false when the job is cancelled and should stop now.
  bool enter(std::string_view name) const {
    if (stage) stage(name);
    return !cancelled();
  }
};

}  // namespace ts
