#include "memsim/overlay_run.h"

#include "io/open_session.h"

namespace ts::memsim {

OverlayRun runOverlay(const OverlayRequest& request, const std::function<void(const char*)>& stage, const std::atomic<bool>* cancel) {
  OverlayRun out;
  out.tiers = request.tiers;
  auto say = [&](const char* what) {
    if (stage) stage(what);
    if (cancel && cancel->load()) out.cancelled = true;
    return !out.cancelled;
  };
  if (!request.source.isModel()) {
    out.error = "an overlay needs a model (ONNX) whose training step the run measured";
    return out;
  }
  WorkloadSource source = request.source;
  if (!source.session) {
    if (source.sessionPath.empty()) {
      out.error = "an overlay needs the measured run";
      return out;
    }
    auto s = openSessionFile(source.sessionPath);
    if (!s) {
      out.error = s.error();
      return out;
    }
    source.session = *s;
  }
  if (!say("mapping kernels")) return out;
  auto workload = loadWorkload(source, &out.mapping);
  if (!workload) {
    out.error = workload.error();
    return out;
  }
  out.workload = std::move(*workload);
  if (!say("planning and simulating")) return out;
  auto runs = runPolicies(out.workload, {request.policy}, request.tiers);
  if (!runs) {
    out.error = runs.error();
    return out;
  }
  out.run = std::move(runs->front());
  if (!out.run.result.feasible) {
    out.error = std::string(toString(request.policy)) + " cannot run " + out.workload.name + ": " + out.run.result.problem;
    return out;
  }
  if (!say("drawing")) return out;
  auto overlay = buildOverlay(source.session, out.mapping.kernels, out.workload, out.run.result, request.tiers, request.options);
  if (!overlay) {
    out.error = overlay.error();
    return out;
  }
  out.overlay = std::move(*overlay);
  return out;
}

}  // namespace ts::memsim
