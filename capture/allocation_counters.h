// The CUDA allocations a capture recorded (CUPTI memory records: cudaMalloc, cudaFree, memory
// pools) as counters, the way a PyTorch trace's [memory] events become them: "CUDA memory
// allocated" of the GPU for device and managed memory, "Pinned host memory allocated" of the
// process for page-locked host memory; each sample keeps the allocation's size (negative for a
// free) and address, so that analysis/measured_tensors.h pairs them into allocations that begin
// and end. CUPTI hands its buffers over in any order: each publish sorts and sums a counter again
// whole when records came for it (allocations are few: a caching allocator such as PyTorch's
// calls cudaMalloc rarely).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "capture/wire_format.h"
#include "session/session_builder.h"

namespace ts::capture {

class AllocationCounters {
 public:
  // `device` (a session device) for GPU memory, else `process` for host memory.
  void add(const MemoryFrame& frame, uint32_t device, uint32_t process);
  // Every counter that got records since the last call, written into the builder's draft.
  void publish(SessionBuilder& b);
  // Records of memory kinds neither a GPU's nor pinned host memory (arrays, unknown), left out.
  uint64_t leftOut() const { return leftOut_; }

 private:
  struct Series {
    std::string name;
    uint32_t device = kNone, process = kNone;
    std::vector<MemoryFrame> frames;
    bool changed = false;
  };
  std::map<std::pair<uint32_t, uint32_t>, Series> series_;  // by (device, process)
  uint64_t leftOut_ = 0;
};

}  // namespace ts::capture
