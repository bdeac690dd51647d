#include "memsim/formats/run_workload.h"

#include <algorithm>
#include <cmath>

#include "analysis/measured_tensors.h"
#include "model/kernel_iterations.h"
#include "model/launch_context.h"
#include "session/memory_counter.h"
#include "session/session_summary.h"
#include "util/format.h"

namespace ts::memsim {

std::string RunWorkloadNotes::sentence() const {
  std::string s = std::to_string(allocations) + " measured allocations";
  if (withoutKernel > 0)
    s += " (" + std::to_string(withoutKernel) + " of them, " +
         formatBytes(static_cast<uint64_t>(withoutKernelBytes)) +
         ", held while no kernel of the iteration was launched: left out)";
  s += "; each written by the first kernel launched after it was allocated and read last by the "
       "last kernel launched before it was freed (uses in between are not recorded)";
  if (heldThroughBytes > 0)
    s += "; " + formatBytes(static_cast<uint64_t>(heldThroughBytes)) +
         " held through the whole iteration (weights, optimizer state, what was allocated "
         "before the records) kept on the GPU: the records do not say which kernels read it";
  return s;
}

namespace {

SimTensor tensorOf(const Session& run, const MeasuredTensor& m, size_t index) {
  SimTensor t;
  const std::string op =
      m.allocTrack == kNone ? std::string("outside any op")
                            : std::string(run.str(run.tracks[m.allocTrack].hot.name[m.allocEvent]));
  t.name = "#" + std::to_string(index) + " " + op;
  t.bytes = m.bytes;
  switch (m.kind) {
    case MeasuredClass::Activation:
      t.kind = TensorClass::Activation;
      break;
    case MeasuredClass::ActivationGradient:
    case MeasuredClass::WeightGradient:
      t.kind = TensorClass::Gradient;
      break;
    case MeasuredClass::OptimizerState:
      t.kind = TensorClass::OptimizerState;
      break;
    case MeasuredClass::Temporary:
      t.kind = TensorClass::Workspace;
      break;
    case MeasuredClass::Unknown:
      t.kind = TensorClass::Other;
      break;
  }
  return t;
}

// Kernels by launch time, to place a moment of the host's (an allocation, a free) among them.
class LaunchOrder {
 public:
  explicit LaunchOrder(const std::vector<model::LaunchedKernel>& kernels) {
    for (size_t k = 0; k < kernels.size(); ++k)
      byLaunch_.emplace_back(kernels[k].launch, static_cast<int>(k));
    std::sort(byLaunch_.begin(), byLaunch_.end());
  }
  TimeNs first() const { return byLaunch_.front().first; }
  TimeNs last() const { return byLaunch_.back().first; }
  // The first kernel launched at or after t; -1 when none.
  int after(TimeNs t) const {
    auto it = std::lower_bound(byLaunch_.begin(), byLaunch_.end(), std::pair(t, INT32_MIN));
    return it == byLaunch_.end() ? -1 : it->second;
  }
  // The last kernel launched at or before t; -1 when none.
  int before(TimeNs t) const {
    auto it = std::upper_bound(byLaunch_.begin(), byLaunch_.end(), std::pair(t, INT32_MAX));
    return it == byLaunch_.begin() ? -1 : std::prev(it)->second;
  }

