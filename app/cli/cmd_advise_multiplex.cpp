// tensorscope-cli advise multiplex: should these jobs share one GPU, and how (time-slicing, MPS,
// MIG)? Each job is a session of its GPU work; their packed run is predicted and judged by the
// normalised throughput and whether their memory fits.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "advisor/hetero_inputs.h"
#include "advisor/model_estimate.h"
#include "advisor/multiplex_advice.h"
#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/atomic_file.h"
#include "io/open_session.h"
#include "memsim/engine/tier_config.h"
#include "model/device_preset.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli advise multiplex RUN RUN... [--gpu PRESET] [--memory N=SIZE ...]\n"
    "                                        [--model N=MODEL:BATCH ...]\n"
    "                                        [--time-slice DUR] [--switch-cost DUR] [--json]\n"
    "                                        [--timeline PACKED.tscope] [-o OUT]\n"
    "       tensorscope-cli advise multiplex RUN --times N ...\n"
    "\n"
    "Each RUN is one job (the GPU work of its first GPU with kernels); --times N packs N copies "
    "of one.\n"
    "Per job: GPU busy share, SM demand per kernel (blocks ÷ the GPU's resident block slots, "
    "from the\n"
    "launch configuration and occupancy; unknown counts as the whole GPU), peak memory (a "
    "session's\n"
    "allocation counter, else the simulated training step of --model N=MODEL:BATCH (an ONNX file\n"
    "or a built-in model at its batch; an upper bound), --memory N=SIZE over either, else\n"
    "unknown). The jobs are replayed "
    "together,\n"
    "looping, with their own gaps, under time-slicing (turns of --time-slice, default 2ms, "
    "switches of\n"
    "--switch-cost, default 25us), MPS (kernels together while their SM demand fits, stretched "
    "beyond)\n"
    "and MIG (--gpu A100-40GB|A100-80GB|H100|H200: each job on the smallest profile its memory "
    "needs;\n"
    "any other device preset gives the shared GPU's memory only).\n"
    "Σ = Σ packed rate ÷ alone rate; packing is recommended only above 1 with the memory "
    "fitting.\n"
    "--timeline FILE  the recommended (else MPS) packed run as a session: a stream per job\n";

int usage(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli advise multiplex: %s\n\n%s", message.c_str(), kHelp);
  return kExitUsage;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli advise multiplex: %s\n", message.c_str());
  return kExitFailure;
}

std::string percent(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100 * x);
  return text;
}

}  // namespace

