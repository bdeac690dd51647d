// tensorscope-cli advise consolidate: would this multi-rank job run faster on fewer machines?
// Its collectives calibrate an α-β model; on one machine the ring runs over the intra-node link.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "advisor/consolidate.h"
#include "advisor/hetero_inputs.h"
#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/atomic_file.h"
#include "io/open_session.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli advise consolidate RUN... --gpus-per-node G [--hosts R=HOST,...]\n"
    "                                          [--world N] [--nodes N] [--intra LINK]\n"
    "                                          [--steps-per-epoch N] [--astra-out DIR] "
    "[--json]\n"
    "                                          [--machines N] [--inter 25g|100g|200g|400g]\n"
    "                                          [--model M]\n"
    "\n"
    "RUN: one multi-rank session (or several files, one per rank). Its communication kernels "
    "(nccl*)\n"
    "with their sizes (nccl:<collective> annotations recorded with shapes) calibrate T = a + b · "
    "bytes;\n"
    "read as a ring of N ranks (a binary tree for NCCL's TREE all-reduces) that gives the\n"
    "bandwidth and per-hop latency the job got. Moved onto the fewest machines of G GPUs, the\n"
    "collectives on one machine run over --intra (nvlink2, nvlink3 (default),\n"
    "nvlink4, pcie3, pcie4, pcie5); the step shrinks by the exposed communication saved.\n"
    "--hosts   each rank's machine (rank number = host), when the session does not name them\n"
    "--world   ranks in the job (default: as its traces say, distributedInfo.world_size, else\n"
    "          the session's ranks)\n"
    "--nodes   machines it runs on now (default: those the ranks' hosts name; needed when the\n"
    "          session holds a sample of a larger job)\n"
    "--model M an ONNX file or built-in model whose gradients size the all-reduces, when the\n"
    "          trace records no sizes (a data-parallel step all-reduces each gradient once)\n"
    "--machines N  predict that layout instead of the fewest; --inter LINK: the link between\n"
    "          machines after (default: what the run got)\n"
    "--astra-out DIR  ASTRA-sim inputs: network_now.yml, network_after.yml, system.json\n";

int usage(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli advise consolidate: %s\n\n%s", message.c_str(), kHelp);
  return kExitUsage;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli advise consolidate: %s\n", message.c_str());
  return kExitFailure;
}

}  // namespace

