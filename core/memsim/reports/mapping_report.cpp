#include "memsim/reports/mapping_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "analysis/measured_tensors.h"
#include "memsim/engine/step_memory.h"
#include "memsim/reports/sim_report.h"
#include "session/memory_counter.h"
#include "util/format.h"

namespace ts::memsim {

namespace {

const std::vector<StatsColumn> kChangeColumns = {{"measured_ns", "Measured", StatsUnit::Duration},
                                                 {"simulated_ns", "Simulated", StatsUnit::Duration},
                                                 {"delta_ns", "Δ", StatsUnit::Duration},
                                                 {"delta_pct", "Δ %", StatsUnit::Percent}};

// "features.0 (forward)" for "forward/features.0".
std::string layerLabel(const std::string& group) {
  auto parsed = model::LayerGroup::parse(group);
  return parsed ? parsed->label() : group;
}

// Bytes the run copied host → device and device → host for the mapped iteration: from the end of
// the iteration before (the run's start for the first) to the end of this one. The iteration
// spans its kernels, and its input batch is copied just before the first of them: counted from
// the first kernel, a training step copied "0 B".
std::array<int64_t, 2> iterationCopies(const Session& run, const model::KernelMapping& m) {
  std::array<int64_t, 2> bytes{};
  TimeNs from = run.startTime(), to = run.endTime() + 1;
  if (!m.iterations.empty()) {
    from = m.iteration > 0 ? m.iterations[m.iteration - 1].end : run.startTime();
    to = m.iterations[m.iteration].end;
  }
  for (const Track& track : run.tracks) {
    if (track.kind != EventKind::Memcpy || (m.device != kNone && track.device != m.device))
      continue;
    for (uint32_t e = 0; e < track.size(); ++e) {
      if (track.hot.start[e] < from || track.hot.start[e] >= to) continue;
      if (track.memcpys.copyKind[e] == CopyKind::HtoD)
        bytes[0] += static_cast<int64_t>(track.memcpys.bytes[e]);
      if (track.memcpys.copyKind[e] == CopyKind::DtoH)
        bytes[1] += static_cast<int64_t>(track.memcpys.bytes[e]);
    }
  }
  return bytes;
}

}  // namespace

std::string mappingSentence(const model::KernelMapping& m) {
  auto pct = [](double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", 100 * share);
    return std::string(text);
  };
  std::string s = "by " + std::string(model::toString(m.method)) + ", iteration " +
                  std::to_string(m.iteration + 1) + " of " + std::to_string(m.iterations.size()) +
                  " (" + m.iterationSource + "), " + pct(m.coverage()) +
                  " of its kernel time mapped (" + pct(m.checkedShare()) + " checked)";
  if (m.guessedNs > 0) s += ", " + pct(m.guessedShare()) + " placed by guess";
  return s;
}

std::string mappingSentence(const MappingSummary& s) {
  const model::MappingReport& t = s.timed;
  const std::string of = " of " + std::to_string(t.layers);
  return mappingSentence(s.kernels) + "; layers timed: forward " + std::to_string(t.forwardTimed) +
         of + ", backward " + std::to_string(t.backwardTimed) + of + ", update " +
         std::to_string(t.updateTimed) + of;
}

StatsTable mappingTable(const Session& run, const model::KernelMapping& m) {
  StatsTable t;
  t.report = "mapping";
  t.title = "Measured kernels → model layers — " + mappingSentence(m);
  t.columns = {{"index", "#", StatsUnit::Count},
               {"start_ns", "Start", StatsUnit::Duration},
               {"duration_ns", "Duration", StatsUnit::Duration},
               {"kernel", "Kernel", StatsUnit::Text},
               {"layer", "Layer", StatsUnit::Text},
               {"by", "Mapped by", StatsUnit::Text},
               {"certainty", "Sure", StatsUnit::Text,
                "stated (an NVTX layer range or your correction), checked (the op that "
                "launched it is of the layer's kind and its recorded shapes agree), order (of the "
                "layer's kind at the layer's place with no shapes recorded to check, or one to one "
                "with the model's kernels by count), guess (no model op of its own: placed with "
                "the kernels launched before it; not counted as mapped)"}};
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const model::MappedKernel& k = m.kernels[i];
    const Track& track = run.tracks[k.track];
    std::vector<StatsCell> row;
    row.emplace_back(static_cast<int64_t>(i));
    row.emplace_back(int64_t{track.hot.start[k.event] - m.origin()});
    row.emplace_back(int64_t{track.hot.end[k.event] - track.hot.start[k.event]});
    row.emplace_back(std::string(run.str(track.hot.name[k.event])));
    row.emplace_back(k.group.empty() ? std::string("(unmapped)") : k.group);
    row.emplace_back(k.by == model::MappingMethod::None ? std::string("—")
                                                        : std::string(model::toString(k.by)));
    row.emplace_back(std::string(model::toString(k.certainty)));
    t.rows.push_back(std::move(row));
  }
  if (!m.unmapped.empty()) {
    const size_t n = m.unmapped.size();
    std::string note = "Unmapped kernels (" + std::to_string(n) + (n == 1 ? " name):" : " names):");
    for (size_t i = 0; i < n && i < 8; ++i) {
      note += (i ? "; " : " ") + m.unmapped[i].name + " ×" + std::to_string(m.unmapped[i].count) +
              " (" + formatDuration(m.unmapped[i].ns) + ")";
    }
    if (n > 8) note += "; …";
    t.notes.push_back(note + ".");
  }
  t.notes.push_back(
      "Start: from the iteration's first kernel. Wrong layer? Select the kernel, choose the "
      "layer, Assign selected (or simulate --corrections FILE).");
  return t;
}

