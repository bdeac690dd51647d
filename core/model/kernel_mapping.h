// Which model layer each measured GPU kernel belongs to, within one training iteration of a run.
//
// Iterations: the user's range, else NVTX layer ranges (an iteration starts where the first
// layer's forward range repeats), else profiler steps (ranges named ProfilerStep#N), else repeated
// structure (the kernel-name sequence of the busiest GPU read as blocks that repeat), else the
// whole session. The last iteration is mapped (the first is usually a warm-up).
//
// Kernels of that iteration, by what the run tells: NVTX forward/<layer>, backward/<layer> and
// update/<layer> ranges around the launching API call; else PyTorch's aten:: op ranges (the
// outermost one around the launch; the k-th conv2d of the iteration is the model's k-th Conv, an
// autograd ...Backward range the same op counted from the end); else, when the iteration holds as
// many kernels as the step's forward (or forward and backward) kernels, one to one by order. The
// user's corrections (a kernel name → a layer group, or "" to leave it out) come last and win.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/layer_group.h"
#include "model/measured_times.h"
#include "model/model_graph.h"
#include "model/training_step.h"
#include "session/session.h"

namespace ts::model {

struct TimeRange {
  TimeNs start = 0, end = 0;
};

struct MappingOptions {
  uint32_t device = kNone;             // the GPU whose kernels to map; kNone: the busiest
  std::optional<TimeRange> iteration;  // absolute session times; launches inside count
  std::map<std::string, std::string> corrections;  // kernel name → "forward/<layer>" ... or ""
};

struct MappedKernel {
  uint32_t track = kNone, event = kNone;
  std::string group;  // "forward/<layer>", "backward/<layer>", "update/<layer>"; empty: unmapped
  MappingMethod by = MappingMethod::None;  // None: unmapped
  int64_t ns = 0;                          // its duration
};

struct KernelMapping {
  MappingMethod method = MappingMethod::None;  // what mapped most of them (User: only corrections)
  std::string iterationSource;  // "your range", "NVTX layer ranges", "profiler steps", "repeated
                                // kernels", "whole session"
  std::vector<TimeRange> iterations;  // by kernel start: first start to last end of each
  size_t iteration = 0;               // the one mapped
  uint32_t device = kNone;  // the GPU whose kernels are mapped (as asked, else the busiest)
  std::vector<MappedKernel> kernels;  // of the mapped iteration, in start order
  int64_t mappedNs = 0, totalNs = 0;  // kernel time mapped / in the iteration
  struct Unmapped {
    std::string name;
    size_t count = 0;
    int64_t ns = 0;
  };
  std::vector<Unmapped> unmapped;  // by kernel name, most time first
  std::vector<std::string>
      groups;           // every layer group of the model, in step order (for corrections)
  MeasuredTimes times;  // what applyMeasuredTimes takes

  double coverage() const {
    return totalNs > 0 ? static_cast<double>(mappedNs) / static_cast<double>(totalNs) : 0;
  }
  TimeNs origin() const { return iterations.empty() ? 0 : iterations[iteration].start; }
};

KernelMapping mapKernels(const Session& session, const ModelGraph& graph, const TrainingStep& step,
                         const MappingOptions& options = {});

// The layer group of each step kernel ("forward/conv1"; empty when its op has no layer).
std::vector<std::string> stepKernelGroups(const ModelGraph& graph, const TrainingStep& step);

// Reads corrections, one per line: `kernel name <TAB> group` (group empty: leave the kernel out);
// '#' starts a comment line. Errors name the file and line.
Result<std::map<std::string, std::string>> loadCorrections(const std::string& path);

}  // namespace ts::model
