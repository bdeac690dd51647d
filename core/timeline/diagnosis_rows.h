// A diagnosis drawn on the run's timeline (analysis/diagnosis.h), so that "why is this step slow"
// reads where the time went:
//  - per GPU a Steps row above Compute: each step of the GPU's rank projected onto that GPU (the
//    first operation it launched there to the last one's end, as Nsight projects NVTX ranges),
//    outlier steps marked, the straggler rank's row labelled so;
//  - per stream, a lane under its operations with every idle gap coloured by its cause;
//  - per GPU a Queue depth counter (operations launched and not yet finished, all its streams),
//    one row per stream under it.
#pragma once

#include <memory>
#include <string>

#include "analysis/diagnosis.h"
#include "analysis/launch_index.h"
#include "timeline/timeline_rows.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

inline constexpr const char* kStepsRow = "diagnosis.steps";  // the Steps rows' extension name
inline constexpr const char* kStepCategory = "step";
inline constexpr const char* kOutlierStepCategory = "step (outlier)";
inline constexpr const char* kQueueDepthRow = "Queue depth";
// "idle: host wait", ...: the category (and name) of an idle gap of `cause`.
std::string idleCategory(IdleCause cause);

struct DiagnosisRows {
  SessionPtr session;  // `base` with the diagnosis's tracks and counters added
  std::shared_ptr<const TimelineOverlay> layout;  // base's overlay rows and the diagnosis's
  std::shared_ptr<const TimelineRows> rows;
  size_t steps = 0;   // step projections drawn (a step on two GPUs counts twice)
  size_t gaps = 0;    // idle gaps drawn
  size_t queues = 0;  // queue depth rows
};

// `base` is what the timeline shows: the run, or a copy of it with another module's tracks added
// (a simulation's), whose rows `baseLayout` holds and which are kept. `diagnosis` and `launches`
// are of the run, whose track and stream indices `base` keeps; the diagnosis should be of the
// whole session (a range's leaves the rest undrawn).
Result<DiagnosisRows> buildDiagnosisRows(const SessionPtr& base,
                                         const std::shared_ptr<const TimelineOverlay>& baseLayout,
                                         const Diagnosis& diagnosis, const LaunchIndex& launches,
                                         const Progress& progress = {});

}  // namespace ts
