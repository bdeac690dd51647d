// The multiplexing advice as the CLI and the GUI give it: the jobs packed under each way of
// sharing the GPU can offer, whether their memory fits, the recommendation (the sharing with the
// highest Σ above 1 that the memory allows) and its caveats; and a packed run as a session.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "advisor/multiplex.h"
#include "session/session.h"
#include "util/result.h"

namespace ts::advisor {

struct MultiplexAdvice {
  std::vector<PackedRun> runs;  // time-slicing, MPS, then MIG when a MIG GPU was given and fits
  std::optional<std::vector<MigProfile>> profiles;  // MIG: one per job
  std::string migUnfit;      // a MIG GPU was given but no profiles hold the jobs: why
  bool memoryKnown = false;  // every job's peak is known
  int64_t memoryTotal = 0;   // their sum, when known
  int64_t gpuMemory = 0;     // 0: unknown
  bool fits = false, overflows = false;
  int best = -1;  // index into runs, or -1: don't pack
  std::string recommendation;
  std::vector<std::string> caveats;
};

// `mig`: the GPU to partition (null: MIG not judged); `gpuMemory`: the shared GPU's memory (0:
// unknown); `measuredOn`: the jobs' GPU, to say when they are not rescaled to `targetGpu` (the
// device preset chosen to share; empty: the GPU they ran on).
MultiplexAdvice adviseMultiplex(const std::vector<Job>& jobs, const MigGpu* mig, int64_t gpuMemory,
                                const std::string& measuredOn, SharingOptions sharing,
                                const std::string& targetGpu = {});

// The packed run as a session: one GPU named `gpuName`, a stream per job (named by the job, and by
// its MIG profile when `profiles` are given) with its operations where they ran. Marked as a
// Tensorscope prediction.
Result<SessionPtr> packedSession(const std::vector<Job>& jobs, const PackedRun& run,
                                 const std::string& gpuName,
                                 const std::optional<std::vector<MigProfile>>& profiles = {});

}  // namespace ts::advisor
