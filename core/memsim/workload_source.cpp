#include "memsim/workload_source.h"

#include "io/open_session.h"
#include "memsim/from_model.h"
#include "memsim/g10_workload.h"
#include "model/device_preset.h"
#include "model/measured_times.h"
#include "model/onnx_loader.h"
#include "model/training_step.h"

namespace ts::memsim {

Result<SimWorkload> loadWorkload(const WorkloadSource& in, MappingSummary* mapping) {
  if (!in.g10Dir.empty()) {
    auto g = loadG10Workload(in.g10Dir);
    if (!g) return Error{g.error()};
    return std::move(g->workload);
  }
  if (in.modelPath.empty()) return Error{"no workload: give a G10 directory or an ONNX model"};
  model::LoadOptions load;
  load.batch = in.batch;
  auto graph = model::loadOnnxModel(in.modelPath, load);
  if (!graph) return Error{graph.error()};
  model::StepOptions options;
  if (!in.device.empty()) {
    auto d = model::devicePreset(in.device);
    if (!d) return Error{"unknown device '" + in.device + "' (V100, A100-40GB, A100-80GB, H100, H200)"};
    options.device = *d;
  }
  if (in.optimizer == "adam") options.optimizer = model::Optimizer::Adam;
  else if (!in.optimizer.empty() && in.optimizer != "sgd") return Error{"the optimizer is sgd or adam"};
  model::TrainingStep step = model::expandTrainingStep(*graph, options);
  if (!in.sessionPath.empty()) {
    auto s = openSessionFile(in.sessionPath);
    if (!s) return Error{s.error()};
    model::MappingReport r = model::applyMeasuredTimes(*graph, model::measureLayerTimes(**s), step);
    if (r.method == "none") {
      return Error{in.sessionPath + ": no NVTX forward/<layer> range names a layer of the model, and its kernel count matches no order mapping"};
    }
    if (mapping) *mapping = {r.method, r.layersMapped, r.layers, r.unmapped, r.unknown};
  }
  return workloadFromModel(*graph, step);
}

}  // namespace ts::memsim
