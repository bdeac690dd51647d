// tensorscope-cli stats: nsys-stats-like reports (kernels, copies, API calls, utilisation,
// overlap) of a session or of a time range of it, as a text table, CSV or JSON.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <tuple>

#include "analysis/stats_reports.h"
#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/atomic_file.h"
#include "io/open_session.h"
#include "summary/stats_combine.h"
#include "summary/stats_part.h"
#include "util/format.h"

namespace ts::cli {

namespace {

std::string helpText() {
  std::string h =
      "Usage: tensorscope-cli stats FILE... [--report NAME[,NAME...]] [--range T0:T1] [--gpu I]\n"
      "                             [--per-gpu] [--buckets N] [--min-gap DUR] [--max-gaps N]\n"
      "                             [--format table|csv|json] [-o OUT]\n"
      "       tensorscope-cli stats FILE... --shard I/N --summary-out PART [options]\n"
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
       "  -o OUT          write to OUT (atomically) instead of standard output\n"
       "\n"
       "Many rank files: each is read, summarised and released on a thread of its own (one per\n"
       "core, --threads N), so that memory holds a few ranks at a time, when every report asked\n"
       "for is one of kern_sum, mem_time, mem_size, api_sum, gpu_util, overlap, kern_hist,\n"
       "layer_sum and no --range is given (else the files are opened as one session).\n"
       "Across machines:\n"
       "  --shard I/N     summarise only files I, I+N, I+2N, ... (0 <= I < N) of the FILEs given\n"
       "                  (give every shard the same FILEs in the same order: one rank each, not\n"
       "                  a multi-rank .tscope); the eight reports above only (all eight without\n"
       "                  --report), no --range\n"
       "  --summary-out PART  write the summary there (atomically) instead of tables (without\n"
       "                  --shard: all the files, as shard 0/1); then\n"
       "                  'tensorscope-cli merge PART...' prints the tables of the whole run,\n"
       "                  the same as 'stats FILE... --report <those reports>' would\n";
  return h;
}

int usage(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli stats: %s\n\n%s", message.c_str(), helpText().c_str());
  return kExitUsage;
}

int failure(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli stats: %s\n", message.c_str());
  return kExitFailure;
}

// --shard I/N --summary-out PART: this shard's files summarised into PART.
int writeShard(const Args& args, const std::vector<std::string>& files,
               const std::vector<StatsReport>& reports, const StatsOptions& options,
               const RelativeRange& range) {
  auto out = args.option("--summary-out");
  if (!out) return usage("--shard needs --summary-out PART: where the shard's summary goes");
  if (auto why = overwritesInput(*out, files)) return usage("--summary-out: " + *why);
  StatsPart part;
  if (auto shard = args.option("--shard")) {
    auto parsed = parseShard(*shard);
    if (!parsed)
      return usage("--shard needs I/N with 0 <= I < N, such as 0/4, got '" + *shard + "'");
    std::tie(part.shard, part.shards) = *parsed;
  }
  if (range.from || range.to)
    return usage(
        "--range cannot be summarised: it is measured from the session start, which a shard "
        "does not know");
  if (args.option("--format") || args.option("-o"))
    return usage("--format and -o belong to 'tensorscope-cli merge', which prints the tables");
  for (StatsReport r : reports) {
    if (!summarisable(r))
      return usage(std::string(toString(r)) +
                   " is not summarised (it needs the whole session's diagnosis); shard kern_sum, "
                   "mem_time, mem_size, api_sum, gpu_util, overlap, kern_hist, layer_sum");
  }
  part.files = files;
  part.reports = reports;
  part.options = options;
  std::vector<std::string> incomplete;
  auto ranks = summariseRankFiles(files, shardFiles(files.size(), part.shard, part.shards), reports,
                                  options, cliOpenOptions(), &incomplete);
  if (!ranks) return failure(withRecoverHint(ranks.failure()).message);
  noteIncomplete(incomplete);
  part.ranks = std::move(*ranks);
  if (Status st = writeBytesAtomically(*out, statsPartToJson(part)); !st)
    return failure(st.error());
  return kExitOk;
}

}  // namespace

int runStats(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv,
                                 {"--report", "--range", "--gpu", "--buckets", "--min-gap",
                                  "--max-gaps", "--format", "-o", "--shard", "--summary-out"},
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
  const bool sharding = args.option("--shard") || args.option("--summary-out");
  if (reports.empty()) {
    for (StatsReport r : allStatsReports()) {
      if (!sharding || summarisable(r)) reports.push_back(r);
    }
  }
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

  const std::vector<std::string>& files = args.positional();
  if (auto out = args.option("-o")) {
    if (auto why = overwritesInput(*out, files)) return usage("-o: " + *why);
  }
  if (sharding) return writeShard(args, files, reports, options, range);

  // Rank by rank when the reports allow it: a few ranks in memory at a time, every core busy.
  const bool summaries =
      files.size() > 1 && !range.from && !range.to &&
      std::all_of(reports.begin(), reports.end(), [](StatsReport r) { return summarisable(r); });
  std::vector<StatsTable> tables;
  if (summaries) {
    std::vector<std::string> incomplete;
    auto ranks = summariseRankFiles(files, shardFiles(files.size(), 0, 1), reports, options,
                                    cliOpenOptions(), &incomplete);
    if (!ranks) return failure(withRecoverHint(ranks.failure()).message);
    noteIncomplete(incomplete);
    auto summary = combineRankSummaries(std::move(*ranks));
    if (!summary) return failure(summary.error());
    for (StatsReport r : reports) {
      auto result = renderStats(*summary, r, options);
      if (!result) return failure(std::string(toString(r)) + ": " + result.error());
      for (StatsTable& t : *result) tables.push_back(std::move(t));
    }
    return emitTables(tables, format, args.option("-o"), "stats");
  }

  auto session = openForCli(files);
  if (!session) return failure(session.error());
  const Session& s = **session;
  if (range.from) options.start = s.startTime() + *range.from;
  if (range.to) options.end = s.startTime() + *range.to;

  for (StatsReport r : reports) {
    auto result = computeStats(s, r, options);
    if (!result) return failure(std::string(toString(r)) + ": " + result.error());
    for (StatsTable& t : *result) tables.push_back(std::move(t));
  }

  return emitTables(tables, format, args.option("-o"), "stats");
}

}  // namespace ts::cli
