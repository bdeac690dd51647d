// tensorscope-cli convert: read any supported session file, write the format OUT names.
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/open_session.h"

namespace ts::cli {

namespace {
constexpr const char* kHelp =
    "Usage: tensorscope-cli convert IN... OUT [--table kernels|memcpy|memset|api|nvtx]\n"
    "                               [--shift INDEX=NS]...\n"
    "\n"
    "Reads IN (recognised by its content: a .tscope session, a PyTorch profiler / Chrome trace\n"
    "JSON, plain or .gz) and writes OUT in the format of its extension:\n"
    "  .tscope          Tensorscope session (SQLite container; see docs/tscope-format.md)\n"
    "  .json, .json.gz  Chrome Trace Event JSON in the PyTorch profiler's conventions\n"
    "                   (opens in Perfetto UI and chrome://tracing)\n"
    "  .csv             one table, RFC 4180 with a header row (--table, default kernels)\n"
    "Several IN files become one multi-rank session (one rank per file, in order); --shift moves\n"
    "file INDEX (0-based) by NS nanoseconds after the automatic clock alignment.\n"
    "The output is written atomically: an existing OUT is replaced only once the new file is\n"
    "complete.\n";
}

// "--shift 1=-250000" → input 1 shifted by -250000 ns; none for a malformed value.
struct Shift {
  size_t input = 0;
  int64_t ns = 0;
};
std::optional<Shift> parseShift(const std::string& text) {
  auto eq = text.find('=');
  auto index = eq == std::string::npos ? std::nullopt : parseUnsigned(text.substr(0, eq));
  if (!index) return std::nullopt;
  std::string value = text.substr(eq + 1);
  char* end = nullptr;
  errno = 0;
  long long ns = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || errno != 0 || *end != '\0') return std::nullopt;
  return Shift{static_cast<size_t>(*index), ns};
}

int runConvert(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv, {"--table", "--shift"}, {"--help", "-h"}); !e.empty()) {
    std::fprintf(stderr, "tensorscope-cli convert: %s\n\n%s", e.c_str(), kHelp);
    return kExitUsage;
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().size() < 2) {
    std::fprintf(stderr, "tensorscope-cli convert: expected IN and OUT\n\n%s", kHelp);
    return kExitUsage;
  }
  WriteOptions write;
  if (auto table = args.option("--table")) {
    auto t = csvTableFromString(*table);
    if (!t) {
      std::fprintf(stderr, "tensorscope-cli convert: unknown table '%s'\n\n%s", table->c_str(),
                   kHelp);
      return kExitUsage;
    }
    write.csvTable = *t;
  }
  OpenOptions open;
  for (const std::string& shift : args.all("--shift")) {
    auto parsed = parseShift(shift);
    if (!parsed) {
      std::fprintf(stderr, "tensorscope-cli convert: --shift needs INDEX=NS, got '%s'\n",
                   shift.c_str());
      return kExitUsage;
    }
    open.shiftNs[parsed->input] += parsed->ns;
  }
  std::vector<std::string> inputs(args.positional().begin(), args.positional().end() - 1);
  auto session = openForCli(inputs, open);
  if (!session) {
    std::fprintf(stderr, "tensorscope-cli convert: %s\n", session.error().c_str());
    return kExitFailure;
  }
  if (Status st = writeSessionFile(**session, args.positional().back(), write); !st) {
    std::fprintf(stderr, "tensorscope-cli convert: %s\n", st.error().c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace ts::cli
