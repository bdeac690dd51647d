// tensorscope-cli capture: run a CUDA program under the CUPTI injection library and write what it
// did as a session. Built only with the CUDA toolkit (see capture/).
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "app/cli/cli_args.h"
#include "util/format.h"

#ifdef TSCOPE_HAVE_CAPTURE
#include "capture/capture_kinds.h"
#include "capture/launcher.h"
#include "io/atomic_file.h"
#endif

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli capture -o OUT.tscope [--duration S] [--delay S] [--kinds LIST]\n"
    "                               [--env K=V]... [--cwd DIR] [--interval S] [--timings CSV]\n"
    "                               -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM (arguments passed as they are, no shell; its output goes to this terminal)\n"
    "with the CUPTI injection library and records its kernels, copies, memsets, streams, CUDA\n"
    "API calls, NVTX ranges and GPU memory allocations — and those of its child processes.\n"
    "The session is saved every\n"
    "2 s while it runs (a crash or kill leaves a readable file, marked incomplete) and at the end\n"
    "with the program's exit status, which is also this command's.\n"
    "  -o OUT          output; %p launcher pid, %h host, %r rank (RANK, OMPI_COMM_WORLD_RANK,\n"
    "                  PMI_RANK or SLURM_PROCID), e.g. -o run.%r.tscope under torchrun / mpirun\n"
    "  --duration S    stop after S seconds (the program is asked to terminate)\n"
    "  --delay S       keep only what happens after S seconds (both count from the launch)\n"
    "  --kinds LIST    comma list of kernel, memcpy, memset, runtime, driver, nvtx, sync, memory\n"
    "                  (default: all but driver)\n"
    "  --env K=V       add to the program's environment (repeatable)\n"
    "  --cwd DIR       run the program in DIR\n"
    "  --interval S    seconds from one live snapshot to the next (default 2); the file is\n"
    "                  saved as often, or ten times as long apart as the last save took\n"
    "  --timings CSV   write how long each live snapshot and each save took (what, at_s,\n"
    "                  events, seconds) and sum them up at the end\n"
    "Ctrl+C stops the capture, asks the program to end and saves.\n";

#ifdef TSCOPE_HAVE_CAPTURE
std::atomic<bool> gStop{false};
void onInterrupt(int) {
  gStop = true;
}

std::optional<double> parseSeconds(const std::string& text) {
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || !end || *end != '\0' || !(seconds >= 0) || !std::isfinite(seconds))
    return std::nullopt;
  return seconds;
}

// The CSV, and on stderr the snapshots' mean and worst (overall and over the last tenth of the
// run: what a long capture costs once it is long) and the writes'.
Status writeTimings(const std::string& path, const std::vector<capture::CaptureResult::Timing>& t) {
  using What = capture::CaptureResult::Timing::What;
  std::string csv = "what,at_s,events,seconds\n";
  char line[128];
  for (const auto& x : t) {
    const char* what = x.what == What::Snapshot ? "snapshot"
                       : x.what == What::Write  ? "write"
                                                : "final_save";
    std::snprintf(line, sizeof line, "%s,%.3f,%zu,%.6f\n", what, x.atSeconds, x.events, x.seconds);
    csv += line;
  }
  TS_RETURN_IF_ERROR(writeBytesAtomically(path, csv));
  const double end = t.empty() ? 0 : t.back().atSeconds;
  auto sum = [&](What what, double from) {
    size_t n = 0;
    double total = 0, worst = 0;
    for (const auto& x : t) {
      if (x.what != what || x.atSeconds < from) continue;
      ++n, total += x.seconds, worst = std::max(worst, x.seconds);
    }
    std::snprintf(line, sizeof line, "%zu, mean %.1f ms, worst %.1f ms", n,
                  n ? 1e3 * total / static_cast<double>(n) : 0.0, 1e3 * worst);
    return std::string(line);
  };
  std::fprintf(stderr, "tensorscope-cli capture: snapshots %s; last tenth %s; writes %s\n",
               sum(What::Snapshot, 0).c_str(), sum(What::Snapshot, 0.9 * end).c_str(),
               sum(What::Write, 0).c_str());
  return {};
}
#endif

}  // namespace

