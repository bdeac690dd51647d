// tensorscope-cli advise: what to change about where a job runs. `advise hetero` splits one job
// across GPUs of different generations (data or pipeline parallel) and predicts its step.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "advisor/consolidate.h"
#include "advisor/hetero.h"
#include "advisor/hetero_inputs.h"
#include "advisor/hetero_timeline.h"
#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/atomic_file.h"
#include "io/open_session.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli advise multiplex RUN RUN... (see advise multiplex --help)\n"
    "       tensorscope-cli advise consolidate RUN --gpus-per-node G (see advise consolidate "
    "--help)\n"
    "       tensorscope-cli advise hetero --device TYPE[:COUNT] --device TYPE[:COUNT] ... "
    "--batch B\n"
    "                                     [--model M.onnx|ZOO_NAME] [--throughput TYPE=X,...]\n"
    "                                     [--parallel data|pipeline] [--layers N]\n"
    "                                     [--link pcie3|pcie4|pcie5|nvlink2|nvlink3|nvlink4]\n"
    "                                     [--optimizer sgd|adam] [--json] [-o OUT]\n"
    "                                     [--timeline PREDICTED.tscope]\n"
    "                                     [--session TYPE=RUN ... --run-batch N]\n"
    "\n"
    "hetero  one job across GPUs of different generations. Data parallel: each device's batch in\n"
    "        proportion to its throughput (integers summing to B, capped by what its memory\n"
    "        holds), the step = the slowest device + the gradients' ring all-reduce; pipeline:\n"
    "        contiguous layer ranges per device (in the order given) minimising the slowest "
    "stage,\n"
    "        activations and their gradients crossing the link between stages. Both beside the\n"
    "        even split. Throughput comes from --throughput (any common unit, e.g. K80=1,V100=2)\n"
    "        or is estimated from --model on each device preset's roofline (V100, A100-40GB,\n"
    "        A100-80GB, H100, H200, K80, P100), which also gives the gradients, the layers and "
    "the\n"
    "        memory limits. Without a model, --layers N equal layers for --parallel pipeline.\n"
    "--session TYPE=RUN  a device type's throughput measured: N samples (--run-batch) over the "
    "run's\n"
    "        median step; wins over the estimate (a --throughput wins over both)\n"
    "--json  one object: inputs (and where each came from), prediction, recommendation, "
    "assumptions\n"
    "--timeline FILE  the prediction as a session (any format by extension): data parallel, "
    "the step\n"
    "        (a GPU per device, its kernels, the all-reduce, the update); pipeline, four batches "
    "through\n"
    "        the stages in steady state\n";

int usage(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli advise: %s\n\n%s", message.c_str(), kHelp);
  return kExitUsage;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli advise: %s\n", message.c_str());
  return kExitFailure;
}

std::optional<advisor::Interconnect> linkPreset(const std::string& name) {
  auto link = advisor::intraNodeLink(name);
  if (!link) return std::nullopt;
  return advisor::Interconnect{link->name, link->bytesPerSecond, link->latencyNs};
}

std::string seconds(int64_t ns) {
  return formatDuration(ns);
}

}  // namespace

