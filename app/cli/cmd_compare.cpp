// tensorscope-cli compare: two sessions side by side (before / after): kernels by name and copies
// by kind, with the change.
#include <cstdio>

#include "analysis/session_compare.h"
#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/open_session.h"
#include "memsim/reports/layer_compare.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli compare A B [--format table|csv|json | --json | --csv] [-o OUT]\n"
    "       tensorscope-cli compare MEASURED SIM.tscope --layers [--policy P] [--format ...] [-o "
    "OUT]\n"
    "\n"
    "Compares two sessions (any format Tensorscope opens): kernels by name (count, total and mean\n"
    "in A and B, Δ = B − A and Δ %, largest change first, then the sum over all kernels) and "
    "copies\n"
    "by kind and memsets (count, bytes, time, Δ). CSV gives the two tables one after the other,\n"
    "separated by an empty line; JSON an array of the two.\n"
    "--layers: a measured run against a simulation of its model (simulate --model M --session\n"
    "MEASURED -o SIM.tscope), per layer: the measured GPU time inside its NVTX forward/<layer> "
    "and\n"
    "backward/<layer> ranges (averaged over iterations) and the simulated policy's (--policy, "
    "default\n"
    "the first), with the difference.\n";

int usage(const std::string& m) {
  std::fprintf(stderr, "tensorscope-cli compare: %s\n\n%s", m.c_str(), kHelp);
  return kExitUsage;
}

}  // namespace

int runCompare(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv, {"--format", "-o", "--policy"},
                                 {"--help", "-h", "--layers", "--json", "--csv"});
      !e.empty())
    return usage(e);
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().size() != 2) return usage("give two sessions, A and B");
  if (int(args.flag("--json")) + int(args.flag("--csv")) +
          int(args.option("--format").has_value()) >
      1) {
    return usage("give one of --format, --json or --csv");
  }
  std::string format = args.flag("--json")  ? "json"
                       : args.flag("--csv") ? "csv"
                                            : args.option("--format").value_or("table");
  if (format != "table" && format != "csv" && format != "json")
    return usage("unknown format '" + format + "'");
  SessionPtr sessions[2];
  for (int i = 0; i < 2; ++i) {
    auto s = openForCli(args.positional()[static_cast<size_t>(i)]);
    if (!s) {
      std::fprintf(stderr, "tensorscope-cli compare: %s\n", s.error().c_str());
      return kExitFailure;
    }
    sessions[i] = *s;
  }
  if (args.flag("--layers")) {
    auto table =
        memsim::compareLayers(*sessions[0], *sessions[1], args.option("--policy").value_or(""));
    if (!table) {
      std::fprintf(stderr, "tensorscope-cli compare: %s: %s\n", args.positional()[1].c_str(),
                   table.error().c_str());
      return kExitFailure;
    }
    table->notes.insert(table->notes.begin(), "Measured = " + args.positional()[0] +
                                                  ", simulated = " + args.positional()[1] + ".");
    return emitTables({*table}, format, args.option("-o"), "compare");
  }
  std::vector<StatsTable> tables = {compareKernels(*sessions[0], *sessions[1]),
                                    compareCopies(*sessions[0], *sessions[1])};
  for (StatsTable& t : tables)
    t.notes.insert(t.notes.begin(),
                   "A = " + args.positional()[0] + ", B = " + args.positional()[1] + ".");
  return emitTables(tables, format, args.option("-o"), "compare");
}

}  // namespace ts::cli
