// Tiers for simulating a measured run: the starting tiers (G10's defaults unless the user chose)
// with the run's own GPU — its memory as the trace or capture recorded it and, where the run
// copied enough between pinned host memory and that GPU, the link bandwidth those copies reached
// — so a V100-32GB run is not simulated on a 40 GiB GPU. `note` says what was taken from the run.
#pragma once

#include <string>

#include "memsim/engine/tier_config.h"
#include "session/session.h"

namespace ts::memsim {

struct RunTiers {
  TierConfig tiers;
  bool gpuFromRun = false, linkFromRun = false;
  std::string note;  // "GPU memory 31.74 GiB: the run's Tesla V100-DGXS-32GB; GPU ↔ host …"
};

// `device`: the run's GPU (an index into run.devices); kNone: the one with the most kernel time
// (the first when none ran a kernel).
RunTiers tiersForRun(const TierConfig& base, const Session& run, uint32_t device = kNone);

// The median rate of the run's copies of at least 1 MiB between pinned host memory and `device`,
// in bytes/s; 0 when it has none (pageable copies go through a staging buffer: they say little
// about the link).
double measuredLinkBandwidth(const Session& run, uint32_t device);

}  // namespace ts::memsim
