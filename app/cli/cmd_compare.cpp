// tensorscope-cli compare: two sessions side by side (before / after): kernels by name and copies
// by kind, with the change.
#include <cstdio>

#include "analysis/session_compare.h"
#include "cli/cli_args.h"
#include "io/open_session.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli compare A B [--format table|csv|json] [-o OUT]\n"
    "\n"
    "Compares two sessions (any format Tensorscope opens): kernels by name (count, total and mean\n"
    "in A and B, Δ = B − A and Δ %, largest change first, then the sum over all kernels) and copies\n"
    "by kind and memsets (count, bytes, time, Δ). CSV gives the two tables one after the other,\n"
    "separated by an empty line; JSON an array of the two.\n";

int usage(const std::string& m) {
  std::fprintf(stderr, "tensorscope-cli compare: %s\n\n%s", m.c_str(), kHelp);
  return kExitUsage;
}

}  // namespace

int runCompare(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv, {"--format", "-o"}, {"--help", "-h"}); !e.empty()) return usage(e);
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().size() != 2) return usage("give two sessions, A and B");
  std::string format = args.option("--format").value_or("table");
  if (format != "table" && format != "csv" && format != "json") return usage("unknown format '" + format + "'");
  SessionPtr sessions[2];
  for (int i = 0; i < 2; ++i) {
    auto s = openSessionFile(args.positional()[static_cast<size_t>(i)]);
    if (!s) {
      std::fprintf(stderr, "tensorscope-cli compare: %s\n", s.error().c_str());
      return kExitFailure;
    }
    sessions[i] = *s;
  }
  std::vector<StatsTable> tables = {compareKernels(*sessions[0], *sessions[1]), compareCopies(*sessions[0], *sessions[1])};
  for (StatsTable& t : tables) t.notes.insert(t.notes.begin(), "A = " + args.positional()[0] + ", B = " + args.positional()[1] + ".");
  return emitTables(tables, format, args.option("-o"), "compare");
}

}  // namespace ts::cli
