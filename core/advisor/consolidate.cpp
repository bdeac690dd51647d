#include "advisor/consolidate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/gpu_ops.h"
#include "session/op_inputs.h"
#include "util/format.h"

namespace ts::advisor {

namespace {

std::string kindOfKernel(std::string_view name) {
  const std::pair<const char*, const char*> kinds[] = {
      {"AllReduce", "all_reduce"}, {"AllGather", "all_gather"}, {"ReduceScatter", "reduce_scatter"},
      {"Broadcast", "broadcast"},  {"SendRecv", "send_recv"},   {"AllToAll", "all_to_all"}};
  for (const auto& [in, kind] : kinds) {
    if (name.find(in) != std::string_view::npos) return kind;
  }
  return "other";
}

int64_t elementBytes(std::string_view type) {
  if (type == "double" || type == "long int" || type == "long" || type == "int64") return 8;
  if (type == "c10::Half" || type == "Half" || type == "c10::BFloat16" || type == "BFloat16" ||
      type == "short")
    return 2;
  if (type == "bool" || type == "signed char" || type == "unsigned char" || type == "int8")
    return 1;
  return 4;  // float, int
}

struct Annotation {
  TimeNs start, end;
  std::string kind;
  std::optional<int64_t> bytes;
};

}  // namespace

std::vector<Collective> collectivesOf(const Session& s, const LaunchIndex& launches) {
  // The "nccl:<collective>" annotations per thread, by start, with their recorded sizes.
  std::map<uint32_t, std::vector<Annotation>> byThread;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Nvtx || t.thread == kNone) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      const std::string_view name = s.str(t.hot.name[e]);
      if (!name.starts_with("nccl:")) continue;
      // PyTorch's names: "_all_gather_base" is an all-gather, "_reduce_scatter_base" a
      // reduce-scatter.
      std::string kind(name.substr(5));
      if (kind.starts_with("_")) kind.erase(0, 1);
      if (kind.ends_with("_base")) kind.resize(kind.size() - 5);
      Annotation a{t.hot.start[e], t.hot.end[e], kind, std::nullopt};
      int64_t bytes = 0;
      for (const OpInput& in : parseOpInputs(s.str(t.nvtx.inputs[e]))) {
        if (in.dims.empty()) continue;
        int64_t n = 1;
        for (int64_t d : in.dims) n *= std::max<int64_t>(d, 0);
        bytes += n * elementBytes(in.type);
      }
      if (bytes > 0) a.bytes = bytes;
      byThread[t.thread].push_back(std::move(a));
    }
  }
  for (auto& [thread, list] : byThread)
    std::sort(list.begin(), list.end(),
              [](const Annotation& a, const Annotation& b) { return a.start < b.start; });
  std::vector<Collective> out;
  for (uint32_t ti = 0; ti < s.tracks.size(); ++ti) {
    const Track& t = s.tracks[ti];
    if (t.kind != EventKind::Kernel) continue;
    for (uint32_t e = 0; e < t.size(); ++e) {
      const std::string_view name = s.str(t.hot.name[e]);
      if (opTypeOf(t.kind, name) != OpType::Communication) continue;
      Collective c;
      c.rank = rankOfTrack(s, t);
      c.start = t.hot.start[e];
      c.duration = t.hot.end[e] - t.hot.start[e];
      c.kind = kindOfKernel(name);
      c.tree = name.find("TREE") != std::string_view::npos;
      // The annotation around the call that launched it.
      const LaunchRef l = launches.launchOf(ti, e);
      if (l.known()) {
        const Track& call = s.tracks[l.track];
        const TimeNs at = call.hot.start[l.event];
        auto it = byThread.find(call.thread);
        if (it != byThread.end()) {
          const auto& list = it->second;
          auto after =
              std::upper_bound(list.begin(), list.end(), at,
                               [](TimeNs t0, const Annotation& a) { return t0 < a.start; });
          // The innermost annotation holding the call: the latest start before it that ends
          // after it.
          for (auto a = after; a != list.begin();) {
            --a;
            if (a->end < at) continue;
            c.kind = a->kind;
            c.bytes = a->bytes;
            break;
          }
        }
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::optional<AlphaBeta> fitAlphaBeta(const std::vector<Collective>& collectives) {
  std::vector<std::pair<double, double>> xy;
  for (const Collective& c : collectives) {
    if (c.bytes && *c.bytes > 0 && c.duration > 0)
      xy.emplace_back(static_cast<double>(*c.bytes), static_cast<double>(c.duration));
  }
  if (xy.empty()) return std::nullopt;
  AlphaBeta f;
  f.samples = xy.size();
  double mx = 0, my = 0;
  for (auto [x, y] : xy) mx += x, my += y;
  mx /= static_cast<double>(xy.size()), my /= static_cast<double>(xy.size());
  double sxx = 0, sxy = 0, syy = 0;
  for (auto [x, y] : xy)
    sxx += (x - mx) * (x - mx), sxy += (x - mx) * (y - my), syy += (y - my) * (y - my);
  if (sxx > 0) {
    f.nsPerByte = std::max(0.0, sxy / sxx);
    f.interceptNs = std::max(0.0, my - f.nsPerByte * mx);
  } else {  // one size only: latency and bandwidth cannot be told apart; all of it bandwidth
    f.nsPerByte = my / mx;
    f.interceptNs = 0;
  }
  double err = 0, residual = 0;
  for (auto [x, y] : xy) {
    const double p = f.predictNs(x);
    err += std::fabs(p - y) / y;
    residual += (p - y) * (p - y);
  }
  f.meanAbsErrorPct = 100 * err / static_cast<double>(xy.size());
  f.r2 = syy > 0 ? 1 - residual / syy : 1;
  return f;
}

double ringFactor(std::string_view kind) {
  return kind == "all_reduce" ? 2.0 : 1.0;
}

CollectiveShape collectiveShape(std::string_view kind, bool tree, int ranks) {
  const double n = std::max(ranks, 1);
  if (tree && kind == "all_reduce") return {2 * std::ceil(std::log2(n)), 2};
  const double f = ringFactor(kind);
  return {f * (n - 1), f * (n - 1) / n};
}

std::string fitKey(const Collective& c) {
  return c.treeAllReduce() ? c.kind + "/tree" : c.kind;
}

std::optional<Link> intraNodeLink(std::string_view name) {
  const std::map<std::string, Link, std::less<>> links = {
      {"nvlink2", {"NVLink 2 (V100)", 150e9, 5'000}},
      {"nvlink3", {"NVLink 3 (A100)", 300e9, 5'000}},
      {"nvlink4", {"NVLink 4 (H100)", 450e9, 5'000}},
      {"pcie3", {"PCIe 3.0 x16", 12e9, 10'000}},
      {"pcie4", {"PCIe 4.0 x16", 25e9, 10'000}},
      {"pcie5", {"PCIe 5.0 x16", 50e9, 10'000}}};
  auto it = links.find(name);
  return it == links.end() ? std::nullopt : std::optional(it->second);
}

std::optional<Link> interNodeLink(std::string_view name) {
  const std::map<std::string, Link, std::less<>> links = {
      {"25g", {"25 Gb/s Ethernet", 25e9 / 8, 20'000}},
      {"100g", {"100 Gb/s", 100e9 / 8, 10'000}},
      {"200g", {"200 Gb/s", 200e9 / 8, 10'000}},
      {"400g", {"400 Gb/s", 400e9 / 8, 10'000}}};
  auto it = links.find(name);
  return it == links.end() ? std::nullopt : std::optional(it->second);
}

size_t sizeFromGradients(std::vector<Collective>& collectives, const Diagnosis& d,
                         int64_t gradientBytes) {
  if (gradientBytes <= 0) return 0;
  // Each rank's steps by GPU stretch, to place a collective in its step (-1: outside them all).
  std::map<uint32_t, std::vector<std::pair<TimeNs, TimeNs>>> stretches;
  for (const Step& st : d.steps.steps) stretches[st.rank].emplace_back(st.gpuFrom, st.gpuEnd);
  for (auto& [rank, list] : stretches) std::sort(list.begin(), list.end());
  std::map<std::pair<uint32_t, int64_t>, std::vector<size_t>> groups;
  for (size_t i = 0; i < collectives.size(); ++i) {
    const Collective& c = collectives[i];
    if (c.bytes || c.kind != "all_reduce") continue;
    int64_t step = -1;
    if (auto it = stretches.find(c.rank); it != stretches.end()) {
      const auto& list = it->second;
      auto after =
          std::upper_bound(list.begin(), list.end(), std::pair<TimeNs, TimeNs>{c.start, INT64_MAX});
      if (after != list.begin() && c.start < std::prev(after)->second)
        step = std::prev(after) - list.begin();
    }
    groups[{c.rank, step}].push_back(i);
  }
  size_t sized = 0;
  for (const auto& [key, members] : groups) {
    const int64_t each = std::max<int64_t>(1, gradientBytes / static_cast<int64_t>(members.size()));
    for (size_t i : members) collectives[i].bytes = each;
    sized += members.size();
  }
  return sized;
}

Result<ConsolidationPlan> planConsolidation(const Session& s, const Diagnosis& d,
                                            const LaunchIndex& launches,
                                            const ConsolidationInput& in) {
  const size_t ranks = std::max<size_t>(s.ranks.size(), 1);
  const bool noHost =
      std::all_of(in.hosts.begin(), in.hosts.end(), [](const std::string& h) { return h.empty(); });
  if (in.hosts.size() < ranks || noHost)
    return Error{"the session's ranks name no machine: give each rank's (0=nodeA, 1=nodeB, …)"};
  for (size_t r = 0; r < ranks; ++r) {
    if (in.hosts[r].empty())
      return Error{"rank " + std::to_string(rankNumberOf(s, static_cast<uint32_t>(r))) +
                   " names no machine: give it (RANK=HOST)"};
  }
  if (in.gpusPerNode < 1) return Error{"a machine holds at least one GPU"};
  std::vector<Collective> collectives = collectivesOf(s, launches);
  if (collectives.empty())
    return Error{
        "no communication kernels (nccl*) in the session: nothing that fewer machines "
        "would change"};
  // The trace's own sizes win; a model's gradients size the all-reduces only when it has none.
  std::string gradientNote;
  const bool allReduceSized =
      std::any_of(collectives.begin(), collectives.end(),
                  [](const auto& c) { return c.kind == "all_reduce" && c.bytes.has_value(); });
  if (in.gradientBytes > 0 && allReduceSized) {
    gradientNote = "the trace records its all-reduces' sizes: the gradients of " +
                   in.gradientSource + " were not needed";
  } else if (in.gradientBytes > 0) {
    if (size_t n = sizeFromGradients(collectives, d, in.gradientBytes); n > 0) {
      gradientNote = "the trace records no all-reduce sizes: " + std::to_string(n) +
                     " all-reduces sized from the gradients of " + in.gradientSource + " (" +
                     formatBytes(static_cast<uint64_t>(in.gradientBytes)) +
                     " a step, shared evenly by each step's all-reduces, as DDP's buckets)";
    }
  }
  // Each kind apart (an all-gather moves half an all-reduce's bytes per rank), a tree apart from
  // a ring.
  std::map<std::string, std::vector<Collective>> byKind;
  for (const Collective& c : collectives) byKind[fitKey(c)].push_back(c);
  std::map<std::string, AlphaBeta> fits;
  std::optional<AlphaBeta> fit;
  std::string fitKind;
  for (const auto& [kind, list] : byKind) {
    auto f = fitAlphaBeta(list);
    if (!f) continue;
    fits[kind] = *f;
    if (!fit || f->samples > fit->samples) fit = f, fitKind = kind;
  }
  if (!fit)
    return Error{
        "the trace records no collective sizes (nccl:<collective> annotations with "
        "input shapes: record_shapes=True) to calibrate the α-β model on; a model's gradients "
        "can size its all-reduces"};
  ConsolidationPlan p;
  if (!gradientNote.empty()) p.assumptions.push_back(gradientNote);
  p.fit = *fit;
  p.fitKind = fitKind;
  p.fitByKind = fits;
  // The job's size: as given, else as its traces state it (a session may hold a sample of the
  // ranks), else the ranks the session holds.
  const int held = static_cast<int>(ranks), traced = s.provenance.worldSize;
  p.world = in.world > 0 ? in.world : traced >= held ? traced : held;
  if (in.world > 0 && traced > 0 && in.world != traced) {
    p.assumptions.push_back("a job of " + std::to_string(in.world) +
                            " ranks, as given; its traces say " + std::to_string(traced) +
                            " (distributedInfo.world_size)");
  } else if (in.world == 0 && traced > held) {
    p.assumptions.push_back("a job of " + std::to_string(traced) +
                            " ranks, as its traces say (distributedInfo.world_size); the session "
                            "holds " +
                            std::to_string(held) + " of them");
  }
  if (p.world < 2)
    return Error{
        "a single rank: consolidation moves a job of two or more ranks (open all its "
        "ranks together, or give the job's rank count)"};
  const std::set<std::string> distinct(in.hosts.begin(),
                                       in.hosts.begin() + static_cast<long>(ranks));
  p.hostsNow = static_cast<int>(distinct.size());
  if (in.nodesNow > 0) {
    p.hostsNow = in.nodesNow;
  } else if (p.world > static_cast<int>(ranks)) {
    // The other ranks' machines are unknown: the machines named are a floor, and a layout that
    // needs more than them says nothing about moving onto fewer.
    const int64_t fewest = (int64_t{p.world} + in.gpusPerNode - 1) / in.gpusPerNode;
    if (in.machinesAfter == 0 && fewest > p.hostsNow) {
      return Error{"the job's " + std::to_string(p.world) + " ranks need at least " +
                   std::to_string(fewest) + " machines of " + std::to_string(in.gpusPerNode) +
                   (in.gpusPerNode == 1 ? " GPU" : " GPUs") + ", more than the " +
                   std::to_string(p.hostsNow) + " that the session's " + std::to_string(ranks) +
                   " ranks name (the others' machines are unknown): say how many machines it "
                   "runs on now"};
    }
    p.assumptions.push_back("the session holds " + std::to_string(ranks) + " of " +
                            std::to_string(p.world) + " ranks: the job is taken to run on the " +
                            std::to_string(p.hostsNow) +
                            " machines they name (say how many it runs on now, if more)");
  }
  p.hostsAfter =
      in.machinesAfter > 0 ? in.machinesAfter : (p.world + in.gpusPerNode - 1) / in.gpusPerNode;
  if (p.hostsAfter > p.world)
    return Error{std::to_string(p.hostsAfter) + " machines for " + std::to_string(p.world) +
                 " ranks: more machines than ranks"};
  if (static_cast<int64_t>(p.hostsAfter) * in.gpusPerNode < p.world)
    return Error{std::to_string(p.hostsAfter) + (p.hostsAfter == 1 ? " machine" : " machines") +
                 " of " + std::to_string(in.gpusPerNode) +
                 (in.gpusPerNode == 1 ? " GPU" : " GPUs") + " cannot hold the job's " +
                 std::to_string(p.world) + " ranks"};
  const double n = p.world;
  const std::vector<Collective>& headline = byKind.at(fitKind);
  const CollectiveShape shapeNow =
      collectiveShape(headline.front().kind, headline.front().tree, p.world);
  if (n > 1 && p.fit.nsPerByte > 0) {
    p.ringBandwidthNow = shapeNow.bandwidthShare / (p.fit.nsPerByte * 1e-9);
    p.ringLatencyNow = p.fit.interceptNs / shapeNow.hops;
  }
  // The collectives after the move, each with its algorithm: on one machine over the intra-node
  // link; on several they still cross machines, over the link given for them or the one the run
  // got.
  auto modelled = [&](const Link& link, double bytes, const CollectiveShape& shape) {
    return shape.hops * link.latencyNs + shape.bandwidthShare * bytes / link.bytesPerSecond * 1e9;
  };
  const bool changes = p.hostsAfter != p.hostsNow || in.inter.has_value();
  double now = 0, after = 0;
  for (const Collective& c : collectives) {
    auto kindFit = fits.find(fitKey(c));
    if (!c.bytes || kindFit == fits.end()) continue;
    const double bytes = static_cast<double>(*c.bytes);
    const CollectiveShape shape = collectiveShape(c.kind, c.tree, p.world);
    const double t = kindFit->second.predictNs(bytes);
    now += t;
    if (!changes || n <= 1)
      after += t;
    else if (p.hostsAfter == 1)
      after += modelled(in.intra, bytes, shape);
    else if (in.inter)
      after += modelled(*in.inter, bytes, shape);
    else
      after += t;
  }
  p.commRatio = now > 0 ? after / now : 1;
  if (p.hostsAfter != p.hostsNow) {
    for (size_t r = 0; r < ranks; ++r) {
      const int32_t number = rankNumberOf(s, static_cast<uint32_t>(r));
      // Ranks spread evenly: as many a machine as the layout needs.
      const int perMachine = (p.world + p.hostsAfter - 1) / p.hostsAfter;
      p.moves.emplace_back(number, number / perMachine);
    }
  }
  if (p.hostsAfter > 1 && p.hostsAfter != p.hostsNow && !in.inter)
    p.assumptions.push_back("on " + std::to_string(p.hostsAfter) +
                            " machines the ring still crosses machines: its bandwidth, and so the "
                            "collectives' time, is taken as unchanged");
  if (in.inter && p.hostsAfter > 1)
    p.assumptions.push_back("between machines the ring runs over " + in.inter->name +
                            " instead of what the run got");
  if (in.inter && p.hostsAfter == 1)
    p.assumptions.push_back("on one machine no link between machines is used: " + in.inter->name +
                            " plays no part");
  if (changes && !(p.ringBandwidthNow > 0))
    p.assumptions.push_back(
        "the run's collectives show no bandwidth (their times do not grow "
        "with their sizes: mostly waiting), so the saving compares a modelled "
        "link with measured waiting and is uncertain");
  // Per step: time and exposed communication, averaged over the diagnosis's steps.
  const std::vector<Step>& steps = d.steps.steps;
  if (!steps.empty()) {
    double step = 0, exposed = 0;
    for (const Step& st : steps)
      step += static_cast<double>(st.duration()),
          exposed += static_cast<double>(st.exposedCommunication);
    p.stepNow = static_cast<TimeNs>(std::llround(step / static_cast<double>(steps.size())));
    p.exposedNow = static_cast<TimeNs>(std::llround(exposed / static_cast<double>(steps.size())));
  } else {
    p.assumptions.push_back("the trace marks no steps: the whole session is taken as one step");
    p.stepNow = s.duration();
    TimeNs exposed = 0;
    for (const Step& w : rankWindows(s, launches, d.gaps, {}))
      exposed = std::max(exposed, w.exposedCommunication);
    p.exposedNow = exposed;
  }
  p.exposedAfter =
      static_cast<TimeNs>(std::llround(static_cast<double>(p.exposedNow) * p.commRatio));
  if (p.fit.poor()) {
    char text[160];
    std::snprintf(text, sizeof text, "%.1f %% mean error, R² %.2f", p.fit.meanAbsErrorPct,
                  p.fit.r2);
    p.assumptions.push_back(std::string("the fit is poor (") + text +
                            "): the collectives' times are not explained by their sizes (waiting "
                            "for late ranks, other traffic), so the prediction is uncertain");
  }
  p.assumptions.push_back(
      "collectives as a ring, each kind fitted apart: T = f(n−1)·α + f(n−1)/n · bytes / "
      "bandwidth (f = 2 for an all-reduce, 1 for the others), α and bandwidth "
      "fitted on the run's own collectives (their times include waiting for late ranks)");
  p.treeAllReduce = std::any_of(collectives.begin(), collectives.end(),
                                [](const Collective& c) { return c.treeAllReduce(); });
  if (p.treeAllReduce) {
    p.assumptions.push_back(
        "all-reduces whose NCCL kernels name the TREE algorithm are fitted apart, as a binary "
        "tree: T = 2⌈log₂ n⌉·α + 2 · bytes / bandwidth, and keep that algorithm after the move");
  }
  p.assumptions.push_back("only exposed communication (not under computation) shortens the step");
  return p;
}

std::string consolidationAdvice(const ConsolidationPlan& p, const ConsolidationInput& in,
                                int64_t stepsPerEpoch) {
  const TimeNs saving = p.stepNow - p.stepAfter();
  const std::string where = std::to_string(p.hostsAfter) + " machine" +
                            (p.hostsAfter == 1 ? "" : "s") +
                            (in.inter && p.hostsAfter > 1 ? " over " + in.inter->name : "");
  char share[32];
  std::snprintf(share, sizeof share, "%.1f %%",
                100.0 * static_cast<double>(std::abs(saving)) /
                    static_cast<double>(std::max<TimeNs>(1, p.stepNow)));
  const std::string hedge =
      p.fit.poor() ? " — uncertain: the fit of the run's collectives is poor" : "";
  if (p.hostsAfter == p.hostsNow && !in.inter) {
    return in.machinesAfter > 0
               ? "the same layout: nothing changes"
               : "already on the fewest machines of " + std::to_string(in.gpusPerNode) + " GPUs (" +
                     std::to_string(p.hostsNow) + ")";
  }
  // Across machines a ring runs at the speed of the link between them however many there are:
  // on more than one machine, a saving is the link's, not the move's.
  const bool linkOnly = in.inter && p.hostsAfter > 1;
  const std::string more = p.hostsAfter > p.hostsNow
                               ? "; " + std::to_string(p.hostsAfter) +
                                     " machines are more than the " + std::to_string(p.hostsNow) +
                                     " it runs on now"
                               : "";
  if (saving > 0) {
    std::string text =
        (linkOnly ? formatDuration(saving) + " less per step (" + share +
                        ") from the faster link between machines (" + in.inter->name +
                        "), not from the move: on " + std::to_string(p.hostsAfter) +
                        " machines, as on the " + std::to_string(p.hostsNow) +
                        " now, the collectives cross machines at that link's speed"
                  : std::string(p.hostsAfter != p.hostsNow ? "move onto " : "run on ") + where +
                        ": " + formatDuration(saving) + " less per step (" + share + ")");
    if (stepsPerEpoch > 0)
      text += ", " + formatDuration(saving * stepsPerEpoch) + " per epoch of " +
              std::to_string(stepsPerEpoch) + " steps";
    return text + more + hedge;
  }
  if (saving < 0)
    return "don't: on " + where + " the step is predicted " + formatDuration(-saving) +
           " longer (" + share + ")" + more + hedge;
  return "on " + where + " the step is not predicted to change" +
         (p.hostsAfter < p.hostsNow ? std::string(": move to free the other machines")
                                    : std::string()) +
         more;
}

std::string astraNetworkYaml(int npusPerNode, int nodes, const Link& intra, const Link& inter) {
  char text[512];
  if (nodes <= 1) {
    std::snprintf(text, sizeof text,
                  "topology: [ Ring ]\nnpus_count: [ %d ]\nbandwidth: [ %.3f ]  # GB/s\n"
                  "latency: [ %.1f ]  # ns\n",
                  npusPerNode, intra.bytesPerSecond / 1e9, intra.latencyNs);
  } else {
    std::snprintf(text, sizeof text,
                  "topology: [ Ring, Switch ]\nnpus_count: [ %d, %d ]\n"
                  "bandwidth: [ %.3f, %.3f ]  # GB/s\nlatency: [ %.1f, %.1f ]  # ns\n",
                  npusPerNode, nodes, intra.bytesPerSecond / 1e9, inter.bytesPerSecond / 1e9,
                  intra.latencyNs, inter.latencyNs);
  }
  return text;
}

std::string astraSystemJson(int dimensions, bool treeAllReduce) {
  std::string each = "\"ring\"", reduce = treeAllReduce ? "\"doubleBinaryTree\"" : each;
  for (int i = 1; i < dimensions; ++i) {
    each += ", \"ring\"";
    reduce += treeAllReduce ? ", \"doubleBinaryTree\"" : ", \"ring\"";
  }
  return "{\n  \"scheduling-policy\": \"LIFO\",\n  \"endpoint-delay\": 10,\n"
         "  \"active-chunks-per-dimension\": 1,\n  \"preferred-dataset-splits\": 4,\n"
         "  \"all-reduce-implementation\": [" +
         reduce +
         "],\n"
         "  \"all-gather-implementation\": [" +
         each +
         "],\n"
         "  \"reduce-scatter-implementation\": [" +
         each +
         "],\n"
         "  \"all-to-all-implementation\": [" +
         each +
         "],\n"
         "  \"collective-optimization\": \"localBWAware\",\n  \"local-reduction-delay\": 1\n}\n";
}

}  // namespace ts::advisor
