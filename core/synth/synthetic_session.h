// Deterministic synthetic sessions for tests and benchmarks: a training-like mix of kernels,
// copies, memsets, launch API calls with correlation ids, NVTX layer ranges and memory counters.
#pragma once

#include <cstdint>

#include "session/session.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

struct SyntheticSpec {
  uint64_t events = 10000;  // total events, all tracks together
  int gpus = 1;
  int streamsPerGpu = 2;
  uint64_t seed = 1;
};

// The same spec gives the same session, event for event, on every platform.
Result<SessionPtr> generateSyntheticSession(const SyntheticSpec& spec,
                                            const Progress& progress = {});

}  // namespace ts
