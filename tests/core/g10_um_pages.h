// G10's unified-memory simulator page by page: the reference the run-based one is held to.
#pragma once

#include "memsim/engine/simulator.h"

namespace ts::memsim {

SimResult simulateG10UnifiedPages(const SimWorkload& workload, const Plan& plan,
                                  const TierConfig& tiers);

}  // namespace ts::memsim
