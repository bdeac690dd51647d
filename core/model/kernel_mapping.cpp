#include "model/kernel_mapping.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <unordered_map>

#include "io/text_file.h"
#include "model/astra_workload.h"
#include "session/session_summary.h"
#include "util/text.h"

namespace ts::model {

namespace {

constexpr TimeNs kTimeMax = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kTimeMin = std::numeric_limits<TimeNs>::min();

// One kernel of the mapped GPU, with where it was launched from (the API call its flow starts at).
struct Kernel {
  uint32_t track, event;
  TimeNs start, end;
  StringId name;
  uint32_t thread = kNone;  // launching thread, when a flow says
  TimeNs launch = 0;        // the API call's start, else the kernel's start
};

// The annotation ranges (NVTX and other ranges) of a thread that cover a time, outermost first.
class Enclosing {
 public:
  explicit Enclosing(const Session& s) : s_(s) {
    for (uint32_t i = 0; i < s.tracks.size(); ++i) {
      const Track& t = s.tracks[i];
      if ((t.kind == EventKind::Nvtx || t.kind == EventKind::Range) && t.thread != kNone)
        byThread_[t.thread].push_back(i);
    }
  }
  struct Hit {
    uint32_t track, event;
    std::string_view name;
  };
  std::vector<Hit> at(uint32_t thread, TimeNs time) const {
    std::vector<Hit> hits;
    auto it = byThread_.find(thread);
    if (it == byThread_.end()) return hits;
    for (uint32_t ti : it->second) {
      const Track& t = s_.tracks[ti];
      for (uint32_t lane = 0; lane < t.laneCount(); ++lane) {
        uint32_t e = t.eventAt(lane, time);
        if (e != kNone) hits.push_back({ti, e, s_.str(t.hot.name[e])});
      }
    }
    // Outermost first: earlier start, then longer.
    std::sort(hits.begin(), hits.end(), [&](const Hit& a, const Hit& b) {
      const Track& ta = s_.tracks[a.track];
      const Track& tb = s_.tracks[b.track];
      if (ta.hot.start[a.event] != tb.hot.start[b.event])
        return ta.hot.start[a.event] < tb.hot.start[b.event];
      return ta.hot.end[a.event] > tb.hot.end[b.event];
    });
    return hits;
  }

