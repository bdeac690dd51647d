// Tables about a run mapped onto its model and simulated: which measured kernel is which layer,
// and the simulation against the measurement per kernel, per layer and in sum (iteration, stall,
// traffic). The CLI prints them, the GUI's simulation pane and compare view show them.
#pragma once

#include <optional>
#include <string>

#include "analysis/stats_table.h"
#include "memsim/engine/simulator.h"
#include "memsim/formats/workload_source.h"
#include "model/kernel_mapping.h"
#include "session/session.h"

namespace ts::memsim {

// The mapping in words, the one sentence the CLI's notes, the tables' titles and the GUI's panes
// share: "by aten, iteration 2 of 2 (repeated kernels), 97.4 % of its kernel time mapped"; with
// the layers (the summary), ", 8 of 8 layers timed" after it.
std::string mappingSentence(const model::KernelMapping& mapping);
std::string mappingSentence(const MappingSummary& summary);

// The mapped iteration's kernels: #, start (from the iteration's start), duration, name, layer
// group, how it was mapped. The title says the method, the iteration and the coverage.
StatsTable mappingTable(const Session& run, const model::KernelMapping& mapping);

// Per simulated kernel: its time as the workload gives it (measured when its layer was mapped,
// else the roofline) against its simulated span with the stall before it.
StatsTable kernelComparison(const SimWorkload& workload, const SimResult& result,
                            const model::KernelMapping& mapping);

// Per layer group ("features.0 (forward)"): the mapped measured kernels' time against the
// simulated kernels of that group, stalls included.
StatsTable layerComparison(const SimWorkload& workload, const SimResult& result,
                           const model::KernelMapping& mapping);

// Iteration time, kernel time and stall: measured beside simulated (the note sums the traffic;
// another says how the GPU memory compares, with memoryVerdict's warning when there is one).
StatsTable comparisonSummary(const Session& run, const SimWorkload& workload,
                             const SimResult& result, const model::KernelMapping& mapping,
                             int64_t gpuBytes);

// The run's GPU memory against the simulation's, for the mapped iteration: a sentence (the run's
// allocator at its peak; the simulated step's peak with unlimited memory, Δ; the most allocated
// on the GPU under the policy), and a warning where the verdicts contradict each other — the run
// fit in `gpuBytes` (the simulated GPU's memory) yet the simulation stalls for memory, or the run
// needed more than `gpuBytes` yet the simulated step fits without a stall. Empty warning
// otherwise, or when the run records no GPU memory counter.
struct MemoryVerdict {
  std::optional<int64_t> measuredPeak;
  int64_t simulatedPeak = 0;  // the step memory model's, unlimited memory
  std::string sentence;
  std::string warning;
};
MemoryVerdict memoryVerdict(const Session& run, const SimWorkload& workload,
                            const SimResult& result, const model::KernelMapping& mapping,
                            int64_t gpuBytes);

// Bytes per direction during the mapped iteration: the run's copies of the matching kind (host
// to device, device to host) beside the simulated transfers over each link; and the GPU memory
// at its peak, the run's allocator against the memory model's bytes allocated on the GPU.
StatsTable trafficComparison(const Session& run, const SimWorkload& workload,
                             const SimResult& result, const model::KernelMapping& mapping);

}  // namespace ts::memsim
