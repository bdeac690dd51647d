// tensorscope-cli model: ONNX models — their layer table, a summary, and the built-in zoo.
#include <cstdio>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/atomic_file.h"
#include "io/open_session.h"
#include "memsim/formats/from_model.h"
#include "memsim/reports/memory_report.h"
#include "model/astra_workload.h"
#include "model/chakra_workload.h"
#include "model/layer_table.h"
#include "model/measured_times.h"
#include "model/model_zoo.h"
#include "model/onnx_loader.h"
#include "model/training_step.h"

namespace ts::cli {

namespace {

std::string helpText() {
  std::string zoo;
  for (const std::string& n : model::zooModels()) zoo += (zoo.empty() ? "" : ", ") + n;
  return "Usage: tensorscope-cli model table MODEL.onnx [--batch N] [--layers] [--csv|--json]\n"
         "       tensorscope-cli model info MODEL.onnx [--batch N] [--json]\n"
         "       tensorscope-cli model step MODEL.onnx [--batch N] [--device PRESET] [--optimizer "
         "sgd|adam]\n"
         "                                  [--csv|--json]\n"
         "       tensorscope-cli model memory MODEL.onnx|ZOO-NAME [--batch N] [--optimizer "
         "sgd|adam]\n"
         "                                  [--csv|--json]\n"
         "       tensorscope-cli model astra MODEL.onnx --parallel "
         "DATA|MODEL|HYBRID_DATA_MODEL|HYBRID_MODEL_DATA\n"
         "                                  --npus N [--model-dim M] [--weights-only] [--batch N]\n"
         "                                  [--device PRESET] [--optimizer sgd|adam] -o OUT.txt\n"
         "       tensorscope-cli model chakra MODEL.onnx --parallel DATA --npus N [--weights-only] "
         "[--batch N]\n"
         "                                  [--device PRESET] [--optimizer sgd|adam] -o PREFIX\n"
         "       tensorscope-cli model zoo NAME [--batch N] -o OUT.onnx\n"
         "       tensorscope-cli model zoo --list\n"
         "\n"
         "table  per op: name, type, trainable parameters, weight type and bytes, output "
         "(activation)\n"
         "       bytes, FLOPs (a multiply-add is 2) and output shape, then the totals; --layers "
         "keeps\n"
         "       the ops with parameters\n"
         "info   ops by type, parameters, bytes, FLOPs, inputs and outputs\n"
         "step   the training step: per op a forward kernel, backward kernels (input gradient; "
         "weight\n"
         "       gradient for ops with weights) and an optimizer update per weight, with the "
         "tensors\n"
         "       each reads and writes and its roofline time on the device (default A100-40GB; "
         "also\n"
         "       V100, A100-80GB, H100, H200)\n"
         "memory the training step's memory as PyTorch's allocator holds it: bytes allocated at "
         "the end\n"
         "       of each layer's forward, backward and update and the most while it runs, the "
         "peak and\n"
         "       its make-up (weights, gradients, optimizer state, activations, workspace); the "
         "figure\n"
         "       simulate, the overlay and advise show for the same model and batch\n"
         "astra  ASTRA-sim's legacy workload text: a line per layer (an op with weights, with the\n"
         "       normalisations and biases after it), compute in ns from the roofline, "
         "communication\n"
         "       in bytes at fp32 (DATA: weight-gradient ALLREDUCE of the layer's parameters, or "
         "of\n"
         "       its main weight with --weights-only; MODEL and hybrids: activation ALLGATHER /\n"
         "       ALLREDUCE, compute divided by the model-parallel ways, --model-dim for hybrids)\n"
         "chakra Chakra execution traces for ASTRA-sim 2.x: PREFIX.<npu>.et per NPU (data "
         "parallel:\n"
         "       forward compute per layer, then per layer in reverse weight-gradient compute, "
         "its\n"
         "       all-reduce, input-gradient compute)\n"
         "zoo    writes a built-in model as ONNX without weight data (weights are graph inputs "
         "with\n"
         "       their shapes): " +
         zoo +
         "\n"
         "--session FILE  step, astra, chakra: kernel times measured in FILE (any session format) "
         "where\n"
         "       its NVTX ranges forward/<layer>, backward/<layer> name the model's layers, else "
         "by\n"
         "       order when it holds exactly the step's forward (or forward and backward) kernels\n"
         "--batch N  resolves a symbolic batch dimension (default 1; zoo: leaves it symbolic "
         "unless given)\n";
}

int usage(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli model: %s\n\n%s", message.c_str(), helpText().c_str());
  return kExitUsage;
}

int failure(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli model: %s\n", message.c_str());
  return kExitFailure;
}

bool readBatch(const Args& args, int64_t& batch) {
  if (auto b = args.option("--batch")) {
    auto n = parseUnsigned(*b);
    if (!n || *n == 0 || *n > (1u << 24)) return false;
    batch = static_cast<int64_t>(*n);
  }
  return true;
}

}  // namespace

int runModel(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e =
          args.parse(argv,
                     {"--batch", "-o", "--device", "--optimizer", "--parallel", "--npus",
                      "--model-dim", "--session"},
                     {"--help", "-h", "--csv", "--json", "--layers", "--list", "--weights-only"});
      !e.empty()) {
    return usage(e);
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(helpText().c_str(), stdout);
    return kExitOk;
  }
  const auto& pos = args.positional();
  if (pos.empty()) return usage("no subcommand (table, info or zoo)");
  const std::string& sub = pos[0];
  if (sub == "zoo") {
    if (args.flag("--list")) {
      for (const std::string& n : model::zooModels()) std::printf("%s\n", n.c_str());
      return kExitOk;
    }
    if (pos.size() != 2) return usage("zoo needs a model name (--list shows them)");
    auto out = args.option("-o");
    if (!out) return usage("zoo needs -o OUT.onnx");
    int64_t batch = 0;
    if (!readBatch(args, batch)) return usage("--batch needs a positive number");
    auto bytes = model::zooModelBytes(pos[1], batch);
    if (!bytes) return failure(bytes.error());
    if (Status st = writeBytesAtomically(*out, *bytes); !st) return failure(st.error());
    return kExitOk;
  }
  if (sub != "table" && sub != "info" && sub != "step" && sub != "memory" && sub != "astra" &&
      sub != "chakra") {
    return usage("unknown subcommand '" + sub + "'");
  }
  if (pos.size() != 2) return usage(sub + " needs one MODEL.onnx");
  model::LoadOptions options;
  if (!readBatch(args, options.batch)) return usage("--batch needs a positive number");
  // memory also takes a built-in model's name, as simulate --model does.
  auto graph = sub == "memory" ? model::loadModelOrZoo(pos[1], options)
                               : model::loadOnnxModel(pos[1], options);
  if (!graph) return failure(graph.error());
  model::StepOptions step;
  if (auto d = args.option("--device")) {
    auto preset = model::devicePreset(*d);
    if (!preset)
      return usage("unknown device '" + *d + "' (V100, A100-40GB, A100-80GB, H100, H200)");
    step.device = *preset;
  }
  if (auto opt = args.option("--optimizer")) {
    auto optimizer = model::optimizerFromName(*opt);
    if (!optimizer) return usage("--optimizer is sgd or adam");
    step.optimizer = *optimizer;
  }
  // The training step, its kernel times from a measured session when one is given.
  auto makeStep = [&]() -> Result<model::TrainingStep> {
    model::TrainingStep st = model::expandTrainingStep(*graph, step);
    if (auto sessionPath = args.option("--session")) {
      auto session = openForCli(*sessionPath);
      if (!session) return session.failure();
      model::MappingReport r =
          model::applyMeasuredTimes(*graph, model::measureLayerTimes(**session), st);
      std::fprintf(stderr,
                   "tensorscope-cli model: kernel times from %s: %s, %zu of %zu layers mapped\n",
                   sessionPath->c_str(), std::string(model::toString(r.method)).c_str(),
                   r.layersMapped, r.layers);
      if (r.method == model::MappingMethod::None)
        return Error{*sessionPath +
                     ": no NVTX forward/<layer> range names a layer of the model, "
                     "and its kernel count matches no order mapping"};
    }
    return st;
  };
  if (sub == "chakra") {
    auto p = args.option("--parallel");
    if (!p || *p != "DATA") return usage("chakra writes data-parallel traces: --parallel DATA");
    auto npus = args.option("--npus");
    auto n = npus ? parseUnsigned(*npus) : std::nullopt;
    if (!n || *n == 0 || *n > 65536) return usage("--npus needs a positive number");
    auto out = args.option("-o");
    if (!out) return usage("chakra needs -o PREFIX");
    auto st = makeStep();
    if (!st) return failure(st.error());
    auto layers = model::modelLayers(*graph, *st);
    if (layers.empty()) return failure(pos[1] + ": no layer with weights");
    auto written = model::writeChakra(
        model::chakraDataParallel(layers, args.flag("--weights-only")), *out, static_cast<int>(*n));
    if (!written) return failure(written.error());
    return kExitOk;
  }
  if (sub == "astra") {
    model::AstraOptions a;
    auto p = args.option("--parallel");
    auto parallel = p ? model::parallelismFromString(*p) : std::nullopt;
    if (!parallel)
      return usage("--parallel needs DATA, MODEL, HYBRID_DATA_MODEL or HYBRID_MODEL_DATA");
    a.parallelism = *parallel;
    auto npus = args.option("--npus");
    auto n = npus ? parseUnsigned(*npus) : std::nullopt;
    if (!n || *n == 0) return usage("--npus needs a positive number");
    a.npus = static_cast<int>(*n);
    if (auto m = args.option("--model-dim")) {
      auto dim = parseUnsigned(*m);
      if (!dim || *dim == 0) return usage("--model-dim needs a positive number");
      a.modelDim = static_cast<int>(*dim);
    }
    a.weightsOnly = args.flag("--weights-only");
    auto out = args.option("-o");
    if (!out) return usage("astra needs -o OUT.txt");
    auto st = makeStep();
    if (!st) return failure(st.error());
    auto text = model::astraText(*graph, *st, a);
    if (!text) return failure(text.error());
    if (Status st = writeBytesAtomically(*out, *text); !st) return failure(st.error());
    return kExitOk;
  }
  StatsTable table;
  if (sub == "step") {
    auto st = makeStep();
    if (!st) return failure(st.error());
    table = model::stepTable(*st);
  } else if (sub == "memory") {
    auto st = makeStep();
    if (!st) return failure(st.error());
    const memsim::SimWorkload w = memsim::workloadFromModel(*graph, *st);
    table = memsim::stepMemoryTable(w, memsim::stepMemory(w));
  } else {
    table = sub == "table" ? model::layerTable(*graph, args.flag("--layers"))
                           : model::modelSummary(*graph);
  }
  return emitTables({table},
                    args.flag("--json")  ? "json"
                    : args.flag("--csv") ? "csv"
                                         : "table",
                    std::nullopt, "model");
}

}  // namespace ts::cli
