// "What would this policy do to my run", in one call the GUI runs off its thread and the CLI runs
// as is: map the run's kernels onto the model's training step (measured times replace the
// roofline), plan and simulate one policy, and lay the result over the run's timeline.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "memsim/overlay.h"
#include "memsim/simulation.h"
#include "memsim/workload_source.h"

namespace ts::memsim {

struct OverlayRequest {
  WorkloadSource source;  // a model, with the run as `session` (or `sessionPath`)
  Policy policy = Policy::G10;
  TierConfig tiers;
  OverlayOptions options;
};

struct OverlayRun {
  std::string error;  // empty on success
  bool cancelled = false;
  MappingSummary mapping;
  TierConfig tiers;  // as simulated
  SimWorkload workload;
  PolicyRun run;
  Overlay overlay;
};

// `stage` (may be empty) hears "mapping kernels", "planning", "simulating", "drawing"; `cancel`
// (may be null) is checked between the stages.
OverlayRun runOverlay(const OverlayRequest& request, const std::function<void(const char*)>& stage = {},
                      const std::atomic<bool>* cancel = nullptr);

}  // namespace ts::memsim