 private:
  const Session& s_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> byThread_;
};

bool isLayerRange(std::string_view name) {
  return LayerGroup::parse(name).has_value();
}

// The operator family of an aten:: op or autograd node name, or of an ONNX op type; "" if none.
std::string family(std::string_view name) {
  std::string n;
  for (char c : name) {
    if (c != '_') n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (auto colon = n.rfind(':'); colon != std::string::npos)
    n = n.substr(colon + 1);  // "aten::", "evaluate_function: "
  while (!n.empty() && n.front() == ' ') n.erase(n.begin());
  if (auto b = n.find("backward"); b != std::string::npos) n = n.substr(0, b);
  const std::pair<const char*, const char*> table[] = {{"conv", "conv"},
                                                       {"addmm", "matmul"},
                                                       {"linear", "matmul"},
                                                       {"matmul", "matmul"},
                                                       {"gemm", "matmul"},
                                                       {"bmm", "matmul"},
                                                       {"relu", "relu"},
                                                       {"threshold", "relu"},
                                                       {"maxpool", "maxpool"},
                                                       {"avgpool", "avgpool"},
                                                       {"averagepool", "avgpool"},
                                                       {"batchnorm", "batchnorm"},
                                                       {"batchnormalization", "batchnorm"},
                                                       {"layernorm", "layernorm"},
                                                       {"dropout", "dropout"},
                                                       {"softmax", "softmax"},
                                                       {"gelu", "gelu"},
                                                       {"embedding", "gather"},
                                                       {"gather", "gather"},
                                                       {"tanh", "tanh"},
                                                       {"sigmoid", "sigmoid"}};
  for (auto [key, fam] : table) {
    if (n.find(key) != std::string::npos) return fam;
  }
  if (n == "mm") return "matmul";
  if (n == "add") return "add";
  if (n == "mul") return "mul";
  return {};
}

bool isAtenOp(std::string_view name) {
  return name.rfind("aten::", 0) == 0 || name.find("Backward") != std::string_view::npos;
}

// Repeated structure: the period p and offset o that let the most kernels be read as two or more
// consecutive equal blocks of p names. O(n · p_max) comparisons over a bounded prefix.
std::vector<std::pair<size_t, size_t>> repeatedBlocks(const std::vector<StringId>& names) {
  const size_t n = std::min<size_t>(names.size(), 20000);
  size_t bestCover = 0, bestP = 0, bestO = 0, bestReps = 0;
  for (size_t p = 3; 2 * p <= n && p <= 5000; ++p) {
    size_t run = 0;
    for (size_t i = 0; i + p < n; ++i) {
      run = names[i] == names[i + p] ? run + 1 : 0;
      if (run < p) continue;
      size_t reps = run / p + 1, cover = reps * p;
      if (cover > bestCover) {
        size_t o = i + 1 - run;
        std::set<StringId> distinct(names.begin() + static_cast<std::ptrdiff_t>(o),
                                    names.begin() + static_cast<std::ptrdiff_t>(o + p));
        if (distinct.size() < 2) continue;
        bestCover = cover, bestP = p, bestO = o, bestReps = reps;
      }
    }
  }
  std::vector<std::pair<size_t, size_t>> blocks;
  for (size_t r = 0; r < bestReps; ++r)
    blocks.emplace_back(bestO + r * bestP, bestO + (r + 1) * bestP);
  return blocks;
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

KernelMapping mapKernels(const Session& s, const ModelGraph& graph, const TrainingStep& step,
                         const MappingOptions& options) {
  KernelMapping m;
  m.method = MappingMethod::None;
  const std::vector<std::string> stepGroups = stepKernelGroups(graph, step);
  for (const std::string& g : stepGroups) {
    if (!g.empty() && std::find(m.groups.begin(), m.groups.end(), g) == m.groups.end())
      m.groups.push_back(g);
  }

  // The busiest GPU and its kernels in start order, with their launches.
  const std::vector<DeviceKernelTime> busy = devicesByKernelTime(s);
  if (busy.empty() || busy.front().ns == 0) return m;
  auto asked = std::find_if(busy.begin(), busy.end(), [&](const DeviceKernelTime& d) {
    return d.device == options.device && d.ns > 0;
  });
  m.device = asked != busy.end() ? options.device : busy.front().device;
  std::unordered_map<uint64_t, size_t> launchOf;  // kernel (track << 32 | event) → flow
  for (size_t f = 0; f < s.flows.srcTrack.size(); ++f) {
    if (s.tracks[s.flows.srcTrack[f]].kind != EventKind::Api) continue;
    launchOf[(uint64_t{s.flows.dstTrack[f]} << 32) | s.flows.dstEvent[f]] = f;
  }
  std::vector<Kernel> all;
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Kernel || t.device != m.device) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      Kernel k{ti, e, t.hot.start[e], t.hot.end[e], t.hot.name[e], kNone, t.hot.start[e]};
      if (auto it = launchOf.find((uint64_t{ti} << 32) | e); it != launchOf.end()) {
        const Track& api = s.tracks[s.flows.srcTrack[it->second]];
        k.thread = api.thread;
        k.launch = api.hot.start[s.flows.srcEvent[it->second]];
      }
      all.push_back(k);
    }
  }
  std::sort(all.begin(), all.end(), [](const Kernel& a, const Kernel& b) {
    return std::tie(a.start, a.track, a.event) < std::tie(b.start, b.track, b.event);
  });
  Enclosing enclosing(s);

