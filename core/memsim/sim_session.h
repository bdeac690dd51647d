// A simulated timeline as a session the GUI opens like any capture: per policy a rank with one
// simulated GPU — its kernels on a compute stream (stalls as ranges beside them), a stream per
// link with the migrations, tier usage as counters — and a "tensors" process whose threads hold
// the spans each tensor spent in host memory and on the SSD.
#pragma once

#include <vector>

#include "memsim/simulation.h"
#include "session/session.h"

namespace ts::memsim {

SessionPtr simulationSession(const SimWorkload& workload, const std::vector<PolicyRun>& runs, const TierConfig& tiers);

}  // namespace ts::memsim
