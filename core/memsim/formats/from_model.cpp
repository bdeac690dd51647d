#include "memsim/formats/from_model.h"

#include "model/astra_workload.h"

namespace ts::memsim {

SimWorkload workloadFromStep(const model::TrainingStep& step) {
  SimWorkload w;
  w.name = step.model + " (batch " + std::to_string(step.batch) + ")";
  w.tensors.reserve(step.tensors.size());
  for (const model::StepTensor& t : step.tensors) {
    // The batch, like the weights, is allocated before the step begins and kept throughout.
    bool global = t.role == model::TensorRole::Weight ||
                  t.role == model::TensorRole::OptimizerState || t.role == model::TensorRole::Input;
    w.tensors.push_back({t.name, t.bytes, global});
    w.tensors.back().untilIterationEnd = t.role == model::TensorRole::WeightGradient;
    switch (t.role) {
      case model::TensorRole::Weight:
        w.tensors.back().kind = TensorClass::Weight;
        break;
      case model::TensorRole::WeightGradient:
      case model::TensorRole::ActivationGradient:
        w.tensors.back().kind = TensorClass::Gradient;
        break;
      case model::TensorRole::OptimizerState:
        w.tensors.back().kind = TensorClass::OptimizerState;
        break;
      case model::TensorRole::Input:
      case model::TensorRole::Activation:
        w.tensors.back().kind = TensorClass::Activation;
        break;
      case model::TensorRole::Workspace:
        w.tensors.back().kind = TensorClass::Workspace;
        break;
    }
  }
  w.kernels.reserve(step.kernels.size());
  for (const model::StepKernel& k : step.kernels) {
    if (w.lossKernel < 0 && k.phase != model::KernelPhase::Forward)
      w.lossKernel = static_cast<int>(w.kernels.size());
    w.kernels.push_back({k.name, k.durationNs, k.inputs, k.outputs, 0, {}});
  }
  return w;
}

SimWorkload workloadFromModel(const model::ModelGraph& graph, const model::TrainingStep& step) {
  SimWorkload w = workloadFromStep(step);
  for (const model::Tensor& t : graph.tensors) w.unsizedTensors += t.bytes() < 0;
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    int source = step.tensors[t].source;
    if (source < 0 || source >= static_cast<int>(graph.tensors.size()) ||
        !graph.tensors[static_cast<size_t>(source)].shapeKnown)
      continue;
    std::string shape = "[";
    for (int64_t d : graph.tensors[static_cast<size_t>(source)].shape)
      shape += (shape.size() > 1 ? ", " : "") + std::to_string(d);
    w.tensors[t].shape = shape + "]";
  }
  std::vector<std::string> layerOfOp(graph.ops.size());
  for (const model::Layer& layer : model::modelLayers(graph, step)) {
    for (int op = layer.firstOp; op <= layer.lastOp && op < static_cast<int>(layerOfOp.size());
         ++op)
      layerOfOp[static_cast<size_t>(op)] = layer.name;
  }
  for (size_t k = 0; k < w.kernels.size(); ++k) {
    const model::StepKernel& sk = step.kernels[k];
    if (sk.op < 0 || sk.op >= static_cast<int>(layerOfOp.size()) ||
        layerOfOp[static_cast<size_t>(sk.op)].empty())
      continue;
    w.kernels[k].group =
        model::LayerGroup{model::phaseOf(sk.phase), layerOfOp[static_cast<size_t>(sk.op)]}.text();
  }
  return w;
}

}  // namespace ts::memsim
