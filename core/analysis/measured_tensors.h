// Tensor lifetimes measured in a run: the allocator's own records (PyTorch's [memory] events with
// profile_memory=True, kept as a GPU memory counter whose samples carry each allocation's signed
// size and address) paired by address into allocations that begin and end, each tied to the ops
// that allocated and freed it and classed by what the trace allows. What "Tensors (measured)" and
// the simulated-against-measured memory comparison draw from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "session/session.h"

namespace ts {

// What a measured allocation was, as far as the ops around it tell: made under an optimizer step
// and kept past it (optimizer state), under AccumulateGrad (a weight's gradient), elsewhere in
// the backward pass (an activation's gradient), freed inside the op that made it (a temporary: a
// workspace), else an activation; Unknown outside any op.
enum class MeasuredClass : uint8_t {
  Unknown,
  Activation,
  ActivationGradient,
  WeightGradient,
  OptimizerState,
  Temporary
};
const char* toString(MeasuredClass c);  // "unknown", "activation", "activation gradient", ...

inline constexpr TimeNs kStillAllocated = INT64_MAX;  // not freed before the trace ends

struct MeasuredTensor {
  TimeNs allocated = 0;
  TimeNs freed = kStillAllocated;
  int64_t bytes = 0;
  uint64_t address = 0;
  MeasuredClass kind = MeasuredClass::Unknown;
  // The innermost op around the allocation and around the free (an Nvtx-kind track's event),
  // kNone outside any op.
  uint32_t allocTrack = kNone, allocEvent = kNone;
  uint32_t freeTrack = kNone, freeEvent = kNone;
  // The innermost nn.Module around the allocating op, on its thread (PyTorch's with_modules
  // records them as "nn.Module: <class>_<n>" Python ranges), kNone when none is recorded.
  uint32_t moduleTrack = kNone, moduleEvent = kNone;
};

struct MeasuredMemory {
  uint32_t device = kNone;
  std::string counter;     // the counter it was read from ("Memory allocated", ...)
  bool addresses = false;  // false: the records carry no addresses (older PyTorch): curve only
  std::vector<MeasuredTensor> tensors;  // by allocation time
  // Frees of memory allocated before the records begin (the profiler started mid-run).
  int64_t unmatchedFrees = 0, unmatchedFreeBytes = 0;
  int64_t peak = 0;  // the counter's highest value
};

// Whether the run's optimizer zeroes its gradients in place (zero_grad(set_to_none=False), the
// default before PyTorch 2.0: an aten::zero_ inside an Optimizer.zero_grad range), so that they
// stay allocated between iterations, before the trace begins too.
bool zeroGradKeepsGradients(const Session& session);

// One entry per GPU with an allocated-bytes counter (session/memory_counter.h), in device order.
// Per record a binary search in each op lane of the rank's threads: 100,000 allocations on two
// threads take about 60 ms (BENCHMARKS.md).
std::vector<MeasuredMemory> measureTensorLifetimes(const Session& session);

}  // namespace ts
