// tensorscope-cli generate: deterministic synthetic sessions for tests and benchmarks.
#include <cstdio>

#include "app/cli/cli_args.h"
#include "io/open_session.h"
#include "synth/synthetic_session.h"
#include "util/format.h"

namespace ts::cli {

namespace {
constexpr const char* kHelp =
    "Usage: tensorscope-cli generate [--events N] [--gpus G] [--streams S] [--seed K] OUT.tscope\n"
    "\n"
    "Writes a synthetic training-like session: kernels, copies and memsets on S streams per GPU,\n"
    "their launch API calls (with flows), NVTX layer ranges and a memory counter.\n"
    "The same options always give the same file contents.\n"
    "  --events N   total events (default 10000)\n"
    "  --gpus G     GPUs, 1-64 (default 1)\n"
    "  --streams S  streams per GPU, 1-256 (default 2)\n"
    "  --seed K     random seed (default 1)\n";
}

int runGenerate(const std::vector<std::string>& argv) {
  Args args;
  std::string e = args.parse(argv, {"--events", "--gpus", "--streams", "--seed"}, {"--help", "-h"});
  if (!e.empty()) {
    std::fprintf(stderr, "tensorscope-cli generate: %s\n\n%s", e.c_str(), kHelp);
    return kExitUsage;
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().size() != 1) {
    std::fprintf(stderr, "tensorscope-cli generate: expected one output file\n\n%s", kHelp);
    return kExitUsage;
  }
  SyntheticSpec spec;
  struct Opt {
    const char* name;
    unsigned long long* out;
  };
  unsigned long long events = spec.events, gpus = spec.gpus, streams = spec.streamsPerGpu,
                     seed = spec.seed;
  for (Opt o : {Opt{"--events", &events}, Opt{"--gpus", &gpus}, Opt{"--streams", &streams},
                Opt{"--seed", &seed}}) {
    auto v = args.option(o.name);
    if (!v) continue;
    auto n = parseUnsigned(*v);
    if (!n) {
      std::fprintf(stderr, "tensorscope-cli generate: %s needs a non-negative integer, got '%s'\n",
                   o.name, v->c_str());
      return kExitUsage;
    }
    *o.out = *n;
  }
  if (gpus < 1 || gpus > 64 || streams < 1 || streams > 256) {
    std::fprintf(stderr, "tensorscope-cli generate: --gpus must be 1-64 and --streams 1-256\n");
    return kExitUsage;
  }
  spec.events = events;
  spec.gpus = static_cast<int>(gpus);
  spec.streamsPerGpu = static_cast<int>(streams);
  spec.seed = seed;
  auto session = generateSyntheticSession(spec);
  if (!session) {
    std::fprintf(stderr, "tensorscope-cli generate: %s\n", session.error().c_str());
    return kExitFailure;
  }
  const std::string& out = args.positional()[0];
  if (Status st = writeSessionFile(**session, out); !st) {
    std::fprintf(stderr, "tensorscope-cli generate: %s\n", st.error().c_str());
    return kExitFailure;
  }
  std::printf("%s: %s events\n", out.c_str(), formatCount((*session)->eventCount()).c_str());
  return kExitOk;
}

}  // namespace ts::cli