StatsTable kernelComparison(const SimWorkload& w, const SimResult& r,
                            const model::KernelMapping& m) {
  std::set<std::string> measured;
  for (const model::MappedKernel& k : m.kernels) measured.insert(k.group);
  StatsTable t;
  t.report = "sim_kernels";
  t.title = "Simulated against measured, per kernel — " + std::string(toString(r.policy));
  t.columns = {{"index", "#", StatsUnit::Count},
               {"kernel", "Kernel", StatsUnit::Text},
               {"layer", "Layer", StatsUnit::Text},
               {"time_from", "Time from", StatsUnit::Text}};
  t.columns.insert(t.columns.end(), kChangeColumns.begin(), kChangeColumns.end());
  // Not what a kernel was measured at: its layer's measured time shared out (the header said
  // "Measured" over 818 µs for a conv1 kernel that ran 606 µs).
  t.columns[4].title = "Workload (layer share)";
  t.columns.push_back({"stall_ns", "Stall", StatsUnit::Duration});
  for (size_t k = 0; k < w.kernels.size() && k < r.kernels.size(); ++k) {
    const SimKernel& sk = w.kernels[k];
    std::vector<StatsCell> row;
    row.emplace_back(static_cast<int64_t>(k));
    row.emplace_back(sk.name);
    row.emplace_back(sk.group.empty() ? std::string("—") : layerLabel(sk.group));
    row.emplace_back(
        std::string(measured.count(sk.group) && !sk.group.empty() ? "measured" : "roofline"));
    appendChange(row, sk.duration, r.kernels[k].end - r.kernels[k].start + r.kernels[k].stall);
    row.emplace_back(int64_t{r.kernels[k].stall});
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "Workload: the kernel's time as simulated — its layer's measured time shared among the "
      "layer's simulated kernels in proportion to their roofline times (\"roofline\": the layer "
      "was not measured); each measured kernel is in the Mapping table. Simulated: the kernel's "
      "span with the stall before it.");
  return t;
}

StatsTable layerComparison(const SimWorkload& w, const SimResult& r,
                           const model::KernelMapping& m) {
  std::map<std::string, int64_t> measuredNs, simulatedNs;
  std::vector<std::string> order;
  for (size_t k = 0; k < w.kernels.size() && k < r.kernels.size(); ++k) {
    const std::string& g = w.kernels[k].group;
    if (g.empty()) continue;
    if (!simulatedNs.count(g)) order.push_back(g);
    simulatedNs[g] += r.kernels[k].end - r.kernels[k].start + r.kernels[k].stall;
  }
  for (const model::MappedKernel& k : m.kernels) {
    if (!k.group.empty()) measuredNs[k.group] += k.ns;
  }
  for (const auto& [g, ns] : measuredNs) {
    if (!simulatedNs.count(g)) order.push_back(g);
  }
  StatsTable t;
  t.report = "sim_layers";
  t.title = "Simulated against measured, per layer — " + std::string(toString(r.policy));
  t.columns = {{"layer", "Layer (phase)", StatsUnit::Text}};
  t.columns.insert(t.columns.end(), kChangeColumns.begin(), kChangeColumns.end());
  for (const std::string& g : order) {
    auto me = measuredNs.find(g), si = simulatedNs.find(g);
    std::vector<StatsCell> row;
    row.emplace_back(layerLabel(g));
    appendChange(row, me != measuredNs.end() ? std::optional(me->second) : std::nullopt,
                 si != simulatedNs.end() ? std::optional(si->second) : std::nullopt);
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "Measured: the GPU time of the iteration's kernels mapped to the layer; simulated: the "
      "layer's kernels' spans, stalls included.");
  return t;
}

