// What heterogeneous training needs to know of a model on each device type, estimated without a
// run: its training step expanded at the job's batch (model/training_step.h) and timed on each
// device preset's roofline — so each device's throughput (samples per second), each layer's time
// on each device and the activation it hands on, the gradients to all-reduce, and the most
// samples each device's memory holds (the step's peak of live tensors, which grows linearly with
// the batch: measured at two batches).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "advisor/hetero.h"
#include "memsim/engine/workload.h"
#include "model/model_graph.h"
#include "model/training_step.h"
#include "util/result.h"

namespace ts::advisor {

// The peak of a model's training step at its batch: the memory model's (memsim/engine/
// step_memory.h), the figure the simulation and the overlay show for the same model and batch.
int64_t stepPeakBytes(const model::ModelGraph& graph, const model::StepOptions& options = {});

struct ModelEstimate {
  std::vector<HeteroDevice> devices;  // speeds and memory limits filled in
  std::vector<int64_t> deviceMemory;  // bytes, per device
  std::vector<PipelineLayer> layers;  // with times per device
  int64_t gradientBytes = 0;          // the weight gradients (fp32), all-reduced per step
  int64_t peakAtBatch = 0;            // the step's peak memory at the job's batch
  int64_t bytesPerSample = 0;         // how the peak grows per sample
  std::vector<std::string> assumptions;
  std::string allReduceAssumption;  // data parallel only: the gradients' all-reduce
};

// `atBatch` is the model loaded at the job's global batch, `atOne` and `atTwo` at batches 1 and 2
// (for the peak's growth). Device types must be presets (model/device_preset.h): an unknown one
// is an error that lists them.
Result<ModelEstimate> estimateFromModel(const model::ModelGraph& atBatch,
                                        const model::ModelGraph& atOne,
                                        const model::ModelGraph& atTwo,
                                        const std::vector<std::string>& deviceTypes,
                                        model::Optimizer optimizer);

}  // namespace ts::advisor
