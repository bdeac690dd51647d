// Training iterations of a run, found in what it holds: the user's range, else NVTX layer ranges
// (an iteration starts where the first layer's forward range repeats), else profiler steps
// (ranges named ProfilerStep#N), else repeated structure (the kernel-name sequence read as blocks
// that repeat), else the whole session.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/launch_context.h"

namespace ts::model {

struct TimeRange {
  TimeNs start = 0, end = 0;
};

struct KernelIterations {
  std::string source;  // "your range", "NVTX layer ranges", "profiler steps", "repeated kernels",
                       // "whole session"
  std::vector<std::vector<size_t>> members;  // per iteration, positions in the kernel list
  std::vector<TimeRange> ranges;             // by kernel start: first start to last end of each
};

// `kernels` in start order (launchedKernels). With `asked`, the kernels that start inside it;
// when none does, no members and `ranges` holds the range as asked.
KernelIterations findIterations(const Session& session, const std::vector<LaunchedKernel>& kernels,
                                const std::optional<TimeRange>& asked);

}  // namespace ts::model
