// G10 workload directories (../shared/data/g10/<Model>-<Batch>): kernels.config (per kernel its
// id, name, parent op, execution time in GPU cycles at 1.2 GHz, input and output tensors) and
// tensors.config (per tensor its id, weight flag and size), each plain or gzipped. Strict about
// what it trusts: kernel ids 0..n-1 without gaps, tensors defined before use with the same size
// and flag everywhere, no negative sizes or times — errors name the file and line.
#pragma once

#include <string>

#include "memsim/engine/workload.h"
#include "util/result.h"

namespace ts::memsim {

inline constexpr double kG10ClockHz = 1.2e9;  // G10's GPU clock: cycles in its files

struct G10Workload {
  std::string directory;
  SimWorkload workload;         // kernels with ns durations, tensors by index
  std::vector<int> tensorIds;   // G10's id of each tensor (tensor<id>)
  std::vector<int64_t> cycles;  // each kernel's time as G10 wrote it
  // Read from G10's traces (g10_inputs.h) only, empty otherwise: each kernel's time with its
  // outputs demand-faulted and with every operand demand-faulted, in cycles, as G10 takes them
  // (never below the time without faults).
  std::vector<int64_t> inputPfCycles, pfCycles;
};

Result<G10Workload> loadG10Workload(const std::string& directory);

}  // namespace ts::memsim
