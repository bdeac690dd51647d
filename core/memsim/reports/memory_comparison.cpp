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

// The layer a moment of the run's host belongs to, by the mapped kernels' launches: an allocation
// is its layer's when the next kernel launched is (ops allocate their outputs, then launch), a
// free when the last kernel launched before it is (ops free their inputs once done).
class LayerClock {
 public:
  LayerClock(const Session& run, const model::KernelMapping& m) {
    std::unordered_map<uint64_t, TimeNs> launchOf;
    for (const model::LaunchedKernel& l : model::launchedKernels(run, m.device))
      launchOf[(uint64_t{l.track} << 32) | l.event] = l.launch;
    for (const model::MappedKernel& k : m.kernels) {
      auto it = launchOf.find((uint64_t{k.track} << 32) | k.event);
      if (!k.group.empty() && it != launchOf.end()) launches_.emplace_back(it->second, &k.group);
    }
    std::sort(launches_.begin(), launches_.end());
    if (launches_.empty()) return;
    // The iteration's allocations begin after the iteration before launched its last kernel.
    for (const auto& [key, launch] : launchOf)
      if (launch < launches_.front().first) previous_ = std::max(previous_, launch);
  }
  bool empty() const { return launches_.empty(); }
  TimeNs previous() const { return previous_; }  // the last launch before the iteration's
  TimeNs last() const { return launches_.back().first; }
  const std::string* nextAfter(TimeNs t) const {
    auto it = std::lower_bound(launches_.begin(), launches_.end(), std::pair(t, nullptr),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    return it == launches_.end() ? nullptr : it->second;
  }
  // Per group, the moment its ops are done: just before the first launch of a later kernel of
  // another group (the iteration's last launch, for the last group).
  std::map<std::string, TimeNs> ends() const {
    std::map<std::string, TimeNs> out;
    for (size_t i = 0; i < launches_.size(); ++i) {
      const std::string& g = *launches_[i].second;
      size_t next = i + 1;
      while (next < launches_.size() && *launches_[next].second == g) ++next;
      out[g] = next < launches_.size() ? launches_[next].first - 1 : launches_.back().first + 1;
    }
    return out;
  }
  const std::string* lastBefore(TimeNs t) const {
    auto it = std::upper_bound(launches_.begin(), launches_.end(), std::pair(t, nullptr),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    return it == launches_.begin() ? nullptr : std::prev(it)->second;
  }

 private:
  std::vector<std::pair<TimeNs, const std::string*>> launches_;
  TimeNs previous_ = INT64_MIN;
};

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
  const CounterTrack* counter = m.device == kNone ? nullptr : gpuAllocatedCounter(run, m.device);
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
  const std::map<std::string, TimeNs> ends = LayerClock(run, m).ends();
  double sumAbsPct = 0;
  size_t compared = 0;
  int64_t worst = 0;
  std::string worstLayer;
  for (const std::string& g : order) {
    auto end = ends.find(g);
    const std::optional<int64_t> measured =
        end == ends.end() ? std::nullopt
                          : std::optional(counterBytesAt(*counter, end->second) + before);
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

namespace ts::memsim {

namespace {

std::string labelOf(const std::string* group) {
  if (!group) return "—";
  auto parsed = model::LayerGroup::parse(*group);
  return parsed ? parsed->label() : *group;
}

// Sizes as the CUDA caching allocator hands them out: rounded up to 512 bytes.
int64_t rounded(int64_t bytes) {
  return (bytes + 511) / 512 * 512;
}

struct Candidate {
  const MeasuredTensor* tensor;
  const std::string* birth;
  bool taken = false;
};

}  // namespace

StatsTable tensorComparison(const Session& run, const SimWorkload& w,
                            const model::KernelMapping& m) {
  StatsTable t;
  t.report = "sim_tensors";
  t.title = "Tensors: the simulated step's matched to the run's allocations";
  t.columns = {{"tensor", "Tensor", StatsUnit::Text},
               {"shape", "Shape", StatsUnit::Text},
               {"bytes", "Size", StatsUnit::Bytes},
               {"born", "Born (simulated)", StatsUnit::Text},
               {"dies", "Dies (simulated)", StatsUnit::Text},
               {"run_op", "Allocated by (run)", StatsUnit::Text},
               {"run_born", "Born (run)", StatsUnit::Text},
               {"run_dies", "Dies (run)", StatsUnit::Text},
               {"run_life_ns", "Lifetime (run)", StatsUnit::Duration}};
  std::vector<MeasuredMemory> measured = measureTensorLifetimes(run);
  auto memory = std::find_if(measured.begin(), measured.end(),
                             [&](const MeasuredMemory& mm) { return mm.device == m.device; });
  const LayerClock clock(run, m);
  if (memory == measured.end() || !memory->addresses || clock.empty()) {
    t.notes.push_back(
        "The run's allocation records for this GPU carry no addresses (PyTorch 1.10 or later "
        "with profile_memory=True, or a memory snapshot, records them): no tensor to match.");
    return t;
  }
  // The run's allocations made in the mapped iteration, by (layer of birth, rounded size).
  std::map<std::pair<const std::string*, int64_t>, std::vector<Candidate>> byKey;
  std::map<std::string, const std::string*> groupPtr;  // one pointer per group name
  auto canonical = [&](const std::string* g) -> const std::string* {
    if (!g) return nullptr;
    return groupPtr.try_emplace(*g, g).first->second;
  };
  int64_t measuredBytes = 0;
  for (const MeasuredTensor& mt : memory->tensors) {
    if (mt.allocated <= clock.previous() || mt.allocated > clock.last()) continue;
    measuredBytes += mt.bytes;
    const std::string* birth = canonical(clock.nextAfter(mt.allocated));
    byKey[{birth, rounded(mt.bytes)}].push_back({&mt, birth});
  }
  const std::vector<TensorLifetime> lives = tensorLifetimes(w);
  size_t considered = 0, matched = 0, sameDeath = 0;
  int64_t matchedBytes = 0;
  for (size_t i = 0; i < w.tensors.size(); ++i) {
    const SimTensor& st = w.tensors[i];
    const TensorLifetime& life = lives[i];
    if (st.global || !life.allocated() || st.bytes <= 0) continue;
    ++considered;
    const std::string& born = w.kernels[static_cast<size_t>(life.from)].group;
    const std::string& dies = w.kernels[static_cast<size_t>(life.to - 1)].group;
    std::vector<StatsCell> row = {st.name, st.shape.empty() ? std::string("—") : st.shape, st.bytes,
                                  labelOf(&born), labelOf(&dies)};
    auto it = byKey.find({groupPtr.count(born) ? groupPtr[born] : nullptr, rounded(st.bytes)});
    Candidate* found = nullptr;
    if (it != byKey.end())
      for (Candidate& c : it->second)
        if (!c.taken) {
          found = &c;
          break;
        }
    if (!found) {
      row.insert(row.end(),
                 {std::string("(no match)"), std::monostate{}, std::monostate{}, std::monostate{}});
      t.rows.push_back(std::move(row));
      continue;
    }
    found->taken = true;
    ++matched;
    matchedBytes += found->tensor->bytes;
    const MeasuredTensor& mt = *found->tensor;
    const std::string* death = mt.freed == kStillAllocated ? nullptr : clock.lastBefore(mt.freed);
    if (death && *death == dies) ++sameDeath;
    row.emplace_back(mt.allocTrack == kNone
                         ? std::string("(no op)")
                         : std::string(run.str(run.tracks[mt.allocTrack].hot.name[mt.allocEvent])));
    row.emplace_back(labelOf(found->birth));
    row.emplace_back(mt.freed == kStillAllocated ? std::string("(not freed)") : labelOf(death));
    if (mt.freed == kStillAllocated)
      row.emplace_back(std::monostate{});
    else
      row.emplace_back(int64_t{mt.freed - mt.allocated});
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      std::to_string(matched) + " of " + std::to_string(considered) +
      " tensors of the simulated step matched an allocation of the run by the layer "
      "that makes it and its size; " +
      std::to_string(sameDeath) + " of them die in the same layer in both. " +
      formatBytes(static_cast<uint64_t>(std::max<int64_t>(measuredBytes - matchedBytes, 0))) +
      " of the run's allocations in the iteration matched no simulated tensor "
      "(workspaces, temporaries, the allocator's own).");
  t.notes.push_back(
      "Born: the layer of the first kernel launched after the allocation (simulated: "
      "that writes it); dies: of the last kernel launched before the free (simulated: "
      "that reads it last). Weights, optimizer state and the batch are left out: "
      "they live across steps.");
  return t;
}

}  // namespace ts::memsim
