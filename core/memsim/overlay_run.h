// "What would this policy do to my run", in one call the GUI runs off its thread and the CLI runs
// as is: per GPU of the run (the busiest first), map its kernels onto the model's training step
// (measured times replace the roofline), plan and simulate one policy; then lay every GPU's
// result over the run's timeline, under that GPU.
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

struct GpuRun {
  uint32_t device = kNone;
  MappingSummary mapping;
  SimWorkload workload;
  PolicyRun run;
};

struct OverlayRun {
  std::string error;  // empty on success (it concerns the busiest GPU; the others are skipped)
  bool cancelled = false;
  TierConfig tiers;          // as simulated
  std::vector<GpuRun> gpus;  // the busiest GPU first; on error, it holds the mapping to correct
  std::vector<std::string> skipped;  // other GPUs that could not be simulated, and why
  Overlay overlay;
};

// `stage` (may be empty) hears "mapping kernels", "planning", "simulating", "drawing"; `cancel`
// (may be null) is checked between the stages.
OverlayRun runOverlay(const OverlayRequest& request,
                      const std::function<void(const char*)>& stage = {},
                      const std::atomic<bool>* cancel = nullptr);

}  // namespace ts::memsim
