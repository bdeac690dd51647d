// Simulation results as reports: a table (text, CSV, the GUI) with one row per policy, optionally
// beside G10's published numbers, and the JSON array `simulate --json` prints.
#pragma once

#include <string>
#include <vector>

#include "analysis/stats_table.h"
#include "memsim/engine/simulation.h"
#include "memsim/formats/g10_published.h"

namespace ts::memsim {

// Columns: policy, feasible, iteration, ideal, slowdown, stall, overlap, faults, bytes per link;
// with `published` also G10's iteration time and our difference from it in percent.
StatsTable simulationTable(const std::vector<PolicyRun>& runs,
                           const PublishedRow* published = nullptr, double gpuClockHz = 1.2e9);

// Every run's plan as rows: policy, kernel index and name, action, tensor, bytes.
StatsTable planTable(const SimWorkload& workload, const std::vector<PolicyRun>& runs);

// "1.5 GiB host → GPU, 512 MiB GPU → SSD": the bytes of each link to and from the GPU that moved
// any ("no transfers" when none did), as the GUI's summaries and the comparison's notes say them.
std::string trafficSentence(const SimSummary& summary);

// [{"policy", "feasible", "iteration_ns", "ideal_ns", "slowdown", "stall_ns", "compute_ns",
//   "overlap_ns", "faults", "bytes": {"host-to-gpu": N, ...}, "problem"?, "memory": {...}}, ...]
// "memory" (memsim/engine/step_memory.h): the step's peak with unlimited memory and its make-up
// by kind (the same for every policy), the peak allocated on the GPU under this policy, and the
// peak of the GPU pages it keeps resident (freed ones too, for unified memory).
std::string simulationJson(const SimWorkload& workload, const std::vector<PolicyRun>& runs);

}  // namespace ts::memsim
