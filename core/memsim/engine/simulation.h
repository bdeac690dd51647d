// One entry point for a what-if run: check the workload against the tiers, analyse vitality once,
// plan and simulate each requested policy.
#pragma once

#include <vector>

#include "memsim/engine/simulator.h"
#include "util/result.h"

namespace ts::memsim {

struct PolicyRun {
  Plan plan;
  SimResult result;
  double planSeconds = 0;
  double simulateSeconds = 0;
};

// Errors: invalid tiers, a kernel whose working set exceeds GPU memory (named). A policy that
// cannot fit is a result with feasible = false, not an error.
Result<std::vector<PolicyRun>> runPolicies(const SimWorkload& workload,
                                           const std::vector<Policy>& policies,
                                           const TierConfig& tiers);

}  // namespace ts::memsim
