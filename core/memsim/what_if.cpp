#include "memsim/what_if.h"

#include "memsim/sim_session.h"

namespace ts::memsim {

WhatIf runWhatIf(const SimWorkload& w, Policy policy, const TierConfig& tiers) {
  WhatIf out;
  auto runs = runPolicies(w, {policy}, tiers);
  if (!runs) {
    out.error = runs.error();
    return out;
  }
  out.result = (*runs)[0].result;
  if (!out.result.feasible) return out;
  out.session = simulationSession(w, *runs, tiers);
  out.rows = std::make_shared<const TimelineRows>(out.session);
  return out;
}

}  // namespace ts::memsim
