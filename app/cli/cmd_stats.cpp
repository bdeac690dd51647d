// tensorscope-cli stats: nsys-stats-like reports (kernels, copies, API calls, utilisation,
// overlap) of a session or of a time range of it, as a text table, CSV or JSON.
#include <cstdio>
#include <optional>

#include "analysis/stats_reports.h"
#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/open_session.h"
#include "util/format.h"

namespace ts::cli {

namespace {

std::string helpText() {
  std::string h =
      "Usage: tensorscope-cli stats FILE... [--report NAME[,NAME...]] [--range T0:T1] [--gpu I]\n"
      "                             [--per-gpu] [--buckets N] [--min-gap DUR] [--max-gaps N]\n"
      "                             [--format table|csv|json] [-o OUT]\n"
      "\n"
      "Summary reports of a session (any format Tensorscope opens, recognised by content). "
      "Several\n"
      "FILEs are opened together as one multi-rank session. Reports (default: all of them):\n";
  for (StatsReport r : allStatsReports()) {
    std::string name(toString(r));
    h += "  " + name + std::string(name.size() < 13 ? 13 - name.size() : 1, ' ') +
         std::string(describe(r)) + "\n";
  }
  h += "Options:\n"
       "  --range T0:T1   only this time range, measured from the session start; each side a "
       "number\n"
       "                  with an optional unit (ns, us, ms, s; ns when none), either side may be\n"
       "                  empty: --range 1.5ms:20ms, --range 2s:\n"
       "  --gpu I         only GPU I (0-based, in the order 'tensorscope-cli info' lists them)\n"
       "  --per-gpu       kern_sum, mem_time, mem_size: a row per GPU and name\n"
       "  --buckets N     gpu_util: time buckets across the range (default 10)\n"
       "  --min-gap DUR   gpu_util: list idle gaps at least this long (default 1ms)\n"
       "  --max-gaps N    gpu_util: list at most N gaps, longest first (default 50)\n"
       "  --format F      table (default; human units), csv (RFC 4180, raw ns / bytes / percent) "
       "or\n"
       "                  json (an array of tables); several CSV tables are separated by an empty "
       "line\n"
       "  -o OUT          write to OUT (atomically) instead of standard output\n";
  return h;
}

int usage(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli stats: %s\n\n%s", message.c_str(), helpText().c_str());
  return kExitUsage;
}

}  // namespace

int runStats(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv,
                                 {"--report", "--range", "--gpu", "--buckets", "--min-gap",
                                  "--max-gaps", "--format", "-o"},
                                 {"--per-gpu", "--help", "-h"});
      !e.empty()) {
    return usage(e);
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(helpText().c_str(), stdout);
    return kExitOk;
  }
  if (args.positional().empty()) return usage("no file given");

  std::vector<StatsReport> reports;
  for (const std::string& list : args.all("--report")) {
    size_t from = 0;
    while (from <= list.size()) {
      size_t comma = list.find(',', from);
      std::string name =
          list.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      auto r = statsReportFromString(name);
      if (!r) return usage("unknown report '" + name + "'");
      reports.push_back(*r);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  if (reports.empty()) reports.assign(allStatsReports().begin(), allStatsReports().end());

  std::string format = args.option("--format").value_or("table");
  if (format != "table" && format != "csv" && format != "json")
    return usage("unknown format '" + format + "'");

  StatsOptions options;
  options.perGpu = args.flag("--per-gpu");
  if (auto gpu = args.option("--gpu")) {
    auto n = parseUnsigned(*gpu);
    if (!n) return usage("--gpu needs a GPU index, got '" + *gpu + "'");
    options.device = static_cast<uint32_t>(*n);
  }
  if (auto buckets = args.option("--buckets")) {
    auto n = parseUnsigned(*buckets);
    if (!n || *n < 1 || *n > 1000) return usage("--buckets needs 1 to 1000");
    options.buckets = static_cast<int>(*n);
  }
  if (auto gaps = args.option("--max-gaps")) {
    auto n = parseUnsigned(*gaps);
    if (!n) return usage("--max-gaps needs a count");
    options.maxGaps = static_cast<size_t>(*n);
  }
  if (auto gap = args.option("--min-gap")) {
    auto t = parseDuration(*gap);
    if (!t || *t < 0) return usage("--min-gap needs a duration such as 500us, got '" + *gap + "'");
    options.minGap = *t;
  }

  RelativeRange range;
  if (auto text = args.option("--range")) {
    auto parsed = parseRelativeRange(*text);
    if (!parsed)
      return usage("--range needs T0:T1 with durations such as 1.5ms:20ms, got '" + *text + "'");
    range = *parsed;
  }

  auto session = openForCli(args.positional());
  if (!session) {
    std::fprintf(stderr, "tensorscope-cli stats: %s\n", session.error().c_str());
    return kExitFailure;
  }
  const Session& s = **session;
  if (range.from) options.start = s.startTime() + *range.from;
  if (range.to) options.end = s.startTime() + *range.to;

  std::vector<StatsTable> tables;
  for (StatsReport r : reports) {
    auto result = computeStats(s, r, options);
    if (!result) {
      std::fprintf(stderr, "tensorscope-cli stats: %s: %s\n", std::string(toString(r)).c_str(),
                   result.error().c_str());
      return kExitFailure;
    }
    for (StatsTable& t : *result) tables.push_back(std::move(t));
  }

  return emitTables(tables, format, args.option("-o"), "stats");
}

}  // namespace ts::cli
