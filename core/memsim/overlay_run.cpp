#include "memsim/overlay_run.h"

#include <algorithm>

#include "io/open_session.h"

namespace ts::memsim {

OverlayRun runOverlay(const OverlayRequest& request, const std::function<void(const char*)>& stage,
                      const std::atomic<bool>* cancel) {
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
  // GPUs with kernels, the busiest first: its errors are the run's, the others' are notes.
  std::vector<std::pair<TimeNs, uint32_t>> busy;
  for (const Track& t : source.session->tracks) {
    if (t.kind != EventKind::Kernel || t.device == kNone) continue;
    auto it =
        std::find_if(busy.begin(), busy.end(), [&](const auto& b) { return b.second == t.device; });
    if (it == busy.end()) it = busy.insert(busy.end(), {0, t.device});
    for (uint32_t e = 0; e < t.size(); ++e) it->first += t.hot.end[e] - t.hot.start[e];
  }
  std::sort(busy.begin(), busy.end(), [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  if (busy.empty()) {
    out.error = "the run has no GPU kernels to map onto the model";
    return out;
  }
  for (const auto& [ns, device] : busy) {
    const bool first = out.gpus.empty() && out.error.empty();
    const std::string gpu = "GPU " + std::to_string(source.session->devices[device].ordinal);
    GpuRun g;
    g.device = device;
    source.mapping.device = device;
    auto workload = loadWorkload(source, &g.mapping);
    if (!workload) {
      if (first) {
        out.error = workload.error();
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
        out.error = problem;
        out.gpus.push_back(std::move(g));
        return out;
      }
      out.skipped.push_back(gpu + ": " + problem);
      continue;
    }
    g.run = std::move(runs->front());
    out.gpus.push_back(std::move(g));
  }
  if (!say("drawing")) return out;
  std::vector<OverlayPart> parts;
  for (const GpuRun& g : out.gpus)
    parts.push_back({&g.mapping.kernels, &g.workload, &g.run.result});
  auto overlay = buildOverlay(source.session, parts, request.tiers, request.options);
  if (!overlay) {
    out.error = overlay.error();
    return out;
  }
  out.overlay = std::move(*overlay);
  return out;
}

}  // namespace ts::memsim
