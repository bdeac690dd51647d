// tensorscope-cli simulate: memory-tier what-ifs — plan and simulate G10 and its baselines on a G10
// workload directory or an ONNX model's training step, print the iteration per policy (beside G10's
// published numbers when they are known), save the simulated timeline, or sweep a parameter.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/atomic_file.h"
#include "io/open_session.h"
#include "io/tscope_file.h"
#include "memsim/engine/simulation.h"
#include "memsim/formats/g10_inputs.h"
#include "memsim/formats/g10_published.h"
#include "memsim/formats/run_tiers.h"
#include "memsim/formats/sim_session.h"
#include "memsim/formats/sweep_table.h"
#include "memsim/formats/workload_source.h"
#include "memsim/reports/g10_reproduce.h"
#include "memsim/reports/mapping_report.h"
#include "memsim/reports/memory_comparison.h"
#include "memsim/reports/memory_report.h"
#include "memsim/reports/sim_report.h"
#include "util/parse_number.h"

namespace ts::cli {

namespace {

using namespace ts::memsim;

constexpr const char* kHelp =
    "Usage: tensorscope-cli simulate (--g10 DIR | --g10-inputs ROOT --model NAME --batch N |\n"
    "                                 --model M.onnx [--batch N] [--session S]\n"
    "                                 [--device PRESET] [--optimizer sgd|adam] | --session S)\n"
    "           [--policy g10|lru|deepum|flashneuron|g10-gds|g10-host|ideal|all]...\n"
    "           [--tiers FILE | --preset g10-default|a100-40|h100-80|h200-141]\n"
    "           [--gpu-mem 40GiB] [--host-mem 128GiB] [--ssd 3.2TB] [--pcie-bw 15.754GiB/s]\n"
    "           [--ssd-bw 3.2GiB/s]\n"
    "           [--ssd-host-bw R] [--ssd-read-latency 12us] [--ssd-write-latency 16us]\n"
    "           [--system-latency 45us] [--page 4KiB] [--gpu-clock 1.2GHz]\n"
    "           [--json | --csv] [-o SIM.tscope] [--plan PLAN.csv] [--published FILE]\n"
    "           [--iteration T0:T1 | --step N] [--corrections FILE] [--mapping | --compare]   "
    "(with "
    "--session)\n"
    "       tensorscope-cli simulate ... --sweep KEY=FROM..TO:STEP\n"
    "\n"
    "Plans each policy's data movement between GPU memory, host memory and SSD from the tensors'\n"
    "lifetimes and simulates two training iterations, reporting the second: iteration time, the\n"
    "ideal (infinite GPU memory), slowdown, stall, faults and bytes per link.\n"
    "\n"
    "  g10          G10's smart migration (unified memory, host and SSD)\n"
    "  lru          demand paging with LRU eviction (plain UVM)\n"
    "  deepum       demand paging, prefetching the next 8 kernels' tensors\n"
    "  flashneuron  forward activations offloaded to the SSD; may be infeasible\n"
    "  g10-gds      G10's plan with direct (GPUDirect Storage) copies, SSD only\n"
    "  g10-host     G10's plan with direct copies, host memory allowed\n"
    "  ideal        infinite GPU memory\n"
    "\n"
    "--g10 DIR        a G10 workload (kernels.config, tensors.config); when DIR/../published.txt\n"
    "                 exists (or --published FILE), G10's published iteration times are shown "
    "beside\n"
    "--g10-inputs ROOT  G10's own inputs, laid out as in its repository (frontend/Nets/,\n"
    "                 results/<Model>/cudnn<B>*.txt): the workload of --model BERT, VIT,\n"
    "                 Inceptionv3, ResNet152 or SENet154 at --batch N, built as G10's frontend\n"
    "                 builds it, for any batch G10 traced (--sweep batch=FROM..TO:STEP runs the\n"
    "                 traced ones in the range); sizes and bandwidths in GiB, GiB/s as G10 means\n"
    "                 its \"GB\"\n"
    "--model M.onnx   the model's training step (an ONNX file or a built-in model's name:\n"
    "                 tensorscope-cli model zoo --list); kernel times from the --device roofline "
    "(default\n"
    "                 A100-40GB) or measured in --session S: S's kernels are mapped to layers "
    "(NVTX\n"
    "                 forward/<layer> ranges, else PyTorch aten:: op ranges, else by order) "
    "within\n"
    "                 its last iteration (NVTX layers, ProfilerStep#N ranges or repeated kernels)\n"
    "--session S      alone (no --model): the run itself, planned by every policy: one\n"
    "                 iteration of S's GPU kernels with their measured times, and S's own\n"
    "                 allocations on that GPU (recorded with profile_memory=True, or a memory\n"
    "                 snapshot) as the tensors, each written by the first kernel launched after\n"
    "                 it was allocated and read last by the last launched before it was freed;\n"
    "                 memory held through the iteration stays on the GPU\n"
    "--iteration T0:T1  the iteration to map instead, from S's start (e.g. 12.5ms:30ms): the\n"
    "                 kernels that start in it\n"
    "--step N         map the N-th iteration found (from 1) instead of the last\n"
    "--corrections F  lines 'kernel name<TAB>forward/<layer>' (or an empty layer: leave it out)\n"
    "--mapping        print which measured kernel is which layer, and stop\n"
    "--compare        measured against simulated (first policy): summary, per layer, per kernel,\n"
    "                 bytes per direction\n"
    "Tiers start from --preset (default g10-default: G10's 40 GiB GPU, 128 GiB host, 3.2 GiB/s "
    "SSD;\n"
    "with --session, its GPU's memory and the bandwidth of its pinned copies where it recorded "
    "them)\n"
    "or --tiers FILE (\"key = value\" lines or JSON, keys as the options without --); options "
    "override.\n"
    "--json           an array with one object per policy (policy, feasible, iteration_ns, "
    "ideal_ns,\n"
    "                 slowdown, stall_ns, compute_ns, overlap_ns, faults, bytes per link)\n"
    "-o SIM.tscope    the simulated timeline as a session: per policy a GPU with the kernels, "
    "link\n"
    "                 rows with the migrations, tier usage counters and tensor locations\n"
    "--plan PLAN.csv  every policy's actions: policy, kernel, kernel name, action (allocate, "
    "free,\n"
    "                 evict-to-host, evict-to-ssd, prefetch), tensor, bytes\n"
    "--sweep K=A..B:S one CSV row per point and policy; K: gpu-mem, host-mem, ssd-bw, pcie-bw, "
    "batch\n";

int usage(const std::string& m) {
  std::fprintf(stderr, "tensorscope-cli simulate: %s\n\n%s", m.c_str(), kHelp);
  return kExitUsage;
}

int failure(const std::string& m) {
  std::fprintf(stderr, "tensorscope-cli simulate: %s\n", m.c_str());
  return kExitFailure;
}

// "gpu-mem=16GB..80GB:8GB" → the values as text for setTierField (or batch numbers).
struct SweepSpec {
  std::string key;
  std::vector<std::string> values;
};

Result<SweepSpec> parseSweep(const std::string& spec) {
  size_t eq = spec.find('='), dots = spec.find(".."), colon = spec.rfind(':');
  if (eq == std::string::npos || dots == std::string::npos || colon == std::string::npos ||
      dots < eq || colon < dots) {
    return Error{"--sweep wants KEY=FROM..TO:STEP, e.g. gpu-mem=16GB..80GB:8GB"};
  }
  const std::string key = spec.substr(0, eq);
  std::string from = spec.substr(eq + 1, dots - eq - 1),
              to = spec.substr(dots + 2, colon - dots - 2), step = spec.substr(colon + 1);
  const TierField* field = findTierField(key);
  auto number = [&](const std::string& text, double& out) -> bool {
    if (key == "batch") {
      auto n = parseUnsigned(text);
      if (!n || *n == 0) return false;
      out = static_cast<double>(*n);
      return true;
    }
    if (field->unit == TierUnit::Bytes) {
      auto b = parseBytes(text);
      if (!b) return false;
      out = static_cast<double>(*b);
      return true;
    }
    auto b = parseBandwidth(text);
    if (!b) return false;
    out = *b;
    return true;
  };
  double a = 0, b = 0, s = 0;
  if (key != "batch" && (!field || !field->sweepable)) {
    std::string keys;
    for (const TierField& f : tierFields())
      if (f.sweepable) keys += std::string(f.key) + ", ";
    return Error{"--sweep: KEY must be " + keys + "or batch, not '" + key + "'"};
  }
  if (!number(from, a) || !number(to, b) || !number(step, s) || s <= 0 || b < a) {
    return Error{"--sweep: '" + spec +
                 "' is not FROM..TO:STEP with FROM ≤ TO and a positive STEP in " + key + " units"};
  }
  if ((b - a) / s > 1000) {
    return Error{"--sweep: more than 1000 points"};
  }
  SweepSpec out{key, {}};
  for (double v = a; v <= b * (1 + 1e-12); v += s) {
    char text[64];
    // Base units (bytes, bytes/s, samples), read back by setTierField.
    std::snprintf(text, sizeof text, "%.0f", v);
    out.values.emplace_back(text);
  }
  return out;
}

int runSweep(const WorkloadSource& base, const std::vector<Policy>& policies,
             const TierConfig& baseTiers, const std::string& spec,
             const std::optional<std::string>& out) {
  auto parsed = parseSweep(spec);
  if (!parsed) return usage(parsed.error());
  const std::string& key = parsed->key;
  std::vector<std::string> values = parsed->values;
  if (key == "batch" && !base.isModel() && !base.isG10Inputs())
    return usage("--sweep batch needs --model or --g10-inputs (a G10 workload has a fixed batch)");
  if (key == "batch" && base.isG10Inputs()) {
    // Only the batches G10 traced have kernel times.
    auto listed = listG10Inputs(base.g10Inputs);
    if (!listed) return failure(listed.error());
    const G10ModelInfo* model = findG10Model(base.g10Model);
    std::vector<int64_t> traced;
    for (const G10InputsModel& m : *listed)
      if (m.info == model) traced = m.batches;
    std::vector<std::string> kept;
    for (const std::string& v : values) {
      auto b = parseInteger<int64_t>(v);
      if (b && std::find(traced.begin(), traced.end(), *b) != traced.end()) kept.push_back(v);
    }
    if (kept.empty()) {
      std::string list;
      for (int64_t b : traced) list += (list.empty() ? "" : ", ") + std::to_string(b);
      return failure("--sweep " + spec + ": G10 traced " + base.g10Model + " at batch " +
                     (list.empty() ? "none" : list) + ", none of them in the range");
    }
    values = std::move(kept);
  }
  SweepTable sweep;
  sweep.key = key;
  std::optional<SimWorkload> fixed;
  for (const std::string& v : values) {
    WorkloadSource in = base;
    TierConfig tiers = baseTiers;
    if (key == "batch") {
      auto batch = parseInteger<int64_t>(v);
      if (!batch || *batch <= 0)
        return failure("--sweep batch=" + v + ": not a positive whole number");
      in.batch = *batch;
    } else if (Status s = setTierField(tiers, key, v); !s.ok()) {
      return failure(s.error());
    }
    if (key == "batch" || !fixed) {
      auto w = loadWorkload(in);
      if (!w) return failure(w.error());
      fixed = std::move(*w);
    }
    const double value = std::strtod(v.c_str(), nullptr);
    auto runs = runPolicies(*fixed, policies, tiers);
    if (!runs) {
      // A point where a kernel cannot fit is a row of infeasible results, not the end of the sweep.
      for (Policy p : policies) {
        SweepPoint point{value, std::string(toString(p)), false};
        point.ideal = fixed->idealTime();
        sweep.points.push_back(point);
      }
      sweep.notes.push_back(key + " = " + v + ": " + runs.error());
      continue;
    }
    for (const PolicyRun& run : *runs) {
      const SimSummary& s = run.result.summary;
      SweepPoint point{value, std::string(toString(run.result.policy)), run.result.feasible};
      point.ideal = s.ideal;
      if (point.feasible) {
        point.iteration = s.iteration;
        point.slowdown = s.slowdown;
        point.stall = s.stall;
      }
      sweep.points.push_back(point);
    }
  }
  return emitTables({toStatsTable(sweep)}, "csv", out, "simulate");
}

// --reproduce: G10's experiments on its own inputs, compared with its published results.
int runReproduce(const Args& args, const std::string& name) {
  auto experiment = parseG10Experiment(name);
  if (!experiment) return usage("--reproduce is batch, ssd-bw, host-mem or fig11");
  const std::string root = args.option("--g10-inputs").value_or("");
  if (root.empty()) return usage("--reproduce needs --g10-inputs ROOT (G10's inputs)");
  for (const char* other : {"--g10", "--batch", "--session", "--sweep", "--policy", "--tiers",
                            "--preset", "--plan", "--device", "--optimizer"}) {
    if (args.option(other)) return usage(std::string(other) + " does not go with --reproduce");
  }
  for (const TierField& f : tierFields()) {
    if (args.option("--" + std::string(f.key)))
      return usage("--reproduce runs G10's own settings; --" + std::string(f.key) +
                   " does not go with it");
  }
  const std::string model = args.option("--model").value_or("");
  // A published file holds one model's sweep: said before the simulations, not after them.
  if (auto published = args.option("--published");
      published && model.empty() && *experiment != G10Experiment::Figure11) {
    auto listed = listG10Inputs(root);
    if (listed && listed->size() != 1)
      return failure(*published + ": G10's " + toString(*experiment) +
                     " results are one file per model: give --model");
  }
  auto run = reproduceG10(root, *experiment, model);
  if (!run) return failure(run.error());
  if (auto published = args.option("--published")) {
    if (Status s = attachPublished(*run, *published, model); !s.ok()) return failure(s.error());
  }
  if (auto prefix = args.option("-o")) {
    if (*experiment == G10Experiment::Figure11)
      return usage("-o writes sweeps of batch, ssd-bw or host-mem; fig11 has none");
    for (const auto& [m, sweep] : reproduceSweeps(*run)) {
      const std::string path = *prefix + "-" + m + ".csv";
      if (Status s = writeBytesAtomically(path, statsToCsv(toStatsTable(sweep))); !s.ok())
        return failure(s.error());
    }
  }
  return emitTables({reproduceTable(*run)},
                    args.flag("--json")  ? "json"
                    : args.flag("--csv") ? "csv"
                                         : "table",
                    std::nullopt, "simulate");
}

// --policy NAME[,NAME...] (repeatable; "all"), all policies when none is given. Returns the
// first unknown name, empty when every one is known.
std::string parsePolicies(const Args& args, std::vector<Policy>& policies) {
  for (const std::string& spec : args.all("--policy")) {
    size_t from = 0;
    while (from <= spec.size()) {
      size_t comma = spec.find(',', from);
      std::string name =
          spec.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      if (name == "all") {
        for (Policy p : allPolicies()) policies.push_back(p);
      } else if (auto p = parsePolicy(name)) {
        policies.push_back(*p);
      } else {
        return name;
      }
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  if (policies.empty()) policies = allPolicies();
  return {};
}

// G10's published times for the workload (--published, or published.txt beside a G10 folder),
// only at G10's default tiers: beside other tiers a difference means nothing, and the note says so.
struct Published {
  std::optional<PublishedRow> row;
  std::string note;
};

bool atG10Defaults(const TierConfig& tiers) {
  const TierConfig g10 = *tierPreset("g10-default");
  return tiers.gpuBytes == g10.gpuBytes && tiers.hostBytes == g10.hostBytes &&
         tiers.ssdBytes == g10.ssdBytes && tiers.gpuHostBandwidth == g10.gpuHostBandwidth &&
         tiers.ssdGpuBandwidth == g10.ssdGpuBandwidth &&
         tiers.ssdHostBandwidth == g10.ssdHostBandwidth &&
         tiers.ssdReadLatencyNs == g10.ssdReadLatencyNs &&
         tiers.ssdWriteLatencyNs == g10.ssdWriteLatencyNs &&
         tiers.systemLatencyNs == g10.systemLatencyNs && tiers.pageBytes == g10.pageBytes &&
         tiers.gpuClockHz == g10.gpuClockHz;
}

Result<Published> publishedFor(const Args& args, const WorkloadSource& in,
                               const std::string& workloadName, const TierConfig& tiers) {
  Published out;
  std::optional<std::string> publishedPath = args.option("--published");
  if (!publishedPath && !in.g10Dir.empty()) {
    auto candidate = std::filesystem::path(in.g10Dir).lexically_normal();
    if (candidate.filename().empty()) candidate = candidate.parent_path();
    candidate = candidate.parent_path() / "published.txt";
    if (std::filesystem::exists(candidate)) publishedPath = candidate.string();
  }
  if (!publishedPath) return out;
  auto rows = loadG10Published(*publishedPath);
  if (!rows) return rows.failure();
  if (const PublishedRow* row = findPublished(*rows, workloadName)) {
    if (atG10Defaults(tiers))
      out.row = *row;
    else
      out.note =
          "G10's published times are for its default tiers (--preset g10-default); not compared "
          "with these.";
  }
  return out;
}

// What a simulation writes (-o, --plan) and prints: JSON, the comparison with a measured run
// (--compare), or the table with its notes.
int emitSimulation(const Args& args, const WorkloadSource& in, const SimWorkload& workload,
                   const std::vector<PolicyRun>& runs, const TierConfig& tiers,
                   const MappingSummary& mapping, const Published& published,
                   const std::string& tiersNote) {
  if (auto out = args.option("-o")) {
    auto session = simulationSession(workload, runs, tiers);
    if (!session) return failure(session.error());
    if (Status s = saveSession(**session, *out); !s.ok()) return failure(s.error());
  }
  if (auto planPath = args.option("--plan")) {
    StatsTable plans = planTable(workload, runs);
    if (Status s = writeBytesAtomically(*planPath, statsToCsv(plans)); !s.ok())
      return failure(s.error());
  }
  if (args.flag("--json")) {
    std::fputs(simulationJson(workload, runs).c_str(), stdout);
    return kExitOk;
  }
  if (args.flag("--compare")) {
    const PolicyRun& first = runs.front();
    if (!first.result.feasible)
      return failure(std::string(toString(first.result.policy)) + " cannot run " + workload.name +
                     ": " + first.result.problem);
    std::vector<StatsTable> tables = {
        comparisonSummary(*in.session, workload, first.result, mapping.kernels, tiers.gpuBytes),
        layerComparison(workload, first.result, mapping.kernels),
        layerMemoryComparison(*in.session, workload, mapping.kernels),
        tensorComparison(*in.session, workload, mapping.kernels),
        kernelComparison(workload, first.result, mapping.kernels),
        trafficComparison(*in.session, workload, first.result, mapping.kernels)};
    return emitTables(tables, args.flag("--csv") ? "csv" : "table", std::nullopt, "simulate");
  }
  StatsTable table =
      simulationTable(runs, published.row ? &*published.row : nullptr, tiers.gpuClockHz);
  table.title += " — " + workload.name;
  table.notes.push_back(
      "Step memory with unlimited GPU memory: " +
      stepMemorySentence(workload, stepMemory(workload)) +
      (in.isRun() ? "." : " (tensorscope-cli model memory lists it layer by layer)."));
  if (mapping.mapped) {
    table.notes.push_back("Kernel times measured in " + in.sessionPath + ", " +
                          mappingSentence(mapping) + " (--mapping lists the kernels).");
  }
  if (!mapping.runTensors.empty()) {
    const model::KernelMapping& k = mapping.kernels;
    table.notes.push_back("The run itself: " + std::to_string(workload.kernels.size()) +
                          " kernels of iteration " + std::to_string(k.iteration + 1) + " of " +
                          std::to_string(k.iterations.size()) + " (" + k.iterationSource +
                          ") with their measured times; " + mapping.runTensors + ".");
  }
  if (!tiersNote.empty()) table.notes.push_back(tiersNote);
  if (!published.note.empty()) table.notes.push_back(published.note);
  return emitTables({table}, args.flag("--csv") ? "csv" : "table", std::nullopt, "simulate");
}

// The tiers to simulate: the user's preset or file, else G10's defaults with a measured run's GPU,
// then the options over them; `note` says where they came from. -1, or the exit code of the
// error already reported.
int chooseTiers(const Args& args, const WorkloadSource& in, TierConfig& tiers, std::string& note) {
  tiers = *tierPreset("g10-default");
  if (in.session && !args.option("--preset") && !args.option("--tiers")) {
    RunTiers fromRun = tiersForRun(tiers, *in.session, in.mapping.device);
    tiers = fromRun.tiers;
    note = "Tiers: " + fromRun.note + " (--preset or --tiers to choose others).";
  }
  if (auto p = args.option("--preset")) {
    auto preset = tierPreset(*p);
    if (!preset) return usage("no tier preset '" + *p + "'");
    tiers = *preset;
  }
  if (auto f = args.option("--tiers")) {
    if (args.option("--preset"))
      return usage("--tiers and --preset both choose the starting tiers; give one");
    auto loaded = loadTierConfig(*f);
    if (!loaded) return failure(loaded.error());
    tiers = *loaded;
  }
  std::string overridden;  // what the command line set over the starting tiers, for the note
  for (const TierField& f : tierFields()) {
    if (auto v = args.option("--" + std::string(f.key))) {
      if (Status s = setTierField(tiers, f.key, *v); !s.ok()) return usage(s.error());
      overridden += (overridden.empty() ? "" : ", ") + ("--" + std::string(f.key)) + " " + *v;
    }
  }
  if (!note.empty() && !overridden.empty())
    note += " Set on the command line over them: " + overridden + ".";
  if (Status s = tiers.validate(); !s.ok()) return usage("tier configuration: " + s.error());
  return -1;
}

}  // namespace

int runSimulate(const std::vector<std::string>& argv) {
  Args args;
  std::set<std::string> valued = {
      "--g10",       "--g10-inputs", "--model",     "--batch",       "--session", "--device",
      "--optimizer", "--policy",     "--tiers",     "--preset",      "-o",        "--sweep",
      "--published", "--plan",       "--iteration", "--corrections", "--step",    "--reproduce"};
  for (const TierField& f : tierFields()) valued.insert("--" + std::string(f.key));
  if (std::string e =
          args.parse(argv, valued, {"--help", "-h", "--json", "--csv", "--mapping", "--compare"});
      !e.empty())
    return usage(e);
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (!args.positional().empty())
    return usage("unexpected argument '" + args.positional()[0] + "'");
  if (auto experiment = args.option("--reproduce")) return runReproduce(args, *experiment);
  WorkloadSource in;
  in.g10Dir = args.option("--g10").value_or("");
  in.g10Inputs = args.option("--g10-inputs").value_or("");
  if (in.isG10Inputs())
    in.g10Model = args.option("--model").value_or("");
  else
    in.modelPath = args.option("--model").value_or("");
  in.sessionPath = args.option("--session").value_or("");
  in.device = args.option("--device").value_or("");
  if (auto name = args.option("--optimizer")) {
    auto optimizer = model::optimizerFromName(*name);
    if (!optimizer) return usage("--optimizer is sgd or adam");
    in.optimizer = *optimizer;
  }
  if (in.isG10Inputs()) {
    if (args.option("--g10")) return usage("give one workload: --g10 DIR or --g10-inputs ROOT");
    if (in.g10Model.empty() || !args.option("--batch"))
      return usage("--g10-inputs needs --model (" + g10ModelNames() + ") and --batch");
    if (args.option("--session") || args.option("--device") || args.option("--optimizer"))
      return usage("--session, --device and --optimizer go with an ONNX --model");
  } else if (args.option("--g10") && args.option("--model")) {
    return usage("give one workload: --g10 DIR, --g10-inputs ROOT, --model M.onnx or --session S");
  } else if (!args.option("--g10") && !args.option("--model")) {
    if (!args.option("--session"))
      return usage(
          "give one workload: --g10 DIR, --g10-inputs ROOT, --model M.onnx or --session S");
    for (const char* modelOnly : {"--batch", "--device", "--optimizer", "--corrections"}) {
      if (args.option(modelOnly))
        return usage(std::string(modelOnly) + " goes with --model (a run alone is its own step)");
    }
    if (args.flag("--mapping"))
      return usage("--mapping lists kernels against a model's layers: give --model");
  }
  if (!in.g10Dir.empty() && (args.option("--session") || args.option("--device") ||
                             args.option("--optimizer") || args.option("--batch"))) {
    return usage("--batch, --session, --device and --optimizer go with --model");
  }
  const bool mappingOnly = args.flag("--mapping"), compare = args.flag("--compare");
  if ((mappingOnly || compare || args.option("--iteration") || args.option("--corrections") ||
       args.option("--step")) &&
      in.sessionPath.empty()) {
    return usage("--mapping, --compare, --iteration, --step and --corrections need --session");
  }
  if (args.option("--iteration") && args.option("--step"))
    return usage("give one of --iteration or --step");
  if (mappingOnly && compare) return usage("give one of --mapping or --compare");
  if (auto b = args.option("--batch")) {
    auto n = parseUnsigned(*b);
    if (!n || *n == 0 || *n > (1u << 24)) return usage("--batch wants a positive number");
    in.batch = static_cast<int64_t>(*n);
  }
  std::vector<Policy> policies;
  if (std::string bad = parsePolicies(args, policies); !bad.empty())
    return usage("unknown policy '" + bad + "'");

  if (!in.sessionPath.empty()) {
    auto opened = openForCli(in.sessionPath);
    if (!opened) return failure(opened.error());
    in.session = *opened;
    if (auto r = args.option("--iteration")) {
      auto parsed = parseRelativeRange(*r);
      if (!parsed) return usage("--iteration needs T0:T1, e.g. 12.5ms:30ms");
      const RelativeRange& range = *parsed;
      TimeNs start = in.session->startTime();
      in.mapping.iteration = model::TimeRange{
          start + range.from.value_or(0), range.to ? start + *range.to : in.session->endTime() + 1};
    }
    if (auto n = args.option("--step")) {
      auto step = parseUnsigned(*n);
      if (!step || *step == 0 || *step > (1u << 24)) return usage("--step wants a positive number");
      in.mapping.iterationIndex = static_cast<size_t>(*step - 1);
    }
    if (auto c = args.option("--corrections")) {
      auto corrections = model::loadCorrections(*c);
      if (!corrections) return failure(corrections.error());
      in.mapping.corrections = std::move(*corrections);
    }
  }
  TierConfig tiers;
  std::string tiersNote;
  if (int rc = chooseTiers(args, in, tiers, tiersNote); rc >= 0) return rc;

  if (auto sweep = args.option("--sweep")) {
    if (args.flag("--json")) return usage("--sweep prints CSV; drop --json");
    return runSweep(in, policies, tiers, *sweep, args.option("-o"));
  }

  MappingSummary mapping;
  auto workload = loadWorkload(in, &mapping);
  if (in.mapping.iterationIndex && mapping.mapped &&
      *in.mapping.iterationIndex >= mapping.kernels.iterations.size()) {
    return failure(in.sessionPath + ": --step " + std::to_string(*in.mapping.iterationIndex + 1) +
                   ": the run has " + std::to_string(mapping.kernels.iterations.size()) +
                   " iterations (" + mapping.kernels.iterationSource + ")");
  }
  if (mappingOnly && mapping.mapped) {  // shown also when nothing maps: the user corrects from it
    StatsTable table = mappingTable(*in.session, mapping.kernels);
    int rc = emitTables({table},
                        args.flag("--json")  ? "json"
                        : args.flag("--csv") ? "csv"
                                             : "table",
                        std::nullopt, "simulate");
    return workload ? rc : kExitFailure;
  }
  if (!workload) return failure(workload.error());
  auto runs = runPolicies(*workload, policies, tiers);
  if (!runs) return failure(runs.error());

  auto published = publishedFor(args, in, workload->name, tiers);
  if (!published) return failure(published.error());
  return emitSimulation(args, in, *workload, *runs, tiers, mapping, *published, tiersNote);
}

}  // namespace ts::cli
