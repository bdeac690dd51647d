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
  out.planNote = (*runs)[0].plan.note;
  if (!out.result.feasible) return out;
  auto session = simulationSession(w, *runs, tiers);
  if (!session) {
    out.status = session.failure();
    return out;
  }
  out.session = *session;
  auto rows = std::make_shared<TimelineRows>(out.session);
  // Each tier's row against its size: a peak of 39.6 GiB reads "of 40 GiB", with the line.
  // The ideal has unlimited GPU memory: its peak is against no capacity ("47.7 GiB of 40 GiB"
  // read as a fault).
  if (policy != Policy::Ideal)
    rows->setCounterCapacity(kGpuUsedCounter, static_cast<double>(tiers.gpuBytes));
  rows->setCounterCapacity(kHostUsedCounter, static_cast<double>(tiers.hostBytes));
  rows->setCounterCapacity(kSsdUsedCounter, static_cast<double>(tiers.ssdBytes));
  out.rows = std::move(rows);
  return out;
}

}  // namespace ts::memsim