int runAdviseConsolidate(const std::vector<std::string>& argv) {
  Args args;
  const std::string bad =
      args.parse(argv,
                 {"--gpus-per-node", "--hosts", "--world", "--nodes", "--intra",
                  "--steps-per-epoch", "--astra-out", "-o", "--machines", "--inter", "--model"},
                 {"--json", "--help"});
  if (!bad.empty()) return usage(bad);
  if (args.flag("--help")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().empty()) return usage("give the job's session (all its ranks)");
  auto number = [&](const char* option, unsigned long long max) -> std::optional<int> {
    auto v = args.option(option);
    if (!v) return 0;
    auto n = parseUnsigned(*v);
    if (!n || *n == 0 || *n > max) return std::nullopt;
    return static_cast<int>(*n);
  };
  const auto gpus = number("--gpus-per-node", 1024), world = number("--world", 1 << 20),
             nodes = number("--nodes", 1 << 20), perEpoch = number("--steps-per-epoch", 1u << 30);
  if (!gpus || *gpus == 0) return usage("--gpus-per-node G is required (1 to 1024)");
  if (!world || !nodes || !perEpoch)
    return usage("--world, --nodes, --steps-per-epoch: positive numbers");
  advisor::ConsolidationInput in;
  in.gpusPerNode = *gpus, in.world = *world, in.nodesNow = *nodes;
  const std::string intraName = args.option("--intra").value_or("nvlink3");
  auto intra = advisor::intraNodeLink(intraName);
  if (!intra)
    return usage("--intra " + intraName + ": nvlink2, nvlink3, nvlink4, pcie3, pcie4 or pcie5");
  in.intra = *intra;
  const auto machines = number("--machines", 1 << 20);
  if (!machines) return usage("--machines: a positive number");
  in.machinesAfter = *machines;
  if (auto i = args.option("--inter")) {
    in.inter = advisor::interNodeLink(*i);
    if (!in.inter) return usage("--inter " + *i + ": 25g, 100g, 200g or 400g");
  }

  if (auto m = args.option("--model")) {
    auto graph = advisor::loadModelAt(*m, 1);
    if (!graph) return fail(graph.error());
    in.gradientBytes = graph->parameterBytes();
    in.gradientSource = graph->name.empty() ? *m : graph->name;
    if (in.gradientBytes <= 0)
      return fail(*m + ": the model has no trainable weights to all-reduce");
  }
  auto session = openForCli(args.positional());
  if (!session) return fail(session.error());
  const Session& s = **session;
  if (in.world > 0 && in.world < static_cast<int>(s.ranks.size()))
    return usage("--world " + std::to_string(in.world) + " is fewer than the session's ranks");
  // Hosts: the session's, then the user's (by rank number).
  for (const Rank& r : s.ranks) in.hosts.push_back(r.host);
  if (auto h = args.option("--hosts")) {
    size_t at = 0;
    while (at <= h->size()) {
      const size_t comma = std::min(h->find(',', at), h->size());
      const std::string item = h->substr(at, comma - at);
      const size_t eq = item.find('=');
      const auto rank = eq == std::string::npos ? std::nullopt : parseUnsigned(item.substr(0, eq));
      if (!rank || eq + 1 >= item.size()) return usage("--hosts " + *h + ": RANK=HOST pairs");
      bool found = false;
      for (size_t r = 0; r < s.ranks.size(); ++r) {
        if (static_cast<unsigned long long>(s.ranks[r].rank) == *rank)
          in.hosts[r] = item.substr(eq + 1), found = true;
      }
      if (!found) return usage("--hosts: the session has no rank " + std::to_string(*rank));
      at = comma + 1;
    }
  }
  DiagnoseOptions o;
  o.runRules = false;
  auto d = diagnose(s, o);
  if (!d) return fail(d.error());
  const LaunchIndex launches(s);
  auto plan = advisor::planConsolidation(s, *d, launches, in);
  if (!plan) return fail(plan.error());
  const advisor::ConsolidationPlan& p = *plan;
  const TimeNs saving = p.stepNow - p.stepAfter();

  // ASTRA-sim inputs for both layouts: the ring link the run got between machines.
  if (auto dir = args.option("--astra-out")) {
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec);
    if (ec) return fail(*dir + ": " + ec.message());
    advisor::Link inter{"fitted", p.ringBandwidthNow, p.ringLatencyNow};
    const int perNodeNow = (p.world + p.hostsNow - 1) / std::max(1, p.hostsNow);
    const std::pair<std::string, std::string> files[] = {
        {"network_now.yml", advisor::astraNetworkYaml(perNodeNow, p.hostsNow, in.intra, inter)},
        {"network_after.yml",
         advisor::astraNetworkYaml(p.hostsAfter == 1 ? p.world : in.gpusPerNode, p.hostsAfter,
                                   in.intra, inter)},
        {"system.json", advisor::astraSystemJson(p.hostsNow > 1 ? 2 : 1, p.treeAllReduce)}};
    for (const auto& [name, text] : files) {
      if (Status st = writeBytesAtomically(*dir + "/" + name, text); !st.ok())
        return fail(st.error());
    }
  }

  const std::string recommendation = advisor::consolidationAdvice(p, in, *perEpoch);
  char line[512];
  JsonWriter json;
  json.beginObject().key("advice").value("consolidate");
  json.key("inputs")
      .beginObject()
      .key("world")
      .value(p.world)
      .key("gpus_per_node")
      .value(in.gpusPerNode);
  json.key("hosts").beginArray();
  for (size_t r = 0; r < s.ranks.size(); ++r)
    json.beginObject()
        .key("rank")
        .value(s.ranks[r].rank)
        .key("host")
        .value(in.hosts[r])
        .endObject();
  json.endArray().key("intra_link").value(in.intra.name).key("inter_link");
  if (in.inter)
    json.value(in.inter->name);
  else
    json.null();
  json.key("machines_after").value(in.machinesAfter > 0 ? in.machinesAfter : p.hostsAfter);
  if (in.gradientBytes > 0)
    json.key("gradient_bytes").value(in.gradientBytes).key("model").value(in.gradientSource);
  json.endObject();
  json.key("fit").beginObject().key("samples").value(static_cast<uint64_t>(p.fit.samples));
  json.key("intercept_ns").value(p.fit.interceptNs).key("ns_per_byte").value(p.fit.nsPerByte);
  json.key("mean_abs_error_pct").value(p.fit.meanAbsErrorPct).key("r2").value(p.fit.r2);
  json.key("ring_bandwidth_bytes_per_second").value(p.ringBandwidthNow);
  json.key("ring_latency_ns").value(p.ringLatencyNow).key("kind").value(p.fitKind);
  json.key("by_kind").beginArray();
  for (const auto& [kind, f] : p.fitByKind) {
    json.beginObject().key("kind").value(kind).key("samples").value(
        static_cast<uint64_t>(f.samples));
    json.key("intercept_ns").value(f.interceptNs).key("ns_per_byte").value(f.nsPerByte);
    json.key("mean_abs_error_pct").value(f.meanAbsErrorPct).key("r2").value(f.r2).endObject();
  }
  json.endArray().endObject();
  json.key("prediction").beginObject().key("machines_now").value(p.hostsNow);
  json.key("machines_after").value(p.hostsAfter).key("step_ns_now").value(p.stepNow);
  json.key("step_ns_after").value(p.stepAfter()).key("exposed_comm_ns_now").value(p.exposedNow);
  json.key("exposed_comm_ns_after").value(p.exposedAfter).key("comm_ratio").value(p.commRatio);
  json.key("saving_per_step_ns").value(saving);
  json.key("moves").beginArray();
  for (const auto& [rank, machine] : p.moves)
    json.beginObject().key("rank").value(rank).key("machine").value(machine).endObject();
  json.endArray().endObject();
  json.key("recommendation").value(recommendation).key("assumptions").beginArray();
  for (const std::string& a : p.assumptions) json.value(a);
  json.endArray().endObject();

  std::string text;
  auto count = [](int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  text +=
      "Job of " + count(p.world, "rank", "ranks") + " on " +
      count(p.hostsNow, "machine", "machines") +
      (p.hostsAfter != p.hostsNow ? "; " + count(in.gpusPerNode, "GPU", "GPUs") + " a machine → " +
                                        count(p.hostsAfter, "machine", "machines")
       : in.inter
           ? "; between machines: " + in.inter->name
           : std::string("; already the fewest of ") + count(in.gpusPerNode, "GPU", "GPUs")) +
      "\n\n";

  const std::string ringText =
      p.ringBandwidthNow > 0
          ? std::string(p.fitKind.ends_with("/tree") ? "a tree of " : "a ring of ") +
                std::to_string(p.world) + " at " + formatBandwidth(p.ringBandwidthNow) + ", " +
                formatDuration(static_cast<TimeNs>(p.ringLatencyNow)) + " a hop"
          : std::string("no bandwidth to read: the times do not grow with the sizes");
  std::snprintf(line, sizeof line,
                "collectives (%s): %zu with sizes; T = %s + %.4g ns/B (mean error %.1f %%, R² "
                "%.3f): %s\n",
                p.fitKind.c_str(), p.fit.samples,
                formatDuration(static_cast<TimeNs>(p.fit.interceptNs)).c_str(), p.fit.nsPerByte,
                p.fit.meanAbsErrorPct, p.fit.r2, ringText.c_str());
  text += line;
  if (p.fitByKind.size() > 1) {
    for (const auto& [kind, f] : p.fitByKind) {
      std::snprintf(line, sizeof line, "  %s: %zu, T = %s + %.4g ns/B (mean error %.1f %%)\n",
                    kind.c_str(), f.samples,
                    formatDuration(static_cast<TimeNs>(f.interceptNs)).c_str(), f.nsPerByte,
                    f.meanAbsErrorPct);
      text += line;
    }
  }
  text += "step now " + formatDuration(p.stepNow) + " (exposed communication " +
          formatDuration(p.exposedNow) + "); after " + formatDuration(p.stepAfter()) +
          " (exposed communication " + formatDuration(p.exposedAfter) + ")\n";
  for (const auto& [rank, machine] : p.moves)
    text += "  rank " + std::to_string(rank) + " → machine " + std::to_string(machine) + "\n";
  text += "recommendation: " + recommendation + "\n\nassumptions:\n";
  for (const std::string& a : p.assumptions) text += "  - " + a + "\n";

  const std::string out = args.flag("--json") ? json.str() + "\n" : text;
  if (auto path = args.option("-o")) {
    if (Status st = writeBytesAtomically(*path, out); !st.ok()) return fail(st.error());
    return kExitOk;
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace ts::cli
