#include "memsim/reports/what_if.h"

#include "memsim/formats/sim_session.h"

namespace ts::memsim {

WhatIf runWhatIf(const SimWorkload& w, Policy policy, const TierConfig& tiers) {
  WhatIf out;
  auto runs = runPolicies(w, {policy}, tiers);
  if (!runs) {
    out.status = runs.failure();
    return out;
  }
  out.result = (*runs)[0].result;
  if (!out.result.feasible) return out;
  auto session = simulationSession(w, *runs, tiers);
  if (!session) {
    out.status = session.failure();
    return out;
  }
  out.session = *session;
  out.rows = std::make_shared<const TimelineRows>(out.session);
  return out;
}

}  // namespace ts::memsim