 private:
  std::vector<std::pair<TimeNs, int>> byLaunch_;
};

// The iteration's kernels, each in a group of its own named by the op that launched it.
void addKernels(const Session& run, const std::vector<model::LaunchedKernel>& kernels,
                SimWorkload& w, model::KernelMapping& m) {
  const model::EnclosingRanges enclosing(run);
  for (size_t k = 0; k < kernels.size(); ++k) {
    const model::LaunchedKernel& l = kernels[k];
    std::string op;
    if (l.thread != kNone) {
      const auto hits = enclosing.at(l.thread, l.launch);
      if (!hits.empty()) op = std::string(hits.back().name);
    }
    SimKernel sk;
    sk.name = std::string(run.str(l.name));
    sk.duration = l.end - l.start;
    sk.group = "kernel " + std::to_string(k + 1) + (op.empty() ? "" : ": " + op);
    m.kernels.push_back({l.track, l.event, sk.group, model::MappingMethod::None,
                         model::Certainty::None, sk.duration});
    m.totalNs += sk.duration;
    w.kernels.push_back(std::move(sk));
  }
}

// Each measured allocation alive during the iteration, placed among its kernels.
void addTensors(const Session& run, const MeasuredMemory& memory, const LaunchOrder& order,
                SimWorkload& w, RunWorkloadNotes& notes) {
  const TimeNs from = order.first(), to = order.last();
  const int n = static_cast<int>(w.kernels.size());
  int64_t heldAtStart = 0;  // by allocations the records show
  for (size_t i = 0; i < memory.tensors.size(); ++i) {
    const MeasuredTensor& m = memory.tensors[i];
    if (m.allocated > to || m.freed < from) continue;
    ++notes.allocations;
    if (m.allocated < from) heldAtStart += m.bytes;
    if (m.allocated < from && m.freed > to) {
      notes.heldThroughBytes += m.bytes;
      continue;
    }
    const int birth = m.allocated < from ? 0 : order.after(m.allocated);
    const int death = m.freed > to ? n - 1 : order.before(m.freed);
    if (birth < 0 || death < 0 || death < birth) {
      ++notes.withoutKernel;
      notes.withoutKernelBytes += m.bytes;
      continue;
    }
    SimTensor t = tensorOf(run, m, i);
    t.untilIterationEnd = m.freed > to;
    const int id = static_cast<int>(w.tensors.size());
    w.tensors.push_back(std::move(t));
    auto& first = w.kernels[static_cast<size_t>(birth)];
    (m.allocated < from ? first.inputs : first.outputs).push_back(id);
    if (death != birth) w.kernels[static_cast<size_t>(death)].inputs.push_back(id);
  }
  // What the allocator held when the iteration began beyond the allocations it shows: memory
  // allocated before the records (weights, optimizer state, the batch).
  const CounterTrack* counter = gpuAllocatedCounter(run, memory.device);
  const int64_t before = counter ? counterBytesAt(*counter, from) : 0;
  notes.heldThroughBytes += std::max<int64_t>(before - heldAtStart, 0);
  if (notes.heldThroughBytes <= 0) return;
  SimTensor held;
  held.name = "held through the iteration";
  held.bytes = notes.heldThroughBytes;
  held.global = true;
  const int id = static_cast<int>(w.tensors.size());
  w.tensors.push_back(std::move(held));
  for (SimKernel& k : w.kernels) k.inputs.push_back(id);
}

}  // namespace

Result<SimWorkload> workloadOfRun(const Session& run, const std::string& runName,
                                  const model::MappingOptions& options, MappingSummary* mapping,
                                  RunWorkloadNotes* notesOut) {
  const std::vector<DeviceKernelTime> busy = devicesByKernelTime(run);
  if (busy.empty() || busy.front().ns == 0) return Error{runName + ": the run has no GPU kernels"};
  auto asked = std::find_if(busy.begin(), busy.end(), [&](const DeviceKernelTime& d) {
    return d.device == options.device && d.ns > 0;
  });
  const uint32_t device = asked != busy.end() ? options.device : busy.front().device;
  const std::string gpu = "GPU " + std::to_string(run.devices[device].ordinal);
  const std::vector<MeasuredMemory> measured = measureTensorLifetimes(run);
  auto memory = std::find_if(measured.begin(), measured.end(),
                             [&](const MeasuredMemory& m) { return m.device == device; });
  if (memory == measured.end())
    return Error{runName + ": " + gpu +
                 " has no allocation records (record with profile_memory=True, or open a memory "
                 "snapshot): give --model to simulate a model's step instead"};
  if (!memory->addresses)
    return Error{runName + ": " + gpu +
                 "'s allocation records carry no addresses (PyTorch before 1.10): they cannot be "
                 "paired into tensors; give --model to simulate a model's step instead"};

  model::KernelMapping m;
  m.device = device;
  const std::vector<model::LaunchedKernel> all = model::launchedKernels(run, device);
  model::KernelIterations its = model::findIterations(run, all, options.iteration);
  m.iterationSource = its.source;
  m.iterations = its.ranges;
  if (its.members.empty())
    return Error{runName + ": the range asked for holds no kernel of " + gpu};
  m.iteration =
      std::min(options.iterationIndex.value_or(its.members.size() - 1), its.members.size() - 1);
  std::vector<model::LaunchedKernel> kernels;
  for (size_t i : its.members[m.iteration]) kernels.push_back(all[i]);

  SimWorkload w;
  w.name = runName + " (" + gpu + ", iteration " + std::to_string(m.iteration + 1) + " of " +
           std::to_string(its.members.size()) + ")";
  addKernels(run, kernels, w, m);
  RunWorkloadNotes notes;
  addTensors(run, *memory, LaunchOrder(kernels), w, notes);
  if (mapping) *mapping = {false, {}, std::move(m), {}};
  if (notesOut) *notesOut = notes;
  return w;
}

}  // namespace ts::memsim
