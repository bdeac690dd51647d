// A heterogeneous data-parallel step drawn as a session, so that it opens, reads and compares
// like a measured run: one GPU per device (named by its type), on each its share of the batch —
// per layer a forward kernel, then per layer in reverse a backward kernel, when the model gives
// the layers (else one kernel for its forward and backward) —, the gradients' all-reduce, which
// starts on every device when the slowest is done (the others sit idle before it), and the
// optimizer's update. Marked as a Tensorscope prediction in its provenance.
#pragma once

#include <string>
#include <vector>

#include "advisor/hetero.h"
#include "session/session.h"
#include "util/result.h"

namespace ts::advisor {

// `layers` (may be empty) hold the model's per-phase times at `globalBatch` on each device;
// `title` names the prediction (the model, the devices).
Result<SessionPtr> dataParallelTimeline(const std::vector<HeteroDevice>& devices,
                                        const DataSplit& split, int64_t globalBatch,
                                        const std::vector<PipelineLayer>& layers,
                                        int64_t gradientBytes, const std::string& title);

// A pipeline in its steady state as a session: `steps` batches flowing through the stages, one
// GPU per stage (named by its device type), each stage taking its batch k at k · period after
// the stage before it — the period being the slowest stage — first receiving its input
// activation (a peer copy) and then computing its layers; the idle the imbalance leaves shows as
// gaps. The session spans (steps + stages − 1) periods.
Result<SessionPtr> pipelineTimeline(const std::vector<HeteroDevice>& devices,
                                    const PipelineSplit& split,
                                    const std::vector<PipelineLayer>& layers, int steps,
                                    const std::string& title);

}  // namespace ts::advisor
