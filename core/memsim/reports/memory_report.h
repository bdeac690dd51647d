// The memory model's figures as reports (memsim/engine/step_memory.h): the step's peak and its
// make-up by kind as a sentence, and the live bytes layer by layer as a table — what `model
// memory`, `simulate` and the Simulation tab print for a workload.
#pragma once

#include <string>

#include "analysis/stats_table.h"
#include "memsim/engine/step_memory.h"

namespace ts::memsim {

// "peak 884 MiB at kernel #160 layer4.2.conv3.backward_input: weights 97.5 MiB, gradients …".
std::string stepMemorySentence(const SimWorkload& workload, const StepMemory& memory);

// One row per run of consecutive kernels of one layer group (forward/<layer>, backward/<layer>,
// update/<layer>; ungrouped kernels one by one): the first and last kernel, bytes allocated at
// its end and the most while it runs. Notes: the peak with its make-up, and the assumptions.
StatsTable stepMemoryTable(const SimWorkload& workload, const StepMemory& memory);

}  // namespace ts::memsim