  // Iterations, as lists of kernel positions in `all`.
  std::vector<std::vector<size_t>> iterations;
  // Kernels by the range (sorted, not overlapping) their launch falls in: one binary search each.
  auto byLaunch = [&](const std::vector<TimeRange>& ranges) {
    std::vector<std::vector<size_t>> members(ranges.size());
    for (size_t i = 0; i < all.size(); ++i) {
      auto after = std::upper_bound(ranges.begin(), ranges.end(), all[i].launch,
                                    [](TimeNs t, const TimeRange& r) { return t < r.start; });
      if (after == ranges.begin()) continue;
      const TimeRange& r = *std::prev(after);
      if (all[i].launch < r.end)
        members[static_cast<size_t>(std::prev(after) - ranges.begin())].push_back(i);
    }
    for (auto& list : members) {
      if (!list.empty()) iterations.push_back(std::move(list));
    }
  };
  // Annotation ranges by name across threads, in start order.
  auto rangesNamed = [&](auto match) {
    std::vector<TimeRange> ranges;
    for (const Track& t : s.tracks) {
      if (t.kind != EventKind::Nvtx && t.kind != EventKind::Range) continue;
      for (uint32_t e = 0; e < t.size(); ++e) {
        if (match(s.str(t.hot.name[e]))) ranges.push_back({t.hot.start[e], t.hot.end[e]});
      }
    }
    std::sort(ranges.begin(), ranges.end(),
              [](const TimeRange& a, const TimeRange& b) { return a.start < b.start; });
    return ranges;
  };
  if (options.iteration) {
    std::vector<size_t> members;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].start >= options.iteration->start && all[i].start < options.iteration->end)
        members.push_back(i);
    }
    m.iterationSource = "your range";
    if (members.empty()) {  // nothing to map: said as it is, not replaced by a guess
      m.iterations = {*options.iteration};
      return m;
    }
    iterations.push_back(std::move(members));
  }
  if (m.iterationSource.empty()) {
    auto layerRanges = rangesNamed([](std::string_view n) { return n.rfind("forward/", 0) == 0; });
    if (!layerRanges.empty()) {
      // Each repetition of the first forward layer starts an iteration.
      std::string first;
      for (const Track& t : s.tracks) {
        if (t.kind != EventKind::Nvtx) continue;
        for (uint32_t e = 0; e < t.size(); ++e) {
          if (t.hot.start[e] == layerRanges.front().start &&
              s.str(t.hot.name[e]).rfind("forward/", 0) == 0)
            first = s.str(t.hot.name[e]);
        }
      }
      auto starts = rangesNamed([&](std::string_view n) { return n == first; });
      std::vector<TimeRange> its;
      for (size_t i = 0; i < starts.size(); ++i)
        its.push_back({starts[i].start, i + 1 < starts.size() ? starts[i + 1].start : kTimeMax});
      if (its.size() > 1) {
        byLaunch(its);
        m.iterationSource = "NVTX layer ranges";
      }
    }
  }
  if (m.iterationSource.empty()) {
    auto steps = rangesNamed([](std::string_view n) { return n.rfind("ProfilerStep#", 0) == 0; });
    if (!steps.empty()) {
      byLaunch(steps);
      m.iterationSource = "profiler steps";
    }
  }
  if (m.iterationSource.empty()) {
    std::vector<StringId> names;
    for (const Kernel& k : all) names.push_back(k.name);
    for (auto [b, e] : repeatedBlocks(names)) {
      std::vector<size_t> members;
      for (size_t i = b; i < e; ++i) members.push_back(i);
      iterations.push_back(std::move(members));
    }
    if (!iterations.empty()) m.iterationSource = "repeated kernels";
  }
  if (iterations.empty()) {
    std::vector<size_t> members(all.size());
    for (size_t i = 0; i < all.size(); ++i) members[i] = i;
    iterations.push_back(std::move(members));
    m.iterationSource = "whole session";
  }
  for (const auto& it : iterations) {
    TimeRange r{kTimeMax, kTimeMin};
    for (size_t i : it)
      r.start = std::min(r.start, all[i].start), r.end = std::max(r.end, all[i].end);
    m.iterations.push_back(r);
  }
  m.iteration = m.iterations.size() - 1;
  const std::vector<size_t>& mine = iterations.back();
  for (size_t i : mine)
    m.kernels.push_back({all[i].track, all[i].event, {}, {}, all[i].end - all[i].start});

  // 1. NVTX layer ranges around the launch.
  bool anyNvtx = false, anyAten = false;
  for (size_t j = 0; j < mine.size(); ++j) {
    const Kernel& k = all[mine[j]];
    if (k.thread == kNone) continue;
    auto hits = enclosing.at(k.thread, k.launch);
    for (auto h = hits.rbegin(); h != hits.rend(); ++h) {  // the deepest layer range
      if (isLayerRange(h->name)) {
        m.kernels[j].group = std::string(h->name);
        m.kernels[j].by = MappingMethod::Nvtx;
        anyNvtx = true;
        break;
      }
    }
  }
  // 2. aten:: op ranges: occurrences per family matched to the model's ops of that family.
  if (!anyNvtx) {
    std::map<std::string, std::vector<int>> forwardOps;  // family → ops in graph order
    for (size_t op = 0; op < graph.ops.size(); ++op) {
      std::string f = family(graph.ops[op].type);
      if (!f.empty()) forwardOps[f].push_back(static_cast<int>(op));
    }
    std::vector<std::string> layerOfOp(graph.ops.size());
    for (const Layer& layer : modelLayers(graph, step)) {
      for (int op = layer.firstOp; op <= layer.lastOp && op < static_cast<int>(layerOfOp.size());
           ++op)
        layerOfOp[static_cast<size_t>(op)] = layer.name;
    }
    std::map<uint64_t, std::string> groupOfRange;  // an aten range → its group, on first sight
    std::map<std::string, size_t> seenForward, seenBackward;
    for (size_t j = 0; j < mine.size(); ++j) {
      const Kernel& k = all[mine[j]];
      if (k.thread == kNone) continue;
      for (const auto& h : enclosing.at(k.thread, k.launch)) {  // the outermost op
        if (!isAtenOp(h.name)) continue;
        uint64_t key = (uint64_t{h.track} << 32) | h.event;
        auto known = groupOfRange.find(key);
        if (known == groupOfRange.end()) {
          std::string f = family(h.name), group;
          bool backward = h.name.find("Backward") != std::string_view::npos;
          auto ops = forwardOps.find(f);
          if (!f.empty() && ops != forwardOps.end()) {
            size_t n = backward ? seenBackward[f]++ : seenForward[f]++;
            if (n < ops->second.size()) {
              int op = backward ? ops->second[ops->second.size() - 1 - n] : ops->second[n];
              if (!layerOfOp[static_cast<size_t>(op)].empty())
                group = (backward ? "backward/" : "forward/") + layerOfOp[static_cast<size_t>(op)];
            }
          }
          known = groupOfRange.emplace(key, group).first;
        }
        if (!known->second.empty()) {
          m.kernels[j].group = known->second;
          m.kernels[j].by = MappingMethod::Aten;
          anyAten = true;
        }
        break;
      }
    }
  }
  // 3. By order, one to one with the step's forward (or forward and backward) kernels.
  bool byOrder = false;
  if (!anyNvtx && !anyAten) {
    std::vector<size_t> order;
    for (size_t k = 0; k < step.kernels.size(); ++k) {
      if (step.kernels[k].phase == KernelPhase::Forward) order.push_back(k);
    }
    if (mine.size() != order.size()) {
      for (size_t k = 0; k < step.kernels.size(); ++k) {
        if (step.kernels[k].phase == KernelPhase::BackwardInput ||
            step.kernels[k].phase == KernelPhase::BackwardWeight)
          order.push_back(k);
      }
    }
    if (!mine.empty() && mine.size() == order.size()) {
      byOrder = true;
      for (size_t j = 0; j < mine.size(); ++j) {
        m.kernels[j].group = stepGroups[order[j]];
        m.kernels[j].by = MappingMethod::Order;
      }
    }
  }
  m.method = anyNvtx   ? MappingMethod::Nvtx
             : anyAten ? MappingMethod::Aten
             : byOrder ? MappingMethod::Order
                       : MappingMethod::None;
  // 4. The user's corrections, by kernel name.
  bool corrected = false;
  if (!options.corrections.empty()) {
    for (size_t j = 0; j < mine.size(); ++j) {
      auto c = options.corrections.find(std::string(s.str(all[mine[j]].name)));
      if (c == options.corrections.end()) continue;
      m.kernels[j].group = c->second;
      m.kernels[j].by = c->second.empty() ? MappingMethod::None : MappingMethod::User;
      corrected = true;
    }
  }

  // Coverage, the unmapped kernels by name, and the measured times per layer.
  std::map<std::string, KernelMapping::Unmapped> unmapped;
  for (size_t j = 0; j < mine.size(); ++j) {
    const Kernel& k = all[mine[j]];
    int64_t ns = k.end - k.start;
    m.totalNs += ns;
    m.times.kernelNs.push_back(ns);
    const std::string& g = m.kernels[j].group;
    if (g.empty()) {
      auto& u = unmapped[std::string(s.str(k.name))];
      u.name = s.str(k.name);
      ++u.count;
      u.ns += ns;
      continue;
    }
    m.mappedNs += ns;
    if (auto group = LayerGroup::parse(g); group && group->phase == Phase::Forward)
      m.times.forwardNs[group->layer] += ns;
    else if (group && group->phase == Phase::Backward)
      m.times.backwardNs[group->layer] += ns;
  }
  for (auto& [name, u] : unmapped) m.unmapped.push_back(std::move(u));
  std::sort(m.unmapped.begin(), m.unmapped.end(), [](const auto& a, const auto& b) {
    return a.ns > b.ns || (a.ns == b.ns && a.name < b.name);
  });
  // By order, the kernels keep their own times (applyMeasuredTimes' order path); otherwise, layers.
  if (byOrder && !corrected) {
    m.times.forwardNs.clear();
    m.times.backwardNs.clear();
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
