// What the memory-tier simulator runs: kernels in execution order, each with its duration and the
// tensors it reads and writes, and tensors with their sizes. Built from a G10 workload directory
// or from a model's training step; the analysis and the planners see only this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "session/types.h"

namespace ts::memsim {

// What a tensor is, coarsely: the model's roles (model::TensorRole) grouped as the timeline's
// tensor lanes filter them (both gradients are "gradient"; inputs are activations). G10
// workloads know only weights; their other tensors are Other.
enum class TensorClass : uint8_t { Other, Weight, Activation, Gradient, OptimizerState, Workspace };
// "other", "weight", "activation", "gradient", "optimizer state", "workspace"
const char* toString(TensorClass r);
std::vector<TensorClass> allTensorClasses();

struct SimTensor {
  std::string name;
  int64_t bytes = 0;
  bool global = false;  // lives across iterations (weights, optimizer state): its idle time wraps
  TensorClass kind = TensorClass::Other;
  std::string shape = {};  // "[32, 64, 55, 55]" when known
  // Allocated from its first use to the end of the iteration rather than to its last use: weight
  // gradients, which zero_grad(set_to_none=True) frees as the next iteration begins.
  bool untilIterationEnd = false;
};

struct SimKernel {
  std::string name;
  TimeNs duration = 0;      // without any data movement (the "ideal")
  std::vector<int> inputs;  // tensor indices
  std::vector<int> outputs;
  int64_t workspaceBytes = 0;  // scratch for the kernel's life
  std::string group;  // "forward/<layer>", "backward/<layer>", "update/<layer>"; empty if unknown
};

struct SimWorkload {
  std::string name;
  std::vector<SimTensor> tensors;
  std::vector<SimKernel> kernels;
  // The kernel that computes the loss (forward kernels come before it); -1 when unknown.
  // FlashNeuron offloads the forward activations that are still needed after it.
  int lossKernel = -1;
  // Which of G10's models, at which batch, when it is one (G10 workloads, G10's inputs): G10's
  // code treats some configurations specially (g10_quirks.h). Empty for other workloads.
  std::string g10Model;
  int64_t g10Batch = 0;
  // G10 workloads: each kernel's time in G10's cycles at 1.2 GHz (durations are these rounded to
  // ns), so that G10's own planner computes its times exactly as G10 does. Empty otherwise.
  std::vector<int64_t> g10Cycles;
  // Read from G10's traces only (g10_inputs.h), empty otherwise: each kernel's time with its
  // outputs demand-faulted and with every operand demand-faulted, in the same cycles. G10 charges
  // a kernel that faults by them (memsim/engine/fault_time.h).
  std::vector<int64_t> g10InputPfCycles, g10PfCycles;

  // The model's tensors whose size it did not give (shape inference could not follow): counted as
  // 0 bytes, so every memory figure of the workload is a lower bound.
  size_t unsizedTensors = 0;

  TimeNs idealTime() const;  // sum of kernel durations: an iteration with infinite GPU memory
  // Read from G10's own files (its traces' cycles): planned and simulated as G10's code does.
  bool fromG10() const { return !g10Cycles.empty(); }
};

}  // namespace ts::memsim
