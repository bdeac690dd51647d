// tensorscope-cli: the command-line face of Tensorscope (info, convert, generate, ...).
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "util/version.h"

namespace {

constexpr const char* kUsage =
    "Usage: tensorscope-cli COMMAND [ARGS...]\n"
    "\n"
    "Commands:\n"
    "  info FILE... [--json]        devices, duration and event counts of session files\n"
    "  convert IN OUT               convert a session (format chosen by OUT's extension)\n"
    "  stats FILE... [--report R]   kernel, copy, API, utilisation and overlap summaries\n"
    "  merge PART...                the stats tables of shards' summaries (stats --shard I/N\n"
    "                               --summary-out PART), as one stats run over all the files\n"
    "  diagnose FILE... [--json]    where GPU time goes: idle by cause, compute/communication\n"
    "                               overlap, per rank\n"
    "  capture -o OUT -- PROGRAM ARGS...\n"
    "                               record a CUDA program's GPU work, API calls and NVTX\n"
    "  simulate --g10 DIR|--model M  memory tiers: G10 and baseline plans, simulated iterations\n"
    "  advise hetero --device T[:N] --device T[:N] --batch B [--model M] [--throughput ...]\n"
    "                               split a job across GPU generations, predict its step\n"
    "  advise multiplex RUN RUN... [--gpu PRESET]\n"
    "                               should jobs share one GPU (time-slicing, MPS, MIG)?\n"
    "  advise consolidate RUN --gpus-per-node G\n"
    "                               would the job run faster on fewer machines?\n"
    "  compare A B                  two sessions: kernels by name and copies by kind, with the "
    "change\n"
    "  model table|info|zoo ...     ONNX models: layer table, summary, built-in zoo\n"
    "  export FILE --chart NAME|--timeline --format png|svg|pdf -o OUT\n"
    "                               a chart or the timeline as an image, without a display\n"
    "  generate --events N --gpus G --streams S --seed K OUT.tscope\n"
    "                               write a deterministic synthetic session\n"
    "\n"
    "Run 'tensorscope-cli COMMAND --help' for a command's options.\n"
    "--recover, with any command: open a damaged JSON trace (cut short, or with impossible\n"
    "events) without its damaged part; the session is marked incomplete, with the reason.\n"
    "--threads N, with any command: read files on N threads (default: one per core).\n"
    "Exit status: 0 success, 1 failure, 2 usage error.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace ts::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  std::string command = args.front();
  args.erase(args.begin());
  setRecoverDamagedTraces(takeRecoverFlag(args));
  if (std::string error; !takeThreadsOption(args, error)) {
    std::fprintf(stderr, "tensorscope-cli: %s\n", error.c_str());
    return kExitUsage;
  }
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (command == "--version") {
    std::printf("tensorscope-cli %s\n", ts::kVersion);
    return kExitOk;
  }
  if (command == "info") return runInfo(args);
  if (command == "convert") return runConvert(args);
  if (command == "generate") return runGenerate(args);
  if (command == "stats") return runStats(args);
  if (command == "merge") return runMerge(args);
  if (command == "diagnose") return runDiagnose(args);
  if (command == "capture") return runCapture(args);
  if (command == "model") return runModel(args);
  if (command == "compare") return runCompare(args);
  if (command == "simulate") return runSimulate(args);
  if (command == "advise") return runAdvise(args);
  if (command == "export") {
#ifdef TSCOPE_HAVE_EXPORT
    return runExportModule(args);
#else
    std::fprintf(stderr,
                 "tensorscope-cli export: this build has no Qt (TSCOPE_BUILD_GUI=OFF): charts and "
                 "images are unavailable\n");
    return kExitFailure;
#endif
  }
  std::fprintf(stderr, "tensorscope-cli: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return kExitUsage;
}