int runCapture(const std::vector<std::string>& argv) {
  // Everything after "--", or from the first word that is not an option of ours, is the
  // program's own: its options are not parsed here.
  const std::set<std::string> valued = {"-o",    "--duration", "--delay",   "--kinds",
                                        "--env", "--cwd",      "--timings", "--interval"};
  std::vector<std::string> ours, program;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      program.assign(argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
      break;
    }
    if (a.size() > 1 && a[0] == '-') {
      ours.push_back(a);
      if (valued.count(a) && i + 1 < argv.size()) ours.push_back(argv[++i]);
      continue;
    }
    program.assign(argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end());
    break;
  }
  Args args;
  if (std::string e = args.parse(ours, valued, {"--help", "-h"}); !e.empty()) {
    std::fprintf(stderr, "tensorscope-cli capture: %s\n\n%s", e.c_str(), kHelp);
    return kExitUsage;
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  auto usage = [&](const std::string& m) {
    std::fprintf(stderr, "tensorscope-cli capture: %s\n\n%s", m.c_str(), kHelp);
    return kExitUsage;
  };
  if (program.empty()) return usage("no program given (put it after --)");
  auto output = args.option("-o");
  if (!output) return usage("no output given (-o OUT.tscope)");
#ifndef TSCOPE_HAVE_CAPTURE
  std::fprintf(stderr,
               "tensorscope-cli capture: this build has no capture: it was built without the CUDA "
               "toolkit (CUPTI)\n");
  return kExitFailure;
#else
  capture::CaptureOptions o;
  o.argv = program;
  o.output = capture::expandOutputName(*output);
  if (o.output.size() < 7 || o.output.substr(o.output.size() - 7) != ".tscope")
    o.output += ".tscope";
  if (auto d = args.option("--duration")) {
    auto seconds = parseSeconds(*d);
    if (!seconds) return usage("--duration needs seconds");
    o.durationSeconds = *seconds;
  }
  if (auto d = args.option("--delay")) {
    auto seconds = parseSeconds(*d);
    if (!seconds) return usage("--delay needs seconds");
    o.delaySeconds = *seconds;
  }
  if (o.durationSeconds > 0 && o.delaySeconds >= o.durationSeconds)
    return usage("--delay " + *args.option("--delay") + " leaves nothing of --duration " +
                 *args.option("--duration") + " to record: make it shorter");
  if (auto k = args.option("--kinds")) {
    o.kinds = *k;
    if (std::string_view bad = capture::unknownCaptureKind(*k); !bad.empty())
      return usage("unknown kind '" + std::string(bad) + "'");
  }
  for (const std::string& e : args.all("--env")) {
    auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0) return usage("--env needs K=V, got '" + e + "'");
    o.env.emplace_back(e.substr(0, eq), e.substr(eq + 1));
  }
  if (auto cwd = args.option("--cwd")) o.workingDirectory = *cwd;
  if (auto i = args.option("--interval")) {
    auto seconds = parseSeconds(*i);
    if (!seconds || *seconds < 0.1) return usage("--interval needs seconds (at least 0.1)");
    o.saveIntervalSeconds = *seconds;
  }

  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  capture::CaptureHooks hooks;
  hooks.progress.cancel = &gStop;  // Ctrl-C stops the recording; what was recorded is saved
  auto result = capture::runCapture(o, hooks);
  if (result.cancelled()) {  // Ctrl-C before the program started: nothing ran
    std::fprintf(stderr, "tensorscope-cli capture: stopped before the program started\n");
    return 128 + SIGINT;
  }
  if (!result) {
    std::fprintf(stderr, "tensorscope-cli capture: %s\n", result.error().c_str());
    return kExitFailure;
  }
  for (const std::string& m : result->messages)
    std::fprintf(stderr, "tensorscope-cli capture: %s\n", m.c_str());
  std::fprintf(stderr, "tensorscope-cli capture: %s: %s events%s%s", result->output.c_str(),
               formatCount(result->events).c_str(),
               result->dropped
                   ? (", " + formatCount(result->dropped) +
                      (result->dropped == 1 ? " record" : " records") + " lost (causes above)")
                         .c_str()
                   : "",
               result->incomplete ? ", incomplete (a process ended before its last flush)" : "");
  if (result->exitCode)
    std::fprintf(stderr, "; program exited with %d\n", *result->exitCode);
  else if (result->signal)
    std::fprintf(stderr, "; program killed by signal %d\n", *result->signal);
  else
    std::fprintf(stderr, "\n");
  if (auto path = args.option("--timings")) {
    if (Status st = writeTimings(*path, result->timings); !st) {
      std::fprintf(stderr, "tensorscope-cli capture: %s\n", st.error().c_str());
      return kExitFailure;
    }
  }
  if (result->signal) return 128 + *result->signal;
  return result->exitCode.value_or(kExitFailure);
#endif
}

}  // namespace ts::cli
