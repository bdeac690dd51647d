#include "analysis/measured_tensors.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>

#include "session/memory_counter.h"

namespace ts {

const char* toString(MeasuredClass c) {
  switch (c) {
    case MeasuredClass::Activation:
      return "activation";
    case MeasuredClass::ActivationGradient:
      return "activation gradient";
    case MeasuredClass::WeightGradient:
      return "weight gradient";
    case MeasuredClass::OptimizerState:
      return "optimizer state";
    case MeasuredClass::Temporary:
      return "temporary";
    case MeasuredClass::Unknown:
      break;
  }
  return "unknown";
}

namespace {

// Ops that only make a tensor for the op around them (aten::empty inside aten::conv2d): PyTorch
// records most allocations inside one, so the op a tensor belongs to is the one enclosing it.
bool isFactory(std::string_view name) {
  for (std::string_view f :
       {"aten::empty", "aten::empty_strided", "aten::empty_like", "aten::zeros", "aten::zeros_like",
        "aten::ones", "aten::ones_like", "aten::full", "aten::full_like", "aten::new_empty",
        "aten::new_empty_strided", "aten::new_zeros", "aten::resize_"}) {
    if (name == f) return true;
  }
  return false;
}

// The ops (Nvtx-kind events: PyTorch's cpu_op and user_annotation ranges) open at a moment, on
// the threads of one rank: which is innermost, and what encloses it.
class OpStacks {
 public:
  OpStacks(const Session& s, uint32_t rank) : s_(s) {
    for (uint32_t t = 0; t < s.tracks.size(); ++t) {
      const Track& track = s.tracks[t];
      if (track.kind != EventKind::Nvtx || track.thread == kNone || track.size() == 0) continue;
      if (s.processes[s.threads[track.thread].process].rank == rank) tracks_.push_back(t);
    }
  }

  struct Open {
    uint32_t track = kNone, event = kNone;
    std::vector<std::string_view> names;  // outermost first
  };

  // The innermost op open at `t` that is not a factory (the latest to begin, on any of the
  // rank's threads: the records do not keep their thread) and the ops around it on its thread.
  // Per record: a binary search per lane of each thread.
  Open at(TimeNs t) const {
    Open best;
    TimeNs bestStart = 0;
    for (uint32_t ti : tracks_) {
      const Track& track = s_.tracks[ti];
      if (t < track.minStart() || t > track.maxEnd()) continue;
      for (uint32_t lane = track.laneCount(); lane-- > 0;) {
        const uint32_t e = track.eventAt(lane, t);
        if (e == kNone || isFactory(s_.str(track.hot.name[e]))) continue;
        if (best.track == kNone || track.hot.start[e] > bestStart)
          best.track = ti, best.event = e, bestStart = track.hot.start[e];
        break;  // the deepest lane open on this thread
      }
    }
    if (best.track == kNone) return best;
    const Track& track = s_.tracks[best.track];
    for (uint32_t lane = 0; lane < track.laneCount(); ++lane) {
      const uint32_t e = track.eventAt(lane, t);
      if (e != kNone) best.names.push_back(s_.str(track.hot.name[e]));
    }
    return best;
  }

  TimeNs endOf(uint32_t track, uint32_t event) const { return s_.tracks[track].hot.end[event]; }

 private:
  const Session& s_;
  std::vector<uint32_t> tracks_;
};

// The innermost "nn.Module: …" range open at `t` on a thread (PyTorch's with_modules): the
// deepest lane of the thread's range tracks whose event there is one.
class ModuleStacks {
 public:
  explicit ModuleStacks(const Session& s) : s_(s) {
    for (uint32_t t = 0; t < s.tracks.size(); ++t) {
      const Track& track = s.tracks[t];
      if (track.thread == kNone || track.size() == 0 ||
          (track.kind != EventKind::Range && track.kind != EventKind::Nvtx))
        continue;
      for (size_t e = 0; e < track.size(); ++e) {
        if (s.str(track.hot.name[e]).starts_with("nn.Module: ")) {
          byThread_[track.thread].push_back(t);
          break;
        }
      }
    }
  }
  std::pair<uint32_t, uint32_t> at(uint32_t thread, TimeNs t) const {
    auto it = byThread_.find(thread);
    if (it == byThread_.end()) return {kNone, kNone};
    for (uint32_t ti : it->second) {
      const Track& track = s_.tracks[ti];
      for (uint32_t lane = track.laneCount(); lane-- > 0;) {
        const uint32_t e = track.eventAt(lane, t);
        if (e != kNone && s_.str(track.hot.name[e]).starts_with("nn.Module: ")) return {ti, e};
      }
    }
    return {kNone, kNone};
  }