namespace {

// The run's peak for the verdict. A counter from the trace's start misses what was held before
// it: the model's globals (weights, optimizer state, batch) are added, and the figure is "about".
struct RunPeak {
  int64_t bytes = 0;
  bool estimated = false;
  std::string text() const {
    return (estimated ? "about " : "") +
           formatBytes(static_cast<uint64_t>(std::max<int64_t>(0, bytes)));
  }
};

// With its gradients too when the run's zero_grad keeps them allocated between iterations.
RunPeak runPeakOf(const MemoryPeak& measured, const SimWorkload& w, bool keepsGradients) {
  RunPeak p{measured.bytes, measured.counter.find("since") != std::string::npos};
  if (p.estimated) {
    for (const SimTensor& t : w.tensors) {
      if (t.global || (keepsGradients && t.untilIterationEnd)) p.bytes += t.bytes;
    }
  }
  return p;
}

std::string contradiction(const RunPeak& run, const MemoryVerdict& v, const SimResult& r,
                          int64_t gpuBytes, const std::string& change) {
  const TimeNs stall = r.summary.stall;
  const bool stalls = r.feasible && stall > r.summary.iteration / 100;
  const bool calm = r.feasible && stall <= r.summary.iteration / 100;
  const std::string gpu = formatBytes(static_cast<uint64_t>(gpuBytes));
  const std::string step = formatBytes(static_cast<uint64_t>(v.simulatedPeak));
  if (run.bytes <= gpuBytes && stalls) {
    std::string why =
        v.simulatedPeak > gpuBytes
            ? "its step holds " + step + " (" + change +
                  "). Check the model, the batch and the optimizer against the run before "
                  "trusting this verdict."
            : "its step fits (" + step +
                  "), so the stall is the policy's: what it keeps aside "
                  "or evicts, not the model's size.";
    return "The run fit in " + run.text() + ", within the simulated GPU's " + gpu +
           ", yet the simulation stalls " + formatDuration(stall) + " for memory: " + why;
  }
  if (run.bytes > gpuBytes && calm && v.simulatedPeak <= gpuBytes)
    return "The run needed " + run.text() + ", more than the simulated GPU's " + gpu +
           ", yet the simulated step fits without stalling (" + step +
           "): the model holds less than the run did.";
  return {};
}

}  // namespace

MemoryVerdict memoryVerdict(const Session& run, const SimWorkload& w, const SimResult& r,
                            const model::KernelMapping& m, int64_t gpuBytes) {
  MemoryVerdict v;
  v.simulatedPeak = stepMemory(w).peak;
  std::optional<MemoryPeak> measured;
  if (!m.iterations.empty() && m.device != kNone) {
    const auto& it = m.iterations[m.iteration];
    measured = gpuMemoryPeak(run, m.device, it.start, it.end);
  }
  const std::string step = "the simulated step " +
                           formatBytes(static_cast<uint64_t>(v.simulatedPeak)) +
                           " with unlimited memory";
  const std::string underPolicy = formatBytes(static_cast<uint64_t>(allocatedPeak(w, r))) +
                                  " on the GPU under " + toString(r.policy);
  if (!measured) {
    v.sentence = "GPU memory at its peak: " + step + ", " + underPolicy +
                 "; the run records no GPU memory counter (PyTorch: profile_memory=True)";
    return v;
  }
  v.measuredPeak = measured->bytes;
  const bool keepsGradients = zeroGradKeepsGradients(run);
  const RunPeak runPeak = runPeakOf(*measured, w, keepsGradients);
  const double delta = runPeak.bytes > 0
                           ? 100.0 * static_cast<double>(v.simulatedPeak - runPeak.bytes) /
                                 static_cast<double>(runPeak.bytes)
                           : 0.0;
  char change[32];
  std::snprintf(change, sizeof change, "%+.1f %%", delta);
  v.sentence =
      "GPU memory at its peak: the run " +
      formatBytes(static_cast<uint64_t>(std::max<int64_t>(0, measured->bytes))) +
      (!runPeak.estimated ? std::string()
       : keepsGradients   ? " counted from the trace's start, " + runPeak.text() +
                              " with the weights, gradients (its zero_grad zeroes them in place), "
                              "optimizer state and batch held before it"
                        : " counted from the trace's start, " + runPeak.text() +
                              " with the weights, optimizer state and batch held before it") +
      "; " + step + " (" + change + " against the run), " + underPolicy;
  v.warning = contradiction(runPeak, v, r, gpuBytes, change);
  return v;
}

