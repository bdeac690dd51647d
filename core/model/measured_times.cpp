#include "model/measured_times.h"

#include <algorithm>
#include <set>

#include "model/astra_workload.h"

namespace ts::model {

MeasuredTimes measureLayerTimes(const Session& s) {
  MeasuredTimes m;
  const FlowColumns flows = flowsBySource(s);
  // Flows are sorted by (source track, source event): the GPU work an API call launched.
  auto launched = [&](uint32_t track, uint32_t event) {
    int64_t ns = 0;
    const auto& src = flows.srcTrack;
    auto lo = std::lower_bound(src.begin(), src.end(), track) - src.begin();
    auto hi = std::upper_bound(src.begin(), src.end(), track) - src.begin();
    for (auto f = lo; f < hi; ++f) {
      if (flows.srcEvent[static_cast<size_t>(f)] != event) continue;
      const Track& dst = s.tracks[flows.dstTrack[static_cast<size_t>(f)]];
      uint32_t e = flows.dstEvent[static_cast<size_t>(f)];
      if (dst.kind == EventKind::Kernel) ns += dst.hot.end[e] - dst.hot.start[e];
    }
    return ns;
  };
  std::map<std::string, int64_t> forwardCount, backwardCount;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Nvtx || t.thread == kNone) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      auto group = LayerGroup::parse(s.str(t.hot.name[e]));
      if (!group || group->phase == Phase::Update) continue;
      const bool forward = group->phase == Phase::Forward;
      const std::string& layer = group->layer;
      int64_t gpu = 0;
      for (const Track& api : s.tracks) {
        if (api.kind != EventKind::Api || api.thread != t.thread) continue;
        auto apiIndex = static_cast<uint32_t>(&api - s.tracks.data());
        for (uint32_t lane = 0; lane < api.laneCount(); ++lane) {
          LaneSpan span = api.laneRange(lane, t.hot.start[e], t.hot.end[e]);
          for (uint32_t p = span.begin; p < span.end; ++p) {
            uint32_t call = api.laneEvent(lane, p);
            if (api.hot.start[call] >= t.hot.start[e]) gpu += launched(apiIndex, call);
          }
        }
      }
      (forward ? m.forwardNs : m.backwardNs)[layer] += gpu;
      ++(forward ? forwardCount : backwardCount)[layer];
    }
  }
  for (auto& [layer, ns] : m.forwardNs) ns /= forwardCount[layer];
  for (auto& [layer, ns] : m.backwardNs) ns /= backwardCount[layer];
  // Kernels in start order across streams, for the order fallback.
  std::vector<std::pair<TimeNs, int64_t>> ordered;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Kernel) continue;
    for (uint32_t e = 0; e < t.size(); ++e)
      ordered.emplace_back(t.hot.start[e], t.hot.end[e] - t.hot.start[e]);
  }
  std::sort(ordered.begin(), ordered.end());
  for (const auto& [start, ns] : ordered) m.kernelNs.push_back(ns);
  return m;
}

namespace {

// Shares `total` among `kernels` in proportion to their current (roofline) times.
void share(TrainingStep& step, const std::vector<size_t>& kernels, int64_t total) {
  int64_t sum = 0;
  for (size_t k : kernels) sum += step.kernels[k].durationNs;
  if (kernels.empty() || sum <= 0) return;
  int64_t given = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    StepKernel& k = step.kernels[kernels[i]];
    int64_t ns = i + 1 == kernels.size() ? total - given
                                         : static_cast<int64_t>(static_cast<double>(total) *
                                                                static_cast<double>(k.durationNs) /
                                                                static_cast<double>(sum));
    k.durationNs = std::max<int64_t>(ns, 0);
    given += k.durationNs;
  }
}

}  // namespace

