#include "memsim/reports/layer_compare.h"

#include <map>

#include "memsim/formats/sim_session.h"
#include "model/measured_times.h"

namespace ts::memsim {

Result<StatsTable> compareLayers(const Session& measured, const Session& simulated,
                                 const std::string& policy) {
  // The simulated policy's rank.
  uint32_t rank = kNone;
  for (uint32_t r = 0; r < simulated.ranks.size(); ++r) {
    auto ran = simulatedPolicy(simulated, r);
    if (ran && (policy.empty() || *ran == policy)) {
      rank = r;
      break;
    }
  }
  if (rank == kNone)
    return Error{policy.empty() ? "not a simulated session"
                                : "no policy '" + policy + "' in the simulation"};
  std::map<std::string, int64_t> simulatedNs;
  std::vector<std::string> order;
  for (const Track& t : simulated.tracks) {
    if (t.kind != EventKind::Nvtx || t.thread == kNone ||
        simulated.processes[simulated.threads[t.thread].process].rank != rank)
      continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      auto group = model::LayerGroup::parse(simulated.str(t.hot.name[e]));
      if (!group || group->phase == model::Phase::Update) continue;
      const std::string layer = group->label();
      if (!simulatedNs.count(layer)) order.push_back(layer);
      simulatedNs[layer] += t.hot.end[e] - t.hot.start[e];
    }
  }
  if (simulatedNs.empty())
    return Error{"the simulation has no layer ranges (simulate a model: --model M.onnx)"};
  model::MeasuredTimes m = model::measureLayerTimes(measured);
  if (m.forwardNs.empty() && m.backwardNs.empty())
    return Error{"the measured run has no NVTX forward/<layer> or backward/<layer> ranges"};
  std::map<std::string, int64_t> measuredNs;
  for (const auto& [layer, ns] : m.forwardNs) measuredNs[layer + " (forward)"] += ns;
  for (const auto& [layer, ns] : m.backwardNs) measuredNs[layer + " (backward)"] += ns;
  int64_t anyGpu = 0;
  for (const auto& [layer, ns] : measuredNs) {
    anyGpu += ns;
    if (!simulatedNs.count(layer)) order.push_back(layer);
  }
  if (anyGpu == 0)
    return Error{
        "the measured run's layer ranges launched no GPU kernels (were API calls and their kernels "
        "recorded?)"};
  StatsTable t;
  t.report = "layers";
  t.title = "Measured and simulated time per layer — " + simulated.ranks[rank].label;
  t.columns = {{"layer", "Layer (phase)", StatsUnit::Text},
               {"measured_ns", "Measured", StatsUnit::Duration},
               {"simulated_ns", "Simulated", StatsUnit::Duration},
               {"delta_ns", "Δ", StatsUnit::Duration},
               {"delta_pct", "Δ %", StatsUnit::Percent}};
  for (const std::string& layer : order) {
    auto me = measuredNs.find(layer), si = simulatedNs.find(layer);
    std::vector<StatsCell> row;
    row.emplace_back(layer);
    appendChange(row, me != measuredNs.end() ? std::optional(me->second) : std::nullopt,
                 si != simulatedNs.end() ? std::optional(si->second) : std::nullopt);
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "Per layer and phase: measured = GPU time of the kernels launched inside the NVTX ranges, "
      "averaged over iterations; simulated = the layer's span in " +
      simulated.ranks[rank].label + ", stalls included.");
  return t;
}

}  // namespace ts::memsim
