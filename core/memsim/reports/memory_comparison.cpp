#include "memsim/reports/memory_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "analysis/measured_tensors.h"
#include "memsim/engine/step_memory.h"
#include "model/launch_context.h"
#include "model/layer_group.h"
#include "session/memory_counter.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

const CounterTrack* allocatedCounter(const Session& run, uint32_t device) {
  for (const CounterTrack& c : run.counters)
    if (c.device == device && isAllocatedCounter(c) && c.size() > 0) return &c;
  return nullptr;
}

// The counter's value in force at t (its last sample at or before t), 0 before its first.
int64_t valueAt(const CounterTrack& c, TimeNs t) {
  const auto& time = c.samples.time;
  const size_t i =
      static_cast<size_t>(std::upper_bound(time.begin(), time.end(), t) - time.begin());
  if (i == 0) return 0;
  const double v = c.samples.value[i - 1];
  return std::isnan(v) ? 0 : static_cast<int64_t>(std::clamp(v, -9.2e18, 9.2e18));
}

// Per group, the moment its ops are done: just before the first launch of a later kernel of
// another group (the iteration's last launch, for the last group).
std::map<std::string, TimeNs> layerEnds(const Session& run, const model::KernelMapping& m) {
  std::unordered_map<uint64_t, TimeNs> launchOf;
  for (const model::LaunchedKernel& l : model::launchedKernels(run, m.device))
    launchOf[(uint64_t{l.track} << 32) | l.event] = l.launch;
  std::vector<std::pair<TimeNs, const std::string*>> launches;
  for (const model::MappedKernel& k : m.kernels) {
    auto it = launchOf.find((uint64_t{k.track} << 32) | k.event);
    if (!k.group.empty() && it != launchOf.end()) launches.emplace_back(it->second, &k.group);
  }
  std::sort(launches.begin(), launches.end());
  std::map<std::string, TimeNs> ends;
  for (size_t i = 0; i < launches.size(); ++i) {
    const std::string& g = *launches[i].second;
    size_t next = i + 1;
    while (next < launches.size() && *launches[next].second == g) ++next;
    ends[g] = next < launches.size() ? launches[next].first - 1 : launches.back().first + 1;
  }
  return ends;
}

}  // namespace

StatsTable layerMemoryComparison(const Session& run, const SimWorkload& w,
                                 const model::KernelMapping& m) {
  StatsTable t;
  t.report = "sim_layer_memory";
  t.title = "GPU memory once each layer is done: the run against the memory model";
  t.columns = {{"layer", "Layer (phase)", StatsUnit::Text},
               {"measured_bytes", "Measured", StatsUnit::Bytes},
               {"simulated_bytes", "Simulated", StatsUnit::Bytes},
               {"delta_bytes", "Δ", StatsUnit::Bytes},
               {"delta_pct", "Δ %", StatsUnit::Percent}};
  const CounterTrack* counter = m.device == kNone ? nullptr : allocatedCounter(run, m.device);
  if (!counter) {
    t.notes.push_back(
        "The run records no GPU allocations for this GPU (profile_memory=True "
        "records them): nothing to compare.");
    return t;
  }
  // Simulated: after each group's last kernel, in step order.
  const StepMemory sm = stepMemory(w);
  std::vector<std::string> order;
  std::map<std::string, size_t> lastKernel;
  for (size_t k = 0; k < w.kernels.size(); ++k) {
    const std::string& g = w.kernels[k].group;
    if (g.empty()) continue;
    if (!lastKernel.count(g)) order.push_back(g);
    lastKernel[g] = k;
  }
  // What a counter from the trace's start does not see: the step's globals, and its gradients
  // too when the run's zero_grad zeroes them in place (they were allocated before the trace).
  const bool sinceStart = counter->name.find("since") != std::string::npos;
  const bool keepsGradients = sinceStart && zeroGradKeepsGradients(run);
  int64_t before = 0;
  if (sinceStart)
    for (const SimTensor& tensor : w.tensors)
      if (tensor.global || (keepsGradients && tensor.untilIterationEnd)) before += tensor.bytes;
  const std::map<std::string, TimeNs> ends = layerEnds(run, m);
  double sumAbsPct = 0;
  size_t compared = 0;
  int64_t worst = 0;
  std::string worstLayer;
  for (const std::string& g : order) {
    auto end = ends.find(g);
    const std::optional<int64_t> measured =
        end == ends.end() ? std::nullopt : std::optional(valueAt(*counter, end->second) + before);
    const int64_t simulated = sm.after[lastKernel[g]];
    std::vector<StatsCell> row;
    auto parsed = model::LayerGroup::parse(g);
    row.emplace_back(parsed ? parsed->label() : g);
    appendChange(row, measured, simulated);
    t.rows.push_back(std::move(row));
    if (!measured || *measured <= 0) continue;
    ++compared;
    sumAbsPct += 100.0 * std::fabs(static_cast<double>(simulated - *measured)) /
                 static_cast<double>(*measured);
    if (std::abs(simulated - *measured) >= std::abs(worst))
      worst = simulated - *measured, worstLayer = parsed ? parsed->label() : g;
  }
  if (compared > 0) {
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.1f %%", sumAbsPct / static_cast<double>(compared));
    t.notes.push_back("Error over " + std::to_string(compared) + " layers: mean |Δ| " + mean +
                      "; largest at " + worstLayer + " (" + (worst < 0 ? "−" : "+") +
                      formatBytes(static_cast<uint64_t>(std::abs(worst))) + ").");
  }
  t.notes.push_back("Measured: the run's counter \"" + counter->name +
                    "\" just before the next layer's first kernel was launched (the layer's ops "
                    "done, their inputs freed); simulated: the memory model's bytes once the "
                    "layer's last kernel has ended (tensorscope-cli model memory).");
  if (sinceStart)
    t.notes.push_back(
        "The run's counter starts at 0 with the trace: the workload's " +
        formatBytes(static_cast<uint64_t>(before)) + " of weights, optimizer state and batch" +
        (keepsGradients ? " and gradients (its zero_grad zeroes them in place, so they were "
                          "allocated before the trace; the model frees them as each step ends)"
                        : "") +
        " are added to every measured value.");
  return t;
}

}  // namespace ts::memsim
