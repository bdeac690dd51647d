// A small hand-built session that uses every entity, event kind and detail field, so round-trip
// tests can compare every column. Shared by the core and views tests.
#pragma once

#include <string>
#include <vector>

#include "session/entities.h"
#include "session/session.h"

namespace ts::testing {

// The limits of an A100-SXM4-40GB as CUDA reports them (name, SMs, memory, per-SM limits).
Device a100Device();

// Two ranks when `multiRank`, else one. Deterministic.
SessionPtr makeFixtureSession(bool multiRank = false);

// A run annotated per model layer, as model mapping expects: for each range an NVTX range
// `name` ("forward/conv1") on one CPU thread, and inside it one launch of a kernel lasting
// `kernelNs` (API call at start + 10, kernel at start + 20, linked by correlation). An empty
// `name` launches the kernel outside any range.
struct LayerRange {
  std::string name;
  TimeNs start = 0, end = 0, kernelNs = 0;
  std::string kernel = "k";
};
// With `gpus` > 1, every GPU (its own process, thread and stream) runs the same ranges, GPU g's
// kernels lasting (g + 1) times as long.
SessionPtr makeLayerRun(const std::vector<LayerRange>& ranges, int gpus = 1);

// True when both sessions hold the same entities, tracks (every column) and flows; else fills
// `why` with the first difference.
bool sameSession(const Session& a, const Session& b, std::string* why);

}  // namespace ts::testing