int runAdvise(const std::vector<std::string>& argv) {
  if (argv.empty()) return usage("which advice? (hetero, multiplex, consolidate)");
  if (argv.front() == "--help" || argv.front() == "-h") {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (argv.front() == "multiplex")
    return runAdviseMultiplex(std::vector<std::string>(argv.begin() + 1, argv.end()));
  if (argv.front() == "consolidate")
    return runAdviseConsolidate(std::vector<std::string>(argv.begin() + 1, argv.end()));
  if (argv.front() != "hetero")
    return usage("unknown advice '" + argv.front() + "' (hetero, multiplex, consolidate)");
  Args args;
  const std::string bad =
      args.parse(std::vector<std::string>(argv.begin() + 1, argv.end()),
                 {"--device", "--batch", "--model", "--throughput", "--parallel", "--layers",
                  "--link", "--optimizer", "-o", "--timeline", "--session", "--run-batch"},
                 {"--json", "--help"});
  if (!bad.empty()) return usage(bad);
  if (args.flag("--help")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (!args.positional().empty())
    return usage("unexpected argument '" + args.positional()[0] + "'");
  // Devices, each count expanded.
  auto parsedDevices = advisor::parseDevices(args.all("--device"));
  if (!parsedDevices) return usage("--device: " + parsedDevices.error());
  const std::vector<std::string> types = *parsedDevices;
  if (types.size() < 2) return usage("give at least two devices (--device TYPE[:COUNT])");
  const auto batchText = args.option("--batch");
  if (!batchText) return usage("--batch B is required (the job's global batch)");
  const auto batch = parseUnsigned(*batchText);
  if (!batch || *batch == 0 || *batch > (1ull << 40)) return usage("--batch: a positive integer");
  const std::string parallel = args.option("--parallel").value_or("data");
  if (parallel != "data" && parallel != "pipeline")
    return usage("--parallel: data or pipeline, not '" + parallel + "'");
  advisor::Interconnect link = *linkPreset("pcie4");
  if (auto l = args.option("--link")) {
    auto preset = linkPreset(*l);
    if (!preset)
      return usage("--link " + *l + ": pcie3, pcie4, pcie5, nvlink2, nvlink3 or nvlink4");
    link = *preset;
  }
  model::Optimizer optimizer = model::Optimizer::SgdMomentum;
  if (auto o = args.option("--optimizer")) {
    auto parsed = model::optimizerFromName(*o);
    if (!parsed) return usage("--optimizer " + *o + ": sgd or adam");
    optimizer = *parsed;
  }
  // Throughputs given: TYPE=X,...
  std::map<std::string, double> givenSpeed;
  if (auto t = args.option("--throughput")) {
    auto parsed = advisor::parseThroughputs(*t);
    if (!parsed) return usage("--throughput: " + parsed.error());
    givenSpeed = *parsed;
  }

  // Throughputs measured: TYPE=RUN, each run of the same step on that device type at --run-batch.
  std::map<std::string, double> measuredSpeed;
  if (!args.all("--session").empty()) {
    const auto runBatchText = args.option("--run-batch");
    const auto runBatch = runBatchText ? parseUnsigned(*runBatchText) : std::nullopt;
    if (!runBatch || *runBatch == 0)
      return usage("--session needs --run-batch N: the batch each measured run trained with");
    for (const std::string& item : args.all("--session")) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 >= item.size())
        return usage("--session " + item + ": TYPE=RUN");
      std::string type = item.substr(0, eq);
      for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto run = openForCli(item.substr(eq + 1));
      if (!run) return fail(run.error());
      auto speed = advisor::measuredSamplesPerSecond(**run, static_cast<int64_t>(*runBatch));
      if (!speed) return fail(item.substr(eq + 1) + ": " + speed.error());
      measuredSpeed[type] = *speed;
    }
  }

  auto setup =
      advisor::heteroSetup(types, args.option("--model").value_or(""), static_cast<int64_t>(*batch),
                           optimizer, givenSpeed, measuredSpeed);
  if (!setup) {
    // A device without a throughput is the user's omission; the rest are failures.
    if (setup.error().starts_with("no throughput for"))
      return usage(setup.error() + " (--throughput TYPE=X, --session TYPE=RUN or --model)");
    return fail(setup.error());
  }
  std::vector<advisor::HeteroDevice>& devices = setup->devices;
  std::vector<advisor::PipelineLayer>& layers = setup->layers;
  const std::vector<int64_t>& memory = setup->memory;
  const int64_t gradientBytes = setup->gradientBytes;
  std::vector<std::string>& assumptions = setup->assumptions;
  const std::string& modelName = setup->modelName;

  JsonWriter json;
  std::string text;
  char line[256];
  json.beginObject().key("advice").value("hetero").key("parallel").value(parallel);
  json.key("inputs").beginObject();
  json.key("batch").value(static_cast<int64_t>(*batch));
  if (!modelName.empty()) json.key("model").value(modelName);
  json.key("link")
      .beginObject()
      .key("name")
      .value(link.name)
      .key("bytes_per_second")
      .value(link.bytesPerSecond);
  json.key("latency_ns").value(static_cast<int64_t>(link.latencyNs)).endObject();
  json.key("devices").beginArray();
  for (const advisor::HeteroDevice& d : devices) {
    json.beginObject()
        .key("type")
        .value(d.type)
        .key("samples_per_second")
        .value(d.samplesPerSecond);
    json.key("source").value(advisor::toString(d.source)).key("max_batch");
    if (d.maxBatch)
      json.value(*d.maxBatch);
    else
      json.null();
    json.endObject();
  }
  json.endArray();
  if (gradientBytes) json.key("gradient_bytes").value(gradientBytes);
  json.endObject();

  std::string recommendation;
  if (parallel == "data") {
    if (!setup->allReduceAssumption.empty()) assumptions.push_back(setup->allReduceAssumption);
    auto plan =
        advisor::planDataParallel(devices, static_cast<int64_t>(*batch), gradientBytes, link);
    if (!plan) return fail(plan.error());
    auto split = [&](const char* name, const advisor::DataSplit& s) {
      json.key(name)
          .beginObject()
          .key("step_ns")
          .value(s.stepNs)
          .key("all_reduce_ns")
          .value(s.allReduceNs);
      json.key("update_ns").value(s.updateNs);
      json.key("devices").beginArray();
      for (size_t i = 0; i < devices.size(); ++i)
        json.beginObject()
            .key("type")
            .value(devices[i].type)
            .key("batch")
            .value(s.batch[i])
            .key("compute_ns")
            .value(s.computeNs[i])
            .endObject();
      json.endArray().endObject();
    };
    json.key("prediction").beginObject();
    split("balanced", plan->balanced);
    split("even", plan->even);
    json.key("speedup")
        .value(plan->speedup)
        .key("capped_by_memory")
        .value(plan->capped)
        .endObject();
    std::snprintf(line, sizeof line, "Data parallel, global batch %llu, %zu devices, %s\n\n",
                  *batch, devices.size(), link.name.c_str());
    text += line;
    std::snprintf(line, sizeof line, "%-10s %12s %10s %14s %12s %10s %12s\n", "device", "samples/s",
                  "source", "max batch", "batch", "compute", "even batch");
    text += line;
    for (size_t i = 0; i < devices.size(); ++i) {
      const advisor::HeteroDevice& d = devices[i];
      std::snprintf(line, sizeof line, "%-10s %12.4g %10s %14s %12lld %10s %12lld\n",
                    d.type.c_str(), d.samplesPerSecond, advisor::toString(d.source),
                    d.maxBatch ? std::to_string(*d.maxBatch).c_str() : "unknown",
                    static_cast<long long>(plan->balanced.batch[i]),
                    seconds(plan->balanced.computeNs[i]).c_str(),
                    static_cast<long long>(plan->even.batch[i]));
      text += line;
    }
    text += "\nall-reduce of " + formatBytes(static_cast<uint64_t>(gradientBytes)) + ": " +
            seconds(plan->balanced.allReduceNs) +
            "; optimizer update (after it): " + seconds(plan->balanced.updateNs) + "\n";
    text += "predicted step: " + seconds(plan->balanced.stepNs) +
            " (even split: " + seconds(plan->even.stepNs) + ")\n";
    recommendation = advisor::dataParallelAdvice(*plan);
    if (auto out = args.option("--timeline")) {
      std::string title = modelName.empty() ? std::string("given throughputs") : modelName;
      title += ", batch " + std::to_string(*batch) + " on";
      for (const advisor::HeteroDevice& d : devices) title += " " + d.type;
      auto session = advisor::dataParallelTimeline(
          devices, plan->balanced, static_cast<int64_t>(*batch), layers, gradientBytes, title);
      if (!session) return fail(session.error());
      if (Status st = writeSessionFile(**session, *out); !st.ok()) return fail(st.error());
    }
  } else {
    if (layers.empty()) {
      const auto n = args.option("--layers");
      if (!n) return usage("--parallel pipeline needs --model, or --layers N equal layers");
      const auto count = parseUnsigned(*n);
      if (!count || *count == 0 || *count > 100000) return usage("--layers: a positive integer");
      for (unsigned long long l = 0; l < *count; ++l) {
        advisor::PipelineLayer layer;
        layer.name = "layer " + std::to_string(l + 1);
        // A sample through one layer takes 1/count of the device's sample time.
        for (const advisor::HeteroDevice& d : devices)
          layer.nsOnDevice.push_back(
              static_cast<int64_t>(std::llround(static_cast<double>(*batch) / d.samplesPerSecond /
                                                static_cast<double>(*count) * 1e9)));
        layers.push_back(std::move(layer));
      }
      assumptions.push_back("equal layers: each takes 1/" + std::to_string(*count) +
                            " of a device's step, and hands on no activation");
    }
    auto plan = advisor::planPipeline(layers, devices, memory, link);
    if (!plan) return fail(plan.error());
    assumptions.push_back(advisor::kPipelineAssumption);
    if (auto out = args.option("--timeline")) {
      const std::string title = (modelName.empty() ? std::string("equal layers") : modelName) +
                                ", pipeline of " + std::to_string(devices.size()) + " stages";
      auto session = advisor::pipelineTimeline(devices, plan->balanced, layers, 4, title);
      if (!session) return fail(session.error());
      if (Status st = writeSessionFile(**session, *out); !st.ok()) return fail(st.error());
    }
    auto split = [&](const char* name, const advisor::PipelineSplit& p) {
      json.key(name).beginObject().key("step_ns").value(p.stepNs).key("stages").beginArray();
      for (const advisor::PipelineStage& s : p.stages) {
        json.beginObject().key("type").value(devices[s.device].type);
        json.key("first_layer").value(layers[s.firstLayer].name);
        json.key("last_layer").value(layers[s.endLayer - 1].name);
        json.key("layers").value(static_cast<int64_t>(s.endLayer - s.firstLayer));
        json.key("compute_ns").value(s.computeNs).key("transfer_ns").value(s.transferNs);
        json.key("memory_bytes").value(s.memoryBytes).endObject();
      }
      json.endArray().endObject();
    };
    json.key("prediction").beginObject();
    split("balanced", plan->balanced);
    split("even", plan->even);
    json.key("speedup").value(plan->speedup).endObject();
    std::snprintf(line, sizeof line, "Pipeline parallel, %zu layers, %zu stages, %s\n\n",
                  layers.size(), devices.size(), link.name.c_str());
    text += line;
    std::snprintf(line, sizeof line, "%-10s %8s %-44s %12s %12s %12s %8s\n", "device", "layers",
                  "from … to", "compute", "transfer", "memory", "even");
    text += line;
    for (size_t i = 0; i < plan->balanced.stages.size(); ++i) {
      const advisor::PipelineStage& s = plan->balanced.stages[i];
      const std::string range = layers[s.firstLayer].name + " … " + layers[s.endLayer - 1].name;
      std::snprintf(
          line, sizeof line, "%-10s %8zu %-44.44s %12s %12s %12s %8zu\n",
          devices[s.device].type.c_str(), s.endLayer - s.firstLayer, range.c_str(),
          seconds(s.computeNs).c_str(), seconds(s.transferNs).c_str(),
          memory.empty() ? "—" : formatBytes(static_cast<uint64_t>(s.memoryBytes)).c_str(),
          plan->even.stages[i].endLayer - plan->even.stages[i].firstLayer);
      text += line;
    }
    text += "\npredicted step (slowest stage): " + seconds(plan->balanced.stepNs) +
            " (even split: " + seconds(plan->even.stepNs) + ")\n";
    recommendation = advisor::pipelineAdvice(*plan);
  }
  json.key("recommendation").value(recommendation);
  json.key("assumptions").beginArray();
  for (const std::string& a : assumptions) json.value(a);
  json.endArray().endObject();
  text += "recommendation: " + recommendation + "\n\nassumptions:\n";
  for (const std::string& a : assumptions) text += "  - " + a + "\n";

  if (auto t = args.option("--timeline"); t && !args.flag("--json"))
    text += "\npredicted run written to " + *t + "\n";
  const std::string out = args.flag("--json") ? json.str() + "\n" : text;
  if (auto path = args.option("-o")) {
    if (Status st = writeBytesAtomically(*path, out); !st.ok()) return fail(st.error());
    return kExitOk;
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace ts::cli
