// Measured against simulated, layer by layer: the measured run's GPU time per layer and phase (its
// NVTX ranges forward/<layer> and backward/<layer>, the kernels launched inside them, averaged over
// iterations) beside one simulated policy's time for the same layer (the layer ranges a model's
// simulation carries, stalls included).
#pragma once

#include <string>

#include "analysis/stats_table.h"
#include "session/session.h"
#include "util/result.h"

namespace ts::memsim {

// Rows per layer and phase ("conv1 (forward)", "conv1 (backward)"). Columns: layer, measured_ns,
// simulated_ns, delta_ns, delta_pct; in the simulation's layer order, then layers only the measured
// run has. `policy` empty: the first in the simulation. Errors name what is missing (no layer
// ranges in either session, no such policy).
Result<StatsTable> compareLayers(const Session& measured, const Session& simulated,
                                 const std::string& policy);

}  // namespace ts::memsim
