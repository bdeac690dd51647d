#include "model/kernel_mapping.h"

#include <algorithm>

#include "io/text_file.h"
#include "model/astra_workload.h"
#include "model/launch_context.h"
#include "model/op_mapping.h"
#include "session/session_summary.h"
#include "util/text.h"

namespace ts::model {

namespace {

bool isLayerRange(std::string_view name) {
  return LayerGroup::parse(name).has_value();
}

}  // namespace

std::vector<std::string> stepKernelGroups(const ModelGraph& graph, const TrainingStep& step) {
  std::vector<std::string> layerOfOp(graph.ops.size());
  for (const Layer& layer : modelLayers(graph, step)) {
    for (int op = layer.firstOp; op <= layer.lastOp && op < static_cast<int>(layerOfOp.size());
         ++op)
      layerOfOp[static_cast<size_t>(op)] = layer.name;
  }
  std::vector<std::string> groups;
  for (const StepKernel& k : step.kernels) {
    if (k.op < 0 || k.op >= static_cast<int>(layerOfOp.size()) ||
        layerOfOp[static_cast<size_t>(k.op)].empty()) {
      groups.emplace_back();
      continue;
    }
    groups.push_back(LayerGroup{phaseOf(k.phase), layerOfOp[static_cast<size_t>(k.op)]}.text());
  }
  return groups;
}

namespace {

// 1. NVTX layer ranges around the launch: the deepest one names the group.
bool mapByNvtx(const std::vector<LaunchedKernel>& mine, const EnclosingRanges& enclosing,
               KernelMapping& m) {
  bool any = false;
  for (size_t j = 0; j < mine.size(); ++j) {
    if (mine[j].thread == kNone) continue;
    auto hits = enclosing.at(mine[j].thread, mine[j].launch);
    for (auto h = hits.rbegin(); h != hits.rend(); ++h) {
      if (isLayerRange(h->name)) {
        m.kernels[j].group = std::string(h->name);
        m.kernels[j].by = MappingMethod::Nvtx;
        m.kernels[j].certainty = Certainty::Stated;
        any = true;
        break;
      }
    }
  }
  return any;
}

// 3. By order, one to one with the step's forward (or forward and backward) kernels.
bool mapByOrder(const TrainingStep& step, const std::vector<std::string>& stepGroups,
                KernelMapping& m) {
  std::vector<size_t> order;
  for (size_t k = 0; k < step.kernels.size(); ++k) {
    if (step.kernels[k].phase == KernelPhase::Forward) order.push_back(k);
  }
  if (m.kernels.size() != order.size()) {
    for (size_t k = 0; k < step.kernels.size(); ++k) {
      if (step.kernels[k].phase == KernelPhase::BackwardInput ||
          step.kernels[k].phase == KernelPhase::BackwardWeight)
        order.push_back(k);
    }
  }
  if (m.kernels.empty() || m.kernels.size() != order.size()) return false;
  for (size_t j = 0; j < m.kernels.size(); ++j) {
    m.kernels[j].group = stepGroups[order[j]];
    m.kernels[j].by = MappingMethod::Order;
    m.kernels[j].certainty = m.kernels[j].group.empty() ? Certainty::None : Certainty::Order;
  }
  return true;
}

// Coverage, the unmapped kernels by name, and the measured times per layer.
void summarise(const Session& s, KernelMapping& m) {
  std::map<std::string, KernelMapping::Unmapped> unmapped;
  for (const MappedKernel& k : m.kernels) {
    const Track& t = s.tracks[k.track];
    m.totalNs += k.ns;
    m.times.kernelNs.push_back(k.ns);
    if (k.group.empty()) {
      std::string name(s.str(t.hot.name[k.event]));
      auto& u = unmapped[name];
      u.name = name;
      ++u.count;
      u.ns += k.ns;
      continue;
    }
    (k.certainty == Certainty::Guess ? m.guessedNs : m.mappedNs) += k.ns;
    if (isChecked(k.certainty)) m.checkedNs += k.ns;
    auto group = LayerGroup::parse(k.group);
    if (!group) continue;
    switch (group->phase) {
      case Phase::Forward:
        m.times.forwardNs[group->layer] += k.ns;
        break;
      case Phase::Backward:
        m.times.backwardNs[group->layer] += k.ns;
        break;
      case Phase::Update:
        m.times.updateNs[group->layer] += k.ns;
        break;
    }
  }
  for (auto& [name, u] : unmapped) m.unmapped.push_back(std::move(u));
  std::sort(m.unmapped.begin(), m.unmapped.end(), [](const auto& a, const auto& b) {
    return a.ns > b.ns || (a.ns == b.ns && a.name < b.name);
  });
}

}  // namespace

KernelMapping mapKernels(const Session& s, const ModelGraph& graph, const TrainingStep& step,
                         const MappingOptions& options) {
  KernelMapping m;
  const std::vector<std::string> stepGroups = stepKernelGroups(graph, step);
  for (const std::string& g : stepGroups) {
    if (!g.empty() && std::find(m.groups.begin(), m.groups.end(), g) == m.groups.end())
      m.groups.push_back(g);
  }

  // The GPU asked for, else the busiest, and its kernels in start order with their launches.
  const std::vector<DeviceKernelTime> busy = devicesByKernelTime(s);
  if (busy.empty() || busy.front().ns == 0) return m;
  auto asked = std::find_if(busy.begin(), busy.end(), [&](const DeviceKernelTime& d) {
    return d.device == options.device && d.ns > 0;
  });
  m.device = asked != busy.end() ? options.device : busy.front().device;
  const std::vector<LaunchedKernel> all = launchedKernels(s, m.device);

  KernelIterations its = findIterations(s, all, options.iteration);
  m.iterationSource = its.source;
  m.iterations = its.ranges;
  if (its.members.empty()) return m;  // the range asked for holds no kernel
  m.iteration =
      std::min(options.iterationIndex.value_or(its.members.size() - 1), its.members.size() - 1);
  std::vector<LaunchedKernel> mine;
  for (size_t i : its.members[m.iteration]) {
    mine.push_back(all[i]);
    m.kernels.push_back({all[i].track, all[i].event, {}, {}, {}, all[i].end - all[i].start});
  }

  const EnclosingRanges enclosing(s);
  bool byOrder = false;
  if (mapByNvtx(mine, enclosing, m)) {
    m.method = MappingMethod::Nvtx;
  } else {
    std::vector<OpMatch> matches = mapByOps(graph, step, mine, enclosing);
    bool anyMatch = false;
    for (size_t j = 0; j < matches.size(); ++j) {
      if (matches[j].group.empty()) continue;
      m.kernels[j].group = std::move(matches[j].group);
      m.kernels[j].by = MappingMethod::Aten;
      m.kernels[j].certainty = matches[j].certainty;
      anyMatch = true;
    }
    if (anyMatch) {
      m.method = MappingMethod::Aten;
    } else if (mapByOrder(step, stepGroups, m)) {
      m.method = MappingMethod::Order;
      byOrder = true;
    }
  }
  // 4. The user's corrections, by kernel name.
  bool corrected = false;
  for (size_t j = 0; j < mine.size() && !options.corrections.empty(); ++j) {
    auto c = options.corrections.find(std::string(s.str(mine[j].name)));
    if (c == options.corrections.end()) continue;
    m.kernels[j].group = c->second;
    m.kernels[j].by = c->second.empty() ? MappingMethod::None : MappingMethod::User;
    m.kernels[j].certainty = c->second.empty() ? Certainty::None : Certainty::Stated;
    corrected = true;
  }

  summarise(s, m);
  // By order, the kernels keep their own times (applyMeasuredTimes' order path); otherwise, layers.
  if (byOrder && !corrected) {
    m.times.forwardNs.clear();
    m.times.backwardNs.clear();
    m.times.updateNs.clear();
  } else {
    m.times.kernelNs.clear();
  }
  if (m.method == MappingMethod::None && corrected) m.method = MappingMethod::User;
  return m;
}

Result<std::map<std::string, std::string>> loadCorrections(const std::string& path) {
  auto file = readTextFile(path);
  if (!file) return file.failure();
  std::map<std::string, std::string> c;
  const std::vector<std::string_view> lines = splitLines(file->view());
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.empty() || line[0] == '#') continue;
    size_t tab = line.find('\t');
    if (tab == std::string::npos)
      return Error{atLine(path, i + 1) + "expected 'kernel name<TAB>group'"};
    std::string group(line.substr(tab + 1));
    if (!group.empty() && !isLayerRange(group)) {
      return Error{atLine(path, i + 1) + "group '" + group +
                   "' is not forward/<layer>, backward/<layer> or update/<layer>"};
    }
    c[std::string(line.substr(0, tab))] = group;
  }
  return c;
}

}  // namespace ts::model
