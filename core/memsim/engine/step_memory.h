// The one memory model: when each tensor of an iteration holds memory, and so the bytes allocated
// at every kernel, their peak and the peak's make-up by kind. A tensor is allocated from the kernel
// that first uses it (the one that writes it) to the end of its last use, as a framework's
// allocator frees it; weights, optimizer state and the batch for the whole iteration; weight
// gradients until the iteration ends (zero_grad(set_to_none=True) frees them as the next begins);
// a kernel's workspace while it runs. Every figure of a model's step memory — the overlay's "GPU
// memory (simulated)", the Simulation tab, Advise, sweeps, `model` and `simulate --json` — comes
// from here, so one model and batch reads one figure everywhere.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "memsim/engine/simulator.h"
#include "memsim/engine/workload.h"

namespace ts::memsim {

// When tensor `tensor` holds memory: from the start of kernel `from` to the end of kernel `to - 1`
// (kernel indices of one iteration). Global tensors hold it throughout (from 0 to n). Unused
// tensors never (from == to == -1).
struct TensorLifetime {
  int from = -1;
  int to = -1;
  bool global = false;
  bool allocated() const { return from >= 0 && to > from; }
};
std::vector<TensorLifetime> tensorLifetimes(const SimWorkload& workload);

inline constexpr int kTensorClassCount = static_cast<int>(TensorClass::Workspace) + 1;

struct StepMemory {
  std::vector<int64_t> live;   // per kernel: bytes allocated while it runs (its workspace included)
  std::vector<int64_t> after;  // per kernel: bytes still allocated once it has ended
  int64_t peak = 0;
  int peakKernel = -1;
  // At the peak, by TensorClass (indexed by its value; kernels' own workspaceBytes count as
  // Workspace).
  std::array<int64_t, kTensorClassCount> peakByClass{};
  int64_t atPeak(TensorClass c) const { return peakByClass[static_cast<size_t>(c)]; }
};
StepMemory stepMemory(const SimWorkload& workload);

// A lifetime on the simulated clock of one iteration (`r` simulates `w`): from when kernel `from`
// is issued (before any stall) to the end of kernel `to - 1`; global tensors the whole iteration.
struct TimeSpan {
  TimeNs start = 0, end = 0;
};
TimeSpan lifetimeSpan(const TensorLifetime& life, const SimResult& r);

// "GPU memory (simulated)": the bytes allocated and on the GPU at each moment of the simulated
// iteration — each tensor over its lifetime, less the times the policy keeps it in host memory or
// on the SSD (from the end of the copy that took it there). A step function, one sample at each
// change (times from the iteration's start).
// Pages a policy keeps resident after a free are not in it (they are SimResult::usage's).
std::vector<TierUsage> allocatedOnGpu(const SimWorkload& w, const SimResult& r);

// The most allocated on the GPU in the simulated iteration (allocatedOnGpu's highest value).
int64_t allocatedPeak(const SimWorkload& w, const SimResult& r);
// Whether a policy keeps more GPU pages than are allocated (freed tensors' pages it has not
// evicted yet) by more than 1 % at the peak: then reports draw its resident pages as well.
bool keepsFreedPages(const SimWorkload& w, const SimResult& r);

// What the figures rest on, for reports: how lifetimes are decided, for a model's training step.
std::vector<std::string> stepMemoryAssumptions();

}  // namespace ts::memsim