 private:
  const Session& s_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> byThread_;
};

bool anyContains(const std::vector<std::string_view>& names, std::string_view what) {
  return std::any_of(names.begin(), names.end(),
                     [&](std::string_view n) { return n.find(what) != std::string_view::npos; });
}

// The end of the outermost open op whose name contains `what` (an optimizer step), or -1.
TimeNs endOfEnclosing(const Session& s, const OpStacks::Open& open, TimeNs t,
                      std::string_view what) {
  const Track& track = s.tracks[open.track];
  for (uint32_t lane = 0; lane < track.laneCount(); ++lane) {
    const uint32_t e = track.eventAt(lane, t);
    if (e != kNone && s.str(track.hot.name[e]).find(what) != std::string_view::npos)
      return track.hot.end[e];
  }
  return -1;
}

MeasuredClass classify(const Session& s, const MeasuredTensor& m, const OpStacks::Open& alloc,
                       const OpStacks::Open& free) {
  if (alloc.track == kNone) return MeasuredClass::Unknown;
  const bool freedInside =
      m.freed != kStillAllocated && m.freed <= s.tracks[alloc.track].hot.end[alloc.event];
  if (anyContains(alloc.names, "Optimizer.step")) {
    const TimeNs stepEnd = endOfEnclosing(s, alloc, m.allocated, "Optimizer.step");
    return m.freed == kStillAllocated || m.freed > stepEnd ? MeasuredClass::OptimizerState
                                                           : MeasuredClass::Temporary;
  }
  if (freedInside) return MeasuredClass::Temporary;
  const bool backward =
      anyContains(alloc.names, "evaluate_function") || anyContains(alloc.names, "Backward");
  // A weight's gradient: made in the backward pass (AccumulateGrad often keeps the gradient its
  // node made) and kept until the next zero_grad, or to the trace's end.
  if (anyContains(alloc.names, "AccumulateGrad") ||
      (backward && (m.freed == kStillAllocated || anyContains(free.names, "zero_grad"))))
    return MeasuredClass::WeightGradient;
  return backward ? MeasuredClass::ActivationGradient : MeasuredClass::Activation;
}

MeasuredMemory pairRecords(const CounterTrack& c) {
  MeasuredMemory m;
  m.device = c.device;
  m.counter = c.name;
  std::unordered_map<uint64_t, size_t> open;  // address → its allocation, not yet freed
  for (size_t i = 0; i < c.size(); ++i) {
    const int64_t change = c.samples.change[i];
    const uint64_t address = c.samples.address[i];
    const double value = c.samples.value[i];
    if (!std::isnan(value))
      m.peak = std::max(m.peak, static_cast<int64_t>(std::min(value, 9.2e18)));
    if (address != 0) m.addresses = true;
    if (change > 0 && address != 0) {
      MeasuredTensor t;
      t.allocated = c.samples.time[i];
      t.bytes = change;
      t.address = address;
      if (auto [it, fresh] = open.try_emplace(address, m.tensors.size()); !fresh) {
        m.tensors[it->second].freed = t.allocated;  // allocated again: the old one is gone
        it->second = m.tensors.size();
      }
      m.tensors.push_back(t);
    } else if (change < 0 && address != 0) {
      auto it = open.find(address);
      if (it == open.end()) {
        ++m.unmatchedFrees;
        m.unmatchedFreeBytes -= change;
        continue;
      }
      m.tensors[it->second].freed = c.samples.time[i];
      open.erase(it);
    }
  }
  return m;
}

}  // namespace

bool zeroGradKeepsGradients(const Session& s) {
  for (const Track& track : s.tracks) {
    if (track.kind != EventKind::Nvtx) continue;
    std::vector<std::pair<TimeNs, TimeNs>> zeroGrads;  // in start order, as the track is
    for (size_t e = 0; e < track.size(); ++e) {
      if (s.str(track.hot.name[e]).rfind("Optimizer.zero_grad", 0) == 0)
        zeroGrads.emplace_back(track.hot.start[e], track.hot.end[e]);
    }
    if (zeroGrads.empty()) continue;
    for (size_t e = 0; e < track.size(); ++e) {
      if (s.str(track.hot.name[e]) != "aten::zero_") continue;
      const TimeNs t = track.hot.start[e];
      auto it = std::upper_bound(zeroGrads.begin(), zeroGrads.end(), std::pair(t, INT64_MAX));
      if (it != zeroGrads.begin() && std::prev(it)->second >= t) return true;
    }
  }
  return false;
}

std::vector<MeasuredMemory> measureTensorLifetimes(const Session& s) {
  std::vector<MeasuredMemory> out;
  std::vector<bool> seen(s.devices.size(), false);
  const ModuleStacks modules(s);
  for (const CounterTrack& c : s.counters) {
    if (c.device == kNone || c.device >= s.devices.size() || seen[c.device] ||
        !isAllocatedCounter(c) || c.size() == 0)
      continue;
    seen[c.device] = true;
    MeasuredMemory m = pairRecords(c);
    const OpStacks ops(s, s.devices[c.device].rank);
    for (MeasuredTensor& t : m.tensors) {
      const OpStacks::Open alloc = ops.at(t.allocated);
      const OpStacks::Open free = t.freed == kStillAllocated ? OpStacks::Open{} : ops.at(t.freed);
      t.allocTrack = alloc.track, t.allocEvent = alloc.event;
      if (alloc.track != kNone)
        std::tie(t.moduleTrack, t.moduleEvent) =
            modules.at(s.tracks[alloc.track].thread, t.allocated);
      t.freeTrack = free.track, t.freeEvent = free.event;
      t.kind = classify(s, t, alloc, free);
    }
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(),
            [](const MeasuredMemory& a, const MeasuredMemory& b) { return a.device < b.device; });
  return out;
}

}  // namespace ts
