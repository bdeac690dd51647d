// How many operations wait on each stream, as HolisticTraceAnalysis's queue length defines it:
// an operation joins its stream's queue when its launching call starts and leaves it when it
// ends on the GPU. CUDA holds at most 1024 outstanding operations per stream; while a stream's
// queue is full the next launch blocks the CPU thread until one completes.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/gpu_ops.h"
#include "analysis/launch_index.h"

namespace ts {

inline constexpr uint32_t kCudaQueueCapacity = 1024;

struct QueueSample {
  TimeNs time = 0;
  uint32_t length = 0;  // from this time until the next sample
};

struct StreamQueue {
  int32_t rank = 0;       // Rank::rank
  uint32_t stream = 0;    // index into Session::streams
  uint32_t streamId = 0;  // the trace's number for it
  uint64_t ops = 0;       // operations with a known launch (the others cannot be placed)
  uint32_t maxLength = 0;
  double meanLength = 0;  // time-weighted over the part of the range the queue was non-empty
  TimeNs fullTime = 0;    // time at the capacity: the CPU blocked on the next launch
};

// Per stream with GPU operations, by rank then stream number; figures are clipped to `range`.
std::vector<StreamQueue> queueLengths(const Session& session, const LaunchIndex& launches,
                                      const AnalysisRange& range,
                                      uint32_t capacity = kCudaQueueCapacity);

// The queue length of one stream over time, a sample at each change (the whole session).
std::vector<QueueSample> queueSeries(const Session& session, const LaunchIndex& launches,
                                     uint32_t stream);
// The same for every stream at once, by index into Session::streams (empty where no operation
// has a known launch).
std::vector<std::vector<QueueSample>> queueSeriesByStream(const Session& session,
                                                          const LaunchIndex& launches);
// Several streams' series summed: the operations outstanding on any of them (a GPU's).
std::vector<QueueSample> sumQueueSeries(const std::vector<const std::vector<QueueSample>*>& series);

}  // namespace ts