int runAdviseMultiplex(const std::vector<std::string>& argv) {
  Args args;
  const std::string bad = args.parse(argv,
                                     {"--gpu", "--memory", "--model", "--time-slice",
                                      "--switch-cost", "--times", "--timeline", "-o"},
                                     {"--json", "--help"});
  if (!bad.empty()) return usage(bad);
  if (args.flag("--help")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  std::vector<std::string> runs = args.positional();
  if (runs.empty()) return usage("give the jobs' sessions");
  if (auto times = args.option("--times")) {
    const auto n = parseUnsigned(*times);
    if (!n || *n < 2 || *n > 64) return usage("--times: 2 to 64 copies");
    if (runs.size() != 1) return usage("--times packs copies of one run: give exactly one");
    runs.assign(*n, runs.front());
  }
  if (runs.size() < 2) return usage("packing needs two or more jobs (or --times N)");
  advisor::SharingOptions sharing;
  for (auto [option, field] : {std::pair{"--time-slice", &sharing.timeSlice},
                               std::pair{"--switch-cost", &sharing.switchCost}}) {
    if (auto v = args.option(option)) {
      auto d = parseDuration(*v);
      if (!d || *d <= 0) return usage(std::string(option) + " " + *v + ": a duration like 2ms");
      *field = *d;
    }
  }
  const advisor::MigGpu* mig = nullptr;
  std::optional<model::DevicePreset> preset;  // a GPU without MIG: its memory
  if (auto g = args.option("--gpu")) {
    mig = advisor::migGpu(*g);
    if (!mig) preset = model::devicePreset(*g);
    if (!mig && !preset) {
      std::string known;
      for (const model::DevicePreset& p : model::devicePresets())
        known += (known.empty() ? "" : ", ") + p.name;
      return usage("--gpu " + *g + ": not a device preset (" + known + ")");
    }
  }

  // The jobs.
  std::vector<advisor::Job> jobs;
  int64_t gpuMemory = mig      ? mig->memoryBytes
                      : preset ? static_cast<int64_t>(preset->memoryBytes)
                               : 0;
  std::string gpuName = mig ? mig->gpu : preset ? preset->name : std::string();
  std::string measuredOn;  // the first job's GPU, as its session names it
  for (size_t i = 0; i < runs.size(); ++i) {
    auto session = openForCli(runs[i]);
    if (!session) return fail(session.error());
    // Numbered first: the number is what --memory N= refers to, and tells copies apart.
    const std::string name =
        "#" + std::to_string(i + 1) + " " + std::filesystem::path(runs[i]).filename().string();
    auto job = advisor::jobFromSession(**session, name);
    if (!job) return fail(runs[i] + ": " + job.error());
    for (const Device& d : (*session)->devices) {
      if (!d.name.empty() && measuredOn.find(d.name) == std::string::npos)
        measuredOn += (measuredOn.empty() ? "" : " and ") + d.name;
      if (gpuName.empty() && !d.name.empty()) gpuName = d.name;
      if (gpuMemory == 0) gpuMemory = static_cast<int64_t>(d.memoryBytes);
    }
    jobs.push_back(std::move(*job));
  }
  std::string models;
  for (const std::string& m : args.all("--model")) models += (models.empty() ? "" : ",") + m;
  auto jobModels = advisor::parseJobModels(models, jobs.size());
  if (!jobModels) return usage("--model " + jobModels.error());
  for (const advisor::JobModel& m : *jobModels) {
    auto graph = advisor::loadModelAt(m.model, m.batch);
    if (!graph) return fail(graph.error());
    advisor::estimatePeakFromModel(jobs[m.job - 1], advisor::stepPeakBytes(*graph),
                                   m.model + " at batch " + std::to_string(m.batch));
  }
  for (const std::string& m : args.all("--memory")) {
    const size_t eq = m.find('=');
    const auto index = eq == std::string::npos ? std::nullopt : parseUnsigned(m.substr(0, eq));
    const auto bytes =
        eq == std::string::npos ? std::nullopt : memsim::parseBytes(m.substr(eq + 1));
    if (!index || *index < 1 || *index > jobs.size() || !bytes || *bytes <= 0)
      return usage("--memory " + m + ": N=SIZE with N a job's number (1 to " +
                   std::to_string(jobs.size()) + ") and SIZE like 12GiB");
    jobs[*index - 1].peakMemory = *bytes;
    jobs[*index - 1].memorySource = "given (--memory)";
  }
  if (gpuName.empty()) gpuName = "GPU";

  const advisor::MultiplexAdvice advice = advisor::adviseMultiplex(
      jobs, mig, gpuMemory, measuredOn, sharing, args.option("--gpu") ? gpuName : std::string());
  const std::vector<advisor::PackedRun>& runsBy = advice.runs;
  const auto& profiles = advice.profiles;
  const bool allKnown = advice.memoryKnown, fits = advice.fits;
  const int64_t total = advice.memoryTotal;
  const advisor::PackedRun* best =
      advice.best >= 0 ? &runsBy[static_cast<size_t>(advice.best)] : nullptr;
  const std::string& recommendation = advice.recommendation;
  const std::vector<std::string>& caveats = advice.caveats;

  // Output.
  JsonWriter json;
  json.beginObject().key("advice").value("multiplex");
  json.key("inputs").beginObject().key("gpu").value(gpuName).key("gpu_memory_bytes");
  if (gpuMemory > 0)
    json.value(gpuMemory);
  else
    json.null();
  json.key("jobs").beginArray();
  std::string text =
      "Packing " + std::to_string(jobs.size()) + " jobs on one " + gpuName +
      (gpuMemory > 0 ? " (" + formatBytes(static_cast<uint64_t>(gpuMemory)) + ")" : std::string()) +
      "\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-44s %10s %10s %12s %16s\n", "job", "pass", "GPU busy",
                "SM demand", "peak memory");
  text += line;
  for (const advisor::Job& j : jobs) {
    const double demand = advisor::meanSmDemand(j);
    json.beginObject().key("name").value(j.name).key("span_ns").value(j.span).key("step_ns");
    if (j.step)
      json.value(*j.step);
    else
      json.null();
    json.key("busy_share").value(j.busyShare()).key("sm_demand").value(demand);
    json.key("sm_demand_known").value(static_cast<uint64_t>(j.demandKnown));
    json.key("kernels").value(static_cast<uint64_t>(j.kernels)).key("peak_memory_bytes");
    if (j.peakMemory)
      json.value(*j.peakMemory);
    else
      json.null();
    json.key("memory_source").value(j.memorySource).endObject();
    std::snprintf(
        line, sizeof line, "%-44.44s %10s %10s %12s %16s\n", j.name.c_str(),
        formatDuration(j.span).c_str(), percent(j.busyShare()).c_str(), percent(demand).c_str(),
        j.peakMemory ? formatBytes(static_cast<uint64_t>(*j.peakMemory)).c_str() : "unknown");
    text += line;
  }
  json.endArray().endObject();
  text += "\n";
  json.key("predictions").beginArray();
  for (const advisor::PackedRun& r : runsBy) {
    json.beginObject().key("sharing").value(toString(r.sharing));
    json.key("normalised_throughput").value(r.normalisedThroughput);
    json.key("jobs").beginArray();
    std::snprintf(line, sizeof line, "%-13s Σ = %.2f  ", toString(r.sharing),
                  r.normalisedThroughput);
    text += line;
    for (size_t j = 0; j < jobs.size(); ++j) {
      json.beginObject().key("name").value(jobs[j].name).key("rate").value(r.rate[j]);
      json.key("span_ns").value(r.span[j]).key("step_ns");
      if (jobs[j].step && r.rate[j] > 0)
        json.value(
            static_cast<TimeNs>(std::llround(static_cast<double>(*jobs[j].step) / r.rate[j])));
      else
        json.null();
      if (r.sharing == advisor::Sharing::Mig && profiles)
        json.key("profile").value((*profiles)[j].name);
      json.endObject();
      text += (j ? ", " : "") + jobs[j].name.substr(0, 24) + " " + formatDuration(r.span[j]);
      if (jobs[j].step && r.rate[j] > 0)
        text += " (step " +
                formatDuration(static_cast<TimeNs>(
                    std::llround(static_cast<double>(*jobs[j].step) / r.rate[j]))) +
                ")";
      if (r.sharing == advisor::Sharing::Mig && profiles) text += " on " + (*profiles)[j].name;
    }
    json.endArray().endObject();
    text += "\n";
  }
  json.endArray();
  if (mig && !profiles) text += "MIG           not possible: " + advice.migUnfit + "\n";
  json.key("memory").beginObject().key("total_bytes");
  if (allKnown)
    json.value(total);
  else
    json.null();
  json.key("fits");
  if (allKnown && gpuMemory > 0)
    json.value(fits);
  else
    json.null();
  json.endObject();
  json.key("recommendation").value(recommendation);
  json.key("caveats").beginArray();
  for (const std::string& c : caveats) json.value(c);
  json.endArray().endObject();
  text += "\nmemory: " +
          (allKnown ? formatBytes(static_cast<uint64_t>(total)) + " together" +
                          (gpuMemory > 0 ? fits ? ", fits" : ", does not fit" : "")
                    : std::string("unknown for some jobs")) +
          "\n";
  // Where each job's peak came from: a measurement, a model's estimate, the user, or nowhere.
  for (const advisor::Job& j : jobs)
    text += "  " + j.name.substr(0, 24) + ": " + j.memorySource + "\n";
  text += "recommendation: " + recommendation + "\n\ncaveats:\n";
  for (const std::string& c : caveats) text += "  - " + c + "\n";

  if (auto out = args.option("--timeline")) {
    const advisor::PackedRun& shown = best ? *best : runsBy[1];
    auto session = advisor::packedSession(jobs, shown, gpuName, advice.profiles);
    if (!session) return fail(session.error());
    if (Status st = writeSessionFile(**session, *out); !st.ok()) return fail(st.error());
  }
  if (auto t = args.option("--timeline"); t && !args.flag("--json"))
    text += "\npacked run written to " + *t + "\n";
  const std::string output = args.flag("--json") ? json.str() + "\n" : text;
  if (auto path = args.option("-o")) {
    if (Status st = writeBytesAtomically(*path, output); !st.ok()) return fail(st.error());
    return kExitOk;
  }
  std::fputs(output.c_str(), stdout);
  return kExitOk;
}

}  // namespace ts::cli
