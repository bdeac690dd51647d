// One what-if step, everything a view needs to redraw after a control moves: plan and simulate
// one policy, turn the result into a session and lay out its timeline rows. Qt-free, so the GUI
// runs it off its thread and the benchmark times exactly what the user waits for.
#pragma once

#include <memory>

#include "memsim/engine/simulation.h"
#include "session/session.h"
#include "timeline/timeline_rows.h"

namespace ts::memsim {

struct WhatIf {
  Status status;         // fails when the tiers are invalid or a kernel is too big for the GPU
  SimResult result;      // feasible = false when the policy cannot fit
  std::string planNote;  // how the plan was made, as `simulate` notes it (G10's own rules)
  SessionPtr session;    // the simulated timeline (null when infeasible or on error)
  std::shared_ptr<const TimelineRows> rows;
};

WhatIf runWhatIf(const SimWorkload& workload, Policy policy, const TierConfig& tiers);

}  // namespace ts::memsim
