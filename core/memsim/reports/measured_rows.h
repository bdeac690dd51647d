// The run's own memory beside a simulation of it, under one GPU of the overlay: the allocator's
// counter as "GPU memory (measured)" right under the simulated curve, and "Tensors (measured)":
// the lifetimes paired from its allocation records (analysis/measured_tensors.h) within the
// mapped iteration, a group per class and a lane per op that allocated them, drawn as the
// simulated tensors are. Records without addresses (PyTorch before 1.10) give the curve only,
// and the group says so. Without a simulation, the same lanes over the whole run.
#pragma once

#include <vector>

#include "analysis/measured_tensors.h"
#include "memsim/reports/overlay.h"
#include "timeline/timeline_rows.h"

namespace ts::memsim {

// The counter row, when the run records the GPU's allocations.
void addMeasuredCurve(const Session& s, std::vector<TimelineOverlay::Row>& rows, uint32_t device);
// The lanes of the allocations alive in [from, to). `thread` owns their tracks (the overlay's);
// `memory` is the GPU's, or null when the run records no allocation counter for it. Returns how
// many measured allocations the lanes show.
size_t addMeasuredTensors(Session& s, std::vector<TimelineOverlay::Row>& rows, uint32_t thread,
                          const MeasuredMemory* memory, TimeNs from, TimeNs to);

// The run's own allocations with no simulation: under each GPU whose allocation records carry
// addresses (PyTorch's profile_memory, a memory snapshot), "Tensors (measured)" over the whole
// run, on a copy of the session, as an overlay the timeline shows in place of the run. NotFound
// when no GPU's records carry addresses (nothing to add: the counter rows already draw the curve).
Result<Overlay> buildMeasuredOverlay(const SessionPtr& run);

}  // namespace ts::memsim
