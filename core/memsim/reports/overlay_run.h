// "What would this policy do to my run", in one call the GUI runs off its thread and the CLI runs
// as is: per GPU of the run (the busiest first), map its kernels onto the model's training step
// (measured times replace the roofline), plan and simulate one policy; then lay every GPU's
// result over the run's timeline, under that GPU.
#pragma once

#include <string>

#include "memsim/engine/simulation.h"
#include "memsim/formats/workload_source.h"
#include "memsim/reports/mapping_report.h"
#include "memsim/reports/overlay.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts::memsim {

struct OverlayRequest {
  WorkloadSource source;  // a model, with the run, open, as `session`; or the run alone (isRun)
  Policy policy = Policy::G10;
  TierConfig tiers;
  OverlayOptions options;
};

struct GpuRun {
  uint32_t device = kNone;
  MappingSummary mapping;
  SimWorkload workload;
  PolicyRun run;
  MemoryVerdict memory;  // the run's GPU memory against the simulation's, and any contradiction
};

struct OverlayRun {
  // Fails for the busiest GPU's problem (the others are skipped) or when cancelled.
  Status status;
  TierConfig tiers;          // as simulated
  std::vector<GpuRun> gpus;  // the busiest GPU first; on error, it holds the mapping to correct
  std::vector<std::string> skipped;  // other GPUs that could not be simulated, and why
  Overlay overlay;
};

// `progress` hears the stages "mapping kernels", "planning and simulating", "drawing", and is
// checked for cancellation between them.
OverlayRun runOverlay(const OverlayRequest& request, const Progress& progress = {});

}  // namespace ts::memsim
