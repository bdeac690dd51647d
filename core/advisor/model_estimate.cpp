#include "advisor/model_estimate.h"

#include <algorithm>
#include <map>

#include "memsim/engine/step_memory.h"
#include "memsim/formats/from_model.h"
#include "model/astra_workload.h"
#include "util/format.h"
#include "util/saturate.h"

namespace ts::advisor {

int64_t stepPeakBytes(const model::ModelGraph& graph, const model::StepOptions& options) {
  return memsim::stepMemory(memsim::workloadFromStep(model::expandTrainingStep(graph, options)))
      .peak;
}

Result<ModelEstimate> estimateFromModel(const model::ModelGraph& atBatch,
                                        const model::ModelGraph& atOne,
                                        const model::ModelGraph& atTwo,
                                        const std::vector<std::string>& deviceTypes,
                                        model::Optimizer optimizer) {
  if (deviceTypes.empty()) return Error{"no devices given"};
  std::map<std::string, model::DevicePreset> presets;
  for (const std::string& t : deviceTypes) {
    auto preset = model::devicePreset(t);
    if (!preset) {
      std::string known;
      for (const model::DevicePreset& p : model::devicePresets())
        known += (known.empty() ? "" : ", ") + p.name;
      return Error{"unknown device '" + t + "' (device presets: " + known +
                   "; or give every device's throughput)"};
    }
    presets.emplace(t, *preset);
  }
  ModelEstimate e;
  const int64_t batch = std::max<int64_t>(1, atBatch.batch);
  // The peak's growth with the batch does not depend on the device (the same tensors).
  auto peakOf = [&](const model::ModelGraph& g) {
    model::StepOptions o;
    o.optimizer = optimizer;
    return stepPeakBytes(g, o);
  };
  const int64_t peakOne = peakOf(atOne), peakTwo = peakOf(atTwo);
  e.bytesPerSample = std::max<int64_t>(1, peakTwo - peakOne);
  const int64_t fixedBytes = std::max<int64_t>(0, peakOne - e.bytesPerSample);
  e.peakAtBatch = peakOf(atBatch);

  std::map<std::string, std::vector<model::Layer>> layersOn;
  for (const auto& [type, preset] : presets) {
    model::StepOptions o;
    o.optimizer = optimizer;
    o.device = preset;
    const model::TrainingStep step = model::expandTrainingStep(atBatch, o);
    if (e.gradientBytes == 0) e.gradientBytes = step.bytes(model::TensorRole::WeightGradient);
    layersOn[type] = model::modelLayers(atBatch, step);
  }
  for (const std::string& t : deviceTypes) {
    const model::DevicePreset& p = presets.at(t);
    // Forward and backward grow with the batch; the update does not.
    int64_t stepNs = 0, updateNs = 0;
    for (const model::Layer& l : layersOn.at(t)) {
      stepNs += l.forwardNs + l.inputGradNs + l.weightGradNs;
      updateNs += l.updateNs;
    }
    HeteroDevice d;
    d.type = p.name;
    d.source = SpeedSource::Estimated;
    d.samplesPerSecond =
        stepNs > 0 ? static_cast<double>(batch) * 1e9 / static_cast<double>(stepNs) : 0;
    d.updateNs = updateNs;
    const auto memory = static_cast<int64_t>(p.memoryBytes);
    d.maxBatch = memory > fixedBytes ? (memory - fixedBytes) / e.bytesPerSample : 0;
    e.devices.push_back(d);
    e.deviceMemory.push_back(memory);
  }
  // Layers, each with its time on every device.
  const int states = optimizer == model::Optimizer::Adam ? 2 : 1;
  const std::vector<model::Layer>& first = layersOn.at(deviceTypes.front());
  for (size_t l = 0; l < first.size(); ++l) {
    PipelineLayer layer;
    layer.name = first[l].name;
    for (const std::string& t : deviceTypes) {
      const model::Layer& on = layersOn.at(t)[l];
      layer.nsOnDevice.push_back(on.forwardNs + on.inputGradNs + on.weightGradNs + on.updateNs);
      layer.forwardNs.push_back(on.forwardNs);
      layer.backwardNs.push_back(on.inputGradNs + on.weightGradNs);
      layer.updateNs.push_back(on.updateNs);
    }
    layer.activationBytes = first[l].outputElements * 4;
    // Backward needs every activation the layer's ops produced, not only the one it hands on
    // (a block's first convolution output can be larger than its last).
    int64_t kept = 0;
    for (int op = std::max(0, first[l].firstOp);
         op <= first[l].lastOp && op < static_cast<int>(atBatch.ops.size()); ++op) {
      for (int t : atBatch.ops[static_cast<size_t>(op)].outputs) {
        if (t < 0 || static_cast<size_t>(t) >= atBatch.tensors.size()) continue;
        const int64_t n = atBatch.tensors[static_cast<size_t>(t)].elements();
        if (n > 0) kept = saturatingAdd(kept, saturatingMul(n, int64_t{4}));
      }
    }
    layer.memoryBytes = saturatingAdd(first[l].parameters * 4 * (2 + states),
                                      std::max(kept, layer.activationBytes));
    e.layers.push_back(std::move(layer));
  }
  e.assumptions = {
      "throughput estimated: the model's training step at batch " + std::to_string(batch) +
          " on each device preset's roofline (FP32 rate and memory bandwidth, every tensor read "
          "and written once); forward and backward taken as linear in the batch, the optimizer's "
          "update as independent of it",
      "memory: the step's peak of live tensors, " + formatBytes(static_cast<uint64_t>(fixedBytes)) +
          " plus " + formatBytes(static_cast<uint64_t>(e.bytesPerSample)) +
          " per sample (measured at batches 1 and 2), against each preset's memory"};
  e.allReduceAssumption = "gradients all-reduced once per step (" +
                          formatBytes(static_cast<uint64_t>(e.gradientBytes)) + ", ring)";
  return e;
}

}  // namespace ts::advisor
