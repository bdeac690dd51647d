// Where a simulation's workload comes from: a G10 workload directory, or an ONNX model's training
// step (batch, device roofline or a measured session's times, optimizer). One loader for the CLI
// and the GUI's what-if tab, which reloads when the batch changes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "memsim/engine/workload.h"
#include "model/kernel_mapping.h"
#include "session/session.h"
#include "util/result.h"

namespace ts::memsim {

struct WorkloadSource {
  std::string g10Dir;     // either a G10 workload directory,
  std::string g10Inputs;  // or a folder of G10's inputs (g10_inputs.h) with its model name in
  std::string g10Model;   //   this and the batch below,
  std::string modelPath;  // or an ONNX model, with:
  int64_t batch = 1;
  std::string device;  // roofline preset (empty: A100-40GB)
  model::Optimizer optimizer = model::Optimizer::SgdMomentum;
  std::string sessionPath;        // measured kernel times (see model/kernel_mapping.h); with
                                  // no model or G10 source, the run itself (run_workload.h)
  SessionPtr session;             // or an open session (wins over sessionPath)
  model::MappingOptions mapping;  // the iteration and the user's corrections
  bool isModel() const { return !modelPath.empty(); }
  bool isRun() const {
    return modelPath.empty() && g10Dir.empty() && g10Inputs.empty() &&
           (session || !sessionPath.empty());
  }
  bool isG10Inputs() const { return !g10Inputs.empty(); }
};

// How a measured run's times were mapped onto the model's layers, for the user to check.
struct MappingSummary {
  bool mapped = false;           // a measured run was mapped (false: none given, the roofline)
  model::MappingReport timed;    // which of the model's layers got measured times
  model::KernelMapping kernels;  // which measured kernel is which layer, the iteration
  // A run planned without a model (run_workload.h): what its tensors are, in a sentence.
  std::string runTensors;
};

// `mapping` is filled whenever a run was mapped, also when nothing in it matched (the error).
Result<SimWorkload> loadWorkload(const WorkloadSource& source, MappingSummary* mapping = nullptr);

// The same in two steps, for callers that map one model onto several GPUs of a run (the overlay):
// what does not depend on the run (the model read once, its training step at the source's batch,
// device and optimizer), then its workload with one GPU's measured times.
struct ModelStep {
  std::shared_ptr<const model::ModelGraph> graph;
  model::TrainingStep step;
};
Result<ModelStep> loadModelStep(const WorkloadSource& source);
// `runName` names the run in errors; `options` say which GPU and iteration.
Result<SimWorkload> workloadFromRun(const ModelStep& model, const Session& run,
                                    const std::string& runName,
                                    const model::MappingOptions& options,
                                    MappingSummary* mapping = nullptr);

}  // namespace ts::memsim
