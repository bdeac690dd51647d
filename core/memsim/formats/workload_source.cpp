#include "memsim/formats/workload_source.h"

#include "io/open_session.h"
#include "memsim/formats/from_model.h"
#include "memsim/formats/g10_inputs.h"
#include "memsim/formats/g10_workload.h"
#include "memsim/formats/run_workload.h"
#include "model/device_preset.h"
#include "model/measured_times.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "model/training_step.h"

namespace ts::memsim {

Result<ModelStep> loadModelStep(const WorkloadSource& in) {
  if (in.modelPath.empty()) return Error{"no workload: give a G10 directory or an ONNX model"};
  model::LoadOptions load;
  load.batch = in.batch;
  auto graph = model::loadModelOrZoo(in.modelPath, load);  // a file, or a built-in model's name
  if (!graph) return graph.failure();
  model::StepOptions options;
  if (!in.device.empty()) {
    auto d = model::devicePreset(in.device);
    if (!d)
      return Error{"unknown device '" + in.device + "' (V100, A100-40GB, A100-80GB, H100, H200)"};
    options.device = *d;
  }
  options.optimizer = in.optimizer;
  ModelStep m;
  m.step = model::expandTrainingStep(*graph, options);
  m.graph = std::make_shared<const model::ModelGraph>(std::move(*graph));
  return m;
}

Result<SimWorkload> workloadFromRun(const ModelStep& m, const Session& run,
                                    const std::string& runName,
                                    const model::MappingOptions& options, MappingSummary* mapping) {
  model::TrainingStep step = m.step;  // its kernel times become the run's
  model::KernelMapping kernels = model::mapKernels(run, *m.graph, step, options);
  model::MappingReport r = model::applyMeasuredTimes(*m.graph, kernels.times, step);
  const bool none =
      kernels.method == model::MappingMethod::None || r.method == model::MappingMethod::None;
  const size_t count = kernels.kernels.size();
  // Filled on failure too: the user corrects the mapping from the kernels it lists.
  if (mapping) *mapping = {true, std::move(r), std::move(kernels), {}};
  if (none) {
    return Error{runName +
                 ": no kernel maps to a layer of the model (no NVTX forward/<layer> or aten:: op "
                 "ranges, and the " +
                 std::to_string(count) + " kernels of its last iteration match no order mapping)"};
  }
  return workloadFromModel(*m.graph, step);
}

Result<SimWorkload> loadWorkload(const WorkloadSource& in, MappingSummary* mapping) {
  if (in.isG10Inputs()) {
    auto g = loadG10Inputs(in.g10Inputs, in.g10Model, in.batch);
    if (!g) return g.failure();
    return std::move(g->workload);
  }
  if (!in.g10Dir.empty()) {
    auto g = loadG10Workload(in.g10Dir);
    if (!g) return g.failure();
    return std::move(g->workload);
  }
  SessionPtr session = in.session;
  if (!session && !in.sessionPath.empty()) {
    auto s = openSessionFile(in.sessionPath);
    if (!s) return s.failure();
    session = *s;
  }
  const std::string runName = in.sessionPath.empty() ? "the run" : in.sessionPath;
  if (in.isRun()) {
    RunWorkloadNotes notes;
    auto w = workloadOfRun(*session, runName, in.mapping, mapping, &notes);
    if (w && mapping) mapping->runTensors = notes.sentence();
    return w;
  }
  auto m = loadModelStep(in);
  if (!m) return m.failure();
  if (!session) return workloadFromModel(*m->graph, m->step);
  return workloadFromRun(*m, *session, runName, in.mapping, mapping);
}

}  // namespace ts::memsim
