// Which model layer each measured GPU kernel belongs to, within one training iteration of a run.
//
// Iterations as kernel_iterations.h finds them; the last one is mapped (the first is usually a
// warm-up).
//
// Kernels of that iteration, by what the run tells: NVTX forward/<layer>, backward/<layer> and
// update/<layer> ranges around the launching API call; else the PyTorch ops that launched them,
// checked against the model where the profiler recorded shapes (op_mapping.h); else, when the
// iteration holds as many kernels as the step's forward (or forward and backward) kernels, one to
// one by order. The user's corrections (a kernel name → a layer group, or "" to leave it out) come
// last and win. Every kernel says how sure its group is (Certainty).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/kernel_iterations.h"
#include "model/layer_group.h"
#include "model/measured_times.h"
#include "model/model_graph.h"
#include "model/training_step.h"
#include "session/session.h"

namespace ts::model {

struct MappingOptions {
  uint32_t device = kNone;               // the GPU whose kernels to map; kNone: the busiest
  std::optional<TimeRange> iteration;    // absolute session times; kernels starting inside count
  std::optional<size_t> iterationIndex;  // which detected iteration (from 0); the last if unset
                                         // or past the end
  std::map<std::string, std::string> corrections;  // kernel name → "forward/<layer>" ... or ""
};

struct MappedKernel {
  uint32_t track = kNone, event = kNone;
  std::string group;  // "forward/<layer>", "backward/<layer>", "update/<layer>"; empty: unmapped
  MappingMethod by = MappingMethod::None;  // None: unmapped
  Certainty certainty = Certainty::None;   // how sure `group` is
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
  // Kernel time in the iteration; mapped to a layer by evidence (guesses not counted), of that
  // checked or stated; and placed by guess (Certainty::Guess).
  int64_t totalNs = 0, mappedNs = 0, checkedNs = 0, guessedNs = 0;
  struct Unmapped {
    std::string name;
    size_t count = 0;
    int64_t ns = 0;
  };
  std::vector<Unmapped> unmapped;  // by kernel name, most time first
  std::vector<std::string>
      groups;           // every layer group of the model, in step order (for corrections)
  MeasuredTimes times;  // what applyMeasuredTimes takes

  double coverage() const {  // mapped by evidence, guesses not counted
    return totalNs > 0 ? static_cast<double>(mappedNs) / static_cast<double>(totalNs) : 0;
  }
  // Shares of the iteration's kernel time whose group was checked (shapes) or stated (NVTX,
  // user), and that was placed by guess.
  double checkedShare() const {
    return totalNs > 0 ? static_cast<double>(checkedNs) / static_cast<double>(totalNs) : 0;
  }
  double guessedShare() const {
    return totalNs > 0 ? static_cast<double>(guessedNs) / static_cast<double>(totalNs) : 0;
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
