// The run's memory against the memory model's, layer by layer (what the run's allocator held once
// each layer was done against what the model of its step, step_memory.h, holds then, with the
// error in sum) and tensor by tensor. The CLI's `simulate --compare` prints it; the Simulation tab
// shows it.
#pragma once

#include "analysis/stats_table.h"
#include "memsim/engine/workload.h"
#include "model/kernel_mapping.h"
#include "session/session.h"

namespace ts::memsim {

// Per layer group in step order ("layer1.0.conv1 (forward)"): measured, the mapped GPU's
// allocated-bytes counter just before the next layer's first kernel was launched (the layer's
// ops done, their inputs freed); simulated, the bytes allocated once the layer's last kernel has
// ended. A counter that starts at 0 with the trace ("allocated since trace start") misses what
// was held before it: the workload's global tensors are added and the note says so. Empty (with a
// note) when the run records no allocations for that GPU.
StatsTable layerMemoryComparison(const Session& run, const SimWorkload& workload,
                                 const model::KernelMapping& mapping);

// The model's tensors matched to the run's own allocations (analysis/measured_tensors.h) by the
// layer that makes them and their size (from the shape; the CUDA caching allocator's 512-byte
// rounding allowed): per simulated tensor that lives within the step, its shape, bytes, the
// layers of its birth and death in the model and in the run, the run's op that allocated it, and
// its lifetime on both clocks. The notes state how many matched, how many of those die in the same
// layer in both, and what measured memory nothing matched. Empty (with a note) when the run's
// records carry no addresses.
StatsTable tensorComparison(const Session& run, const SimWorkload& workload,
                            const model::KernelMapping& mapping);

}  // namespace ts::memsim