StatsTable comparisonSummary(const Session& run, const SimWorkload& w, const SimResult& r,
                             const model::KernelMapping& m, int64_t gpuBytes) {
  StatsTable t;
  t.report = "sim_summary";
  t.title = "Measured iteration against " + std::string(toString(r.policy)) + " on its simulation";
  t.columns = {{"quantity", "Quantity", StatsUnit::Text}};
  t.columns.insert(t.columns.end(), kChangeColumns.begin(), kChangeColumns.end());
  auto add = [&](const char* what, std::optional<int64_t> a, std::optional<int64_t> b) {
    std::vector<StatsCell> row;
    row.emplace_back(std::string(what));
    appendChange(row, a, b);
    t.rows.push_back(std::move(row));
  };
  std::optional<int64_t> iteration;
  if (!m.iterations.empty())
    iteration = m.iterations[m.iteration].end - m.iterations[m.iteration].start;
  add("Iteration", iteration, r.summary.iteration);
  add("Kernel time", m.totalNs, w.idealTime());
  add("Stall", std::nullopt, r.summary.stall);
  const std::array<int64_t, 2> copied = iterationCopies(run, m);
  int64_t traffic = 0;
  for (int64_t b : r.summary.linkBytes) traffic += b;
  t.notes.push_back(
      "Traffic: the run copied " + formatBytes(static_cast<uint64_t>(copied[0] + copied[1])) +
      " between host and GPU for the iteration (its input batch included, copied after the "
      "iteration before); the simulation moves " +
      formatBytes(static_cast<uint64_t>(traffic)) + " (" + trafficSentence(r.summary) + ").");
  t.notes.push_back(
      "The measured iteration spans its kernels (first start to last end, idle gaps included); the "
      "simulated one "
      "runs the workload's kernels (the model's training step, or the run's own) back to back.");
  const MemoryVerdict memory = memoryVerdict(run, w, r, m, gpuBytes);
  t.notes.push_back(memory.sentence + ".");
  if (!memory.warning.empty()) t.notes.push_back("Warning: " + memory.warning);
  return t;
}

}  // namespace ts::memsim

namespace ts::memsim {

StatsTable trafficComparison(const Session& run, const SimWorkload& w, const SimResult& r,
                             const model::KernelMapping& m) {
  const std::array<int64_t, 2> copied = iterationCopies(run, m);
  StatsTable t;
  t.report = "sim_traffic";
  t.title = "Bytes moved per direction, and GPU memory at its peak — the run against " +
            std::string(toString(r.policy));
  t.columns = {{"direction", "Direction", StatsUnit::Text},
               {"measured_bytes", "Measured", StatsUnit::Bytes},
               {"simulated_bytes", "Simulated", StatsUnit::Bytes},
               {"delta_bytes", "Δ", StatsUnit::Bytes},
               {"delta_pct", "Δ %", StatsUnit::Percent}};
  for (int l = 0; l < kLinkCount; ++l) {
    const auto link = static_cast<Link>(l);
    std::vector<StatsCell> row;
    row.emplace_back(std::string(linkLabel(link)));
    // The run's own copies are host ↔ device only.
    const std::optional<int64_t> measured = link == Link::HostToGpu   ? std::optional(copied[0])
                                            : link == Link::GpuToHost ? std::optional(copied[1])
                                                                      : std::nullopt;
    appendChange(row, measured, r.summary.linkBytes[static_cast<size_t>(l)]);
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "Measured: the run's host-to-device and device-to-host copies that start after the "
      "iteration before the mapped one and before the mapped one ends (its input batch "
      "included; a run has no SSD traffic to show); simulated: the policy's transfers per link "
      "in its iteration.");
  // GPU memory: the run's allocator (its own counter, over the iteration) against the most the
  // simulated step keeps on the GPU at once.
  std::optional<MemoryPeak> measuredPeak;
  if (!m.iterations.empty() && m.device != kNone) {
    const auto& it = m.iterations[m.iteration];
    measuredPeak = gpuMemoryPeak(run, m.device, it.start, it.end);
  }
  const std::optional<int64_t> simulatedPeak = allocatedPeak(w, r);
  std::vector<StatsCell> row{std::string("GPU memory at peak")};
  appendChange(row, measuredPeak ? std::optional<int64_t>(measuredPeak->bytes) : std::nullopt,
               simulatedPeak);
  t.rows.push_back(std::move(row));
  if (!measuredPeak) {
    t.notes.push_back(
        "GPU memory at peak: the run records no GPU memory counter (PyTorch: profile_memory=True), "
        "so only the simulated peak is shown.");
  } else {
    const bool relative = measuredPeak->counter.find("since") != std::string::npos;
    t.notes.push_back(
        "GPU memory at peak: the run's counter \"" + measuredPeak->counter +
        "\" at its highest during the iteration — what the allocator handed out (its cache can "
        "hold more)" +
        (relative ? std::string(", counted from the trace's start: memory held before it (the "
                                "weights, say) is not in it")
                  : std::string()) +
        " —, against the most the simulated step keeps on the GPU at once.");
  }
  return t;
}

}  // namespace ts::memsim
