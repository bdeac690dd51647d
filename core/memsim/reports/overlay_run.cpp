#include "memsim/reports/overlay_run.h"

#include <algorithm>

#include "memsim/formats/run_workload.h"
#include "session/session_summary.h"

namespace ts::memsim {

OverlayRun runOverlay(const OverlayRequest& request, const Progress& progress) {
  OverlayRun out;
  out.tiers = request.tiers;
  auto say = [&](const char* what) {
    if (progress.enter(what)) return true;
    out.status = Error::cancelled();
    return false;
  };
  // A model's step mapped onto the run, or the run itself (its own allocations, run_workload.h).
  const bool fromRun = request.source.isRun();
  if (!fromRun && !request.source.isModel()) {
    out.status = Error{"an overlay needs a model (ONNX) whose training step the run measured"};
    return out;
  }
  const WorkloadSource& source = request.source;
  if (!source.session) {
    out.status = Error{"an overlay needs the measured run, opened"};
    return out;
  }
  if (!say("mapping kernels")) return out;
  // GPUs with kernels, the busiest first: its errors are the run's, the others' are notes.
  const std::vector<DeviceKernelTime> busy = devicesByKernelTime(*source.session);
  if (busy.empty()) {
    out.status = Error{"the run has no GPU kernels to map onto the model"};
    return out;
  }
  // The model is read once; each GPU maps its own kernels onto its training step.
  Result<ModelStep> model = Error{"no model: the run itself"};
  if (!fromRun) {
    model = loadModelStep(source);
    if (!model) {
      out.status = model.failure();
      return out;
    }
  }
  for (const DeviceKernelTime& gpuTime : busy) {
    const uint32_t device = gpuTime.device;
    const bool first = out.gpus.empty() && out.status.ok();
    const std::string gpu = "GPU " + std::to_string(source.session->devices[device].ordinal);
    GpuRun g;
    g.device = device;
    model::MappingOptions mapping = source.mapping;
    mapping.device = device;
    auto workload = fromRun
                        ? workloadOfRun(*source.session, "the run", mapping, &g.mapping)
                        : workloadFromRun(*model, *source.session, "the run", mapping, &g.mapping);
    if (!workload) {
      if (first) {
        out.status = workload.failure();
        out.gpus.push_back(std::move(g));
        return out;
      }
      out.skipped.push_back(gpu + ": " + workload.error());
      continue;
    }
    g.workload = std::move(*workload);
    if (!say("planning and simulating")) return out;
    auto runs = runPolicies(g.workload, {request.policy}, request.tiers);
    std::string problem = !runs ? runs.error()
                          : !runs->front().result.feasible
                              ? std::string(toString(request.policy)) + " cannot run " +
                                    g.workload.name + ": " + runs->front().result.problem
                              : std::string();
    if (!problem.empty()) {
      if (first) {
        out.status = Error{problem};
        out.gpus.push_back(std::move(g));
        return out;
      }
      out.skipped.push_back(gpu + ": " + problem);
      continue;
    }
    g.run = std::move(runs->front());
    g.memory = memoryVerdict(*source.session, g.workload, g.run.result, g.mapping.kernels,
                             request.tiers.gpuBytes);
    out.gpus.push_back(std::move(g));
  }
  if (!say("drawing")) return out;
  std::vector<OverlayPart> parts;
  for (const GpuRun& g : out.gpus)
    parts.push_back({&g.mapping.kernels, &g.workload, &g.run.result});
  auto overlay = buildOverlay(source.session, parts, request.tiers, request.options);
  if (!overlay) {
    out.status = overlay.failure();
    return out;
  }
  out.overlay = std::move(*overlay);
  return out;
}

}  // namespace ts::memsim
