#include "memsim/from_model.h"

namespace ts::memsim {

SimWorkload workloadFromStep(const model::TrainingStep& step) {
  SimWorkload w;
  w.name = step.model + " (batch " + std::to_string(step.batch) + ")";
  w.tensors.reserve(step.tensors.size());
  for (const model::StepTensor& t : step.tensors) {
    bool global = t.role == model::TensorRole::Weight || t.role == model::TensorRole::OptimizerState;
    w.tensors.push_back({t.name, t.bytes, global});
  }
  w.kernels.reserve(step.kernels.size());
  for (const model::StepKernel& k : step.kernels) {
    if (w.lossKernel < 0 && k.phase != model::KernelPhase::Forward) w.lossKernel = static_cast<int>(w.kernels.size());
    w.kernels.push_back({k.name, k.durationNs, k.inputs, k.outputs, 0});
  }
  return w;
}

}  // namespace ts::memsim
