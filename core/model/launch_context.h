// What the CPU side says about each GPU kernel: the thread and time its launch came from (the API
// call its flow starts at), and the annotation ranges around that launch — NVTX ranges, PyTorch's
// aten:: ops and autograd nodes, with the inputs the profiler recorded. The kernel mapping reads
// a kernel's layer from them.
#pragma once

#include <string_view>
#include <unordered_map>
#include <vector>

#include "session/session.h"

namespace ts::model {

struct LaunchedKernel {
  uint32_t track = kNone, event = kNone;
  TimeNs start = 0, end = 0;
  StringId name = 0;
  uint32_t thread = kNone;  // the launching thread, when a flow says
  TimeNs launch = 0;        // the API call's start, else the kernel's own start
};

// The kernels of one GPU in start order, with their launches.
std::vector<LaunchedKernel> launchedKernels(const Session& session, uint32_t device);

// The annotation ranges (NVTX and other ranges) of a thread that cover a time.
class EnclosingRanges {
 public:
  explicit EnclosingRanges(const Session& session);
  struct Hit {
    uint32_t track, event;
    std::string_view name;
    std::string_view inputs;  // the op's recorded inputs (session/op_inputs.h), "" if none
    uint64_t key() const { return (uint64_t{track} << 32) | event; }
  };
  // Outermost first: earlier start, then longer.
  std::vector<Hit> at(uint32_t thread, TimeNs time) const;

 private:
  const Session& s_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> byThread_;
};

}  // namespace ts::model
