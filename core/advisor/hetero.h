// Heterogeneous training: one job split across GPUs of different generations, as the text our
// product grew from puts it (with a V100 twice as fast as a K80: batch N on the K80 and 2N on the
// V100 for data parallelism; 1/3 of the layers on the K80 and 2/3 on the V100 for model
// parallelism) — and, as it says itself, simplified: a device's time is linear in its batch, and
// its layers' times add up. Every figure says where it came from (given, or estimated from the
// model on the device's roofline) and what it assumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace ts::advisor {

enum class SpeedSource : uint8_t { Given, Estimated, Measured };
const char* toString(SpeedSource source);  // "given", "estimated", "measured"

// One GPU of the job (a device type given with a count becomes that many).
struct HeteroDevice {
  std::string type;             // "V100", "K80", ...
  double samplesPerSecond = 0;  // its training throughput (any common unit when given)
  SpeedSource source = SpeedSource::Given;
  // The largest batch that fits its memory (the model's peak at that batch); none: not known.
  std::optional<int64_t> maxBatch;
  // The optimizer's update, which does not grow with the batch (0: not known, or in the
  // throughput): after the all-reduce.
  int64_t updateNs = 0;
};

// What a step's gradients cost to all-reduce (ring: 2(n−1)/n of the bytes over the slowest link,
// 2(n−1) latencies).
struct Interconnect {
  std::string name = "PCIe 4.0 x16";
  double bytesPerSecond = 25e9;
  double latencyNs = 10'000;
};
int64_t ringAllReduceNs(int64_t bytes, int devices, const Interconnect& link);

// ---- Data parallel -------------------------------------------------------------------------

struct DataSplit {
  std::vector<int64_t> batch;      // per device, summing to the global batch
  std::vector<int64_t> computeNs;  // per device: its share's forward and backward time
  int64_t allReduceNs = 0;
  int64_t updateNs = 0;  // the slowest device's optimizer update
  // The slowest device's forward and backward, the all-reduce (the others wait for it), then
  // the slowest update.
  int64_t stepNs = 0;
};

struct DataParallelPlan {
  int64_t globalBatch = 0;
  DataSplit balanced;   // shares in proportion to throughput, capped by memory
  DataSplit even;       // the same batch on every device (what a homogeneous job does)
  double speedup = 1;   // even.stepNs / balanced.stepNs
  bool capped = false;  // some device's share was cut to what fits its memory
};

// Shares b_i ∝ samplesPerSecond_i, integers summing to `globalBatch` (largest remainders),
// capped by each device's maxBatch with the excess given to the others in proportion. Errors:
// no devices, a batch smaller than the device count, a device without a positive speed, or a
// batch that fits no split of their memories.
Result<DataParallelPlan> planDataParallel(const std::vector<HeteroDevice>& devices,
                                          int64_t globalBatch, int64_t gradientBytes,
                                          const Interconnect& link);

// ---- Pipeline (model) parallel --------------------------------------------------------------

// A layer's cost on each device type (ns for the whole batch) and what it hands to the next layer
// (bytes of its output activation; the same again flows back as its gradient).
struct PipelineLayer {
  std::string name;
  std::vector<int64_t> nsOnDevice;  // indexed like the devices: the three phases together
  // The same by phase when the model says (else empty): forward, backward (input and weight
  // gradients), update.
  std::vector<int64_t> forwardNs = {}, backwardNs = {}, updateNs = {};
  int64_t activationBytes = 0;
  int64_t memoryBytes = 0;  // its weights, gradients, optimizer state and activations
};

struct PipelineStage {
  size_t device = 0;
  size_t firstLayer = 0, endLayer = 0;  // [first, end)
  int64_t computeNs = 0;
  int64_t transferNs = 0;  // its input activation in and its gradient back out, over the link
  int64_t memoryBytes = 0;
  int64_t stageNs() const { return computeNs + transferNs; }
};

struct PipelineSplit {
  std::vector<PipelineStage> stages;  // one per device, in the devices' order
  int64_t stepNs = 0;                 // the slowest stage (the pipeline's steady-state step)
};

struct PipelinePlan {
  PipelineSplit balanced;  // contiguous layer ranges minimising the slowest stage
  PipelineSplit even;      // the same number of layers on every device
  double speedup = 1;
};

// What a pipeline's prediction rests on, said with it.
inline constexpr const char* kPipelineAssumption =
    "pipeline: a stage's memory is its layers' weights, gradients and optimizer state plus every "
    "activation their ops produce, kept for the backward pass (fp32); the steady-state step is "
    "the slowest stage";

// The recommendations in words, for the CLI and the GUI alike.
std::string dataParallelAdvice(const DataParallelPlan& plan);
std::string pipelineAdvice(const PipelinePlan& plan);

// Contiguous layer ranges, one per device in order, each at least one layer, minimising the
// slowest stage (dynamic programming over the split points); stages whose layers do not fit the
// device's memory (memoryBytes given per device, 0: unlimited) are not chosen. Errors: fewer
// layers than devices, nothing fits.
Result<PipelinePlan> planPipeline(const std::vector<PipelineLayer>& layers,
                                  const std::vector<HeteroDevice>& devices,
                                  const std::vector<int64_t>& deviceMemory,
                                  const Interconnect& link);

}  // namespace ts::advisor
