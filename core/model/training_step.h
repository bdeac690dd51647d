// The training-step expansion the memory-tier simulator runs: per op a forward kernel, backward
// kernels (gradient of the op's inputs; gradient of its weights when it has some), and an
// optimizer update per trainable weight, each with the tensors it reads and writes and their
// sizes at the model's batch size, and a time from a roofline over a device preset.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/device_preset.h"
#include "model/layer_group.h"
#include "model/model_graph.h"

namespace ts::model {

enum class TensorRole {
  Input,
  Activation,
  Weight,
  WeightGradient,
  ActivationGradient,
  OptimizerState,
  Workspace
};
enum class KernelPhase { Forward, BackwardInput, BackwardWeight, Update };
enum class Optimizer { SgdMomentum, Adam };

const char* toString(TensorRole r);
const char* toString(KernelPhase p);
// The layer-group phase a step kernel belongs to (both backward kernels are "backward").
inline Phase phaseOf(KernelPhase p) {
  return p == KernelPhase::Forward  ? Phase::Forward
         : p == KernelPhase::Update ? Phase::Update
                                    : Phase::Backward;
}
const char* toString(Optimizer o);
// "sgd" or "adam", as the CLI's --optimizer takes them; nullopt for anything else.
std::optional<Optimizer> optimizerFromName(std::string_view name);

struct StepTensor {
  std::string name;
  TensorRole role = TensorRole::Activation;
  int64_t bytes = 0;
  int source = -1;  // the graph tensor it stands for (its gradient or optimizer state too)
};

struct StepKernel {
  std::string name;
  KernelPhase phase = KernelPhase::Forward;
  int op = -1;               // graph op
  std::vector<int> inputs;   // step tensors read
  std::vector<int> outputs;  // step tensors written
  double flops = 0;
  double bytes = 0;  // memory traffic: every tensor read and written once
  int64_t durationNs = 0;
};

struct TrainingStep {
  std::string model;
  int64_t batch = 1;
  Optimizer optimizer = Optimizer::SgdMomentum;
  std::string device;
  std::vector<StepTensor> tensors;
  std::vector<StepKernel> kernels;  // execution order: forward, backward (reverse), updates

  int64_t bytes(TensorRole role) const;
  int64_t totalNs() const;
};

struct StepOptions {
  Optimizer optimizer = Optimizer::SgdMomentum;
  DevicePreset device = devicePresets()[1];  // A100-40GB
  bool tensorCores = false;
};

TrainingStep expandTrainingStep(const ModelGraph& graph, const StepOptions& options = {});

}  // namespace ts::model
