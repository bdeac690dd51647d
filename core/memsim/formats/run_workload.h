// A measured run as the simulator's workload, with no model: what G10 and the other policies
// would do with this exact run. Its kernels are one iteration of the run's GPU kernels with their
// measured times; its tensors are the run's own allocations on that GPU (analysis/
// measured_tensors.h), each written by the first kernel launched after it was allocated and last
// read by the last kernel launched before it was freed. What the records cannot tell is said, not
// guessed: which kernels read an allocation in between (none, as far as the plan knows: a policy
// may move it out and back before its last use), and which kernels read the memory held through
// the whole iteration (weights, optimizer state, memory allocated before the records): kept on
// the GPU as one tensor every kernel reads.
#pragma once

#include <string>

#include "memsim/engine/workload.h"
#include "memsim/formats/workload_source.h"
#include "session/session.h"

namespace ts::memsim {

struct RunWorkloadNotes {
  size_t allocations = 0;    // measured allocations alive in the iteration
  size_t withoutKernel = 0;  // of them, alive while no kernel of the iteration was launched
  int64_t withoutKernelBytes = 0;
  int64_t heldThroughBytes = 0;  // pinned: held through the whole iteration
  std::string sentence() const;  // all of it, for notes
};

// `runName` names the run in errors; `options` say which GPU (else the busiest) and iteration
// (else the last, as model mapping does). `mapping` gets the iteration and its kernels, each in a
// group of its own ("kernel <k>: <launching op>") so that the overlay ties the simulated kernel to
// the measured one. Fails when the GPU's allocation records carry no addresses.
Result<SimWorkload> workloadOfRun(const Session& run, const std::string& runName,
                                  const model::MappingOptions& options,
                                  MappingSummary* mapping = nullptr,
                                  RunWorkloadNotes* notes = nullptr);

}  // namespace ts::memsim