MappingReport applyMeasuredTimes(const ModelGraph& g, const MeasuredTimes& m, TrainingStep& step) {
  MappingReport r;
  std::vector<Layer> layers = modelLayers(g, step);
  r.layers = layers.size();
  // Which layer each op belongs to (the same grouping as the ASTRA-sim workload).
  std::vector<int> layerOf(g.ops.size(), 0);
  for (size_t l = 0; l < layers.size(); ++l) {
    for (int op = layers[l].firstOp; op <= layers[l].lastOp; ++op)
      layerOf[static_cast<size_t>(op)] = static_cast<int>(l);
  }
  std::set<std::string> names;
  for (const Layer& l : layers) names.insert(l.name);
  bool any = false;
  std::vector<size_t> untimedUpdates;  // update kernels of layers without their own update time
  for (size_t l = 0; l < layers.size(); ++l) {
    auto f = m.forwardNs.find(layers[l].name), b = m.backwardNs.find(layers[l].name);
    auto u = m.updateNs.find(layers[l].name);
    std::vector<size_t> fwd, bwd, upd;
    for (size_t k = 0; k < step.kernels.size(); ++k) {
      const StepKernel& kernel = step.kernels[k];
      if (kernel.op < 0 || layerOf[static_cast<size_t>(kernel.op)] != static_cast<int>(l)) continue;
      if (kernel.phase == KernelPhase::Forward)
        fwd.push_back(k);
      else if (kernel.phase == KernelPhase::Update)
        upd.push_back(k);
      else
        bwd.push_back(k);
    }
    if (u == m.updateNs.end()) untimedUpdates.insert(untimedUpdates.end(), upd.begin(), upd.end());
    if (f == m.forwardNs.end() && b == m.backwardNs.end() && u == m.updateNs.end()) {
      r.unmapped.push_back(layers[l].name);
      continue;
    }
    any = true;
    ++r.layersMapped;
    if (f != m.forwardNs.end()) share(step, fwd, f->second), ++r.forwardTimed;
    if (b != m.backwardNs.end()) share(step, bwd, b->second), ++r.backwardTimed;
    if (u != m.updateNs.end()) share(step, upd, u->second), ++r.updateTimed;
  }
  if (auto o = m.updateNs.find(kOptimizerLayer); o != m.updateNs.end())
    share(step, untimedUpdates, o->second);
  for (const auto* phase : {&m.forwardNs, &m.backwardNs, &m.updateNs}) {
    for (const auto& [name, ns] : *phase) {
      if (!names.count(name) && name != kOptimizerLayer &&
          std::find(r.unknown.begin(), r.unknown.end(), name) == r.unknown.end())
        r.unknown.push_back(name);
    }
  }
  if (any) {
    r.method = MappingMethod::Nvtx;
    return r;
  }
  // By order: the session's kernels stand for the step's forward kernels (an inference trace) or
  // for its forward and backward kernels, one to one.
  std::vector<size_t> order;
  for (size_t k = 0; k < step.kernels.size(); ++k) {
    if (step.kernels[k].phase == KernelPhase::Forward) order.push_back(k);
  }
  const size_t forwardKernels = order.size();
  if (m.kernelNs.size() != order.size()) {
    for (size_t k = 0; k < step.kernels.size(); ++k) {
      if (step.kernels[k].phase == KernelPhase::BackwardInput ||
          step.kernels[k].phase == KernelPhase::BackwardWeight)
        order.push_back(k);
    }
  }
  if (!m.kernelNs.empty() && m.kernelNs.size() == order.size()) {
    for (size_t i = 0; i < order.size(); ++i)
      step.kernels[order[i]].durationNs = std::max<int64_t>(1, m.kernelNs[i]);
    r.method = MappingMethod::Order;
    r.layersMapped = r.layers;
    r.forwardTimed = r.layers;
    if (order.size() > forwardKernels) r.backwardTimed = r.layers;
    r.unmapped.clear();
    return r;
  }
  r.method = MappingMethod::None;
  return r;
}

}  // namespace ts::model
