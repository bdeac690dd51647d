// tensorscope-cli merge: the shards of a `stats` or `diagnose` run (--shard I/N --summary-out
// PART), made on other machines or at other times, as the tables one run over all the files
// prints.
#include <cstdio>

#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/text_file.h"
#include "summary/diagnosis_part.h"
#include "summary/part_reader.h"
#include "summary/stats_part.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli merge PART... [--format table|csv|json] [-o OUT]\n"
    "\n"
    "The tables of a 'stats' or 'diagnose' run split into shards: each PART written by\n"
    "  tensorscope-cli stats FILE... --shard I/N --summary-out PART [--report ...] [options]\n"
    "  tensorscope-cli diagnose FILE... --shard I/N --summary-out PART [options]\n"
    "with the same FILEs and options on every shard I of N. The parts must cover every shard\n"
    "once; the output is what 'tensorscope-cli stats FILE... --report R [options]' prints, R\n"
    "the reports the shards summarised (without --report: kern_sum, mem_time, mem_size,\n"
    "api_sum, gpu_util, overlap, kern_hist, layer_sum), or what 'tensorscope-cli diagnose\n"
    "FILE... [options]' prints.\n"
    "Options:\n"
    "  --format F      table (default), csv or json, as stats and diagnose\n"
    "  --json, --csv, --table  the same as --format json, csv, table\n"
    "  -o OUT          write to OUT (atomically) instead of standard output\n";

int usage(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli merge: %s\n\n%s", message.c_str(), kHelp);
  return kExitUsage;
}

int failure(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli merge: %s\n", message.c_str());
  return kExitFailure;
}

}  // namespace

int runMerge(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e =
          args.parse(argv, {"--format", "-o"}, {"--json", "--csv", "--table", "--help", "-h"});
      !e.empty())
    return usage(e);
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().empty()) return usage("no part given");
  if (args.flag("--json") + args.flag("--csv") + args.flag("--table") +
          args.option("--format").has_value() >
      1)
    return usage("--format, --json, --csv and --table exclude each other");
  const std::string format = args.flag("--json")  ? "json"
                             : args.flag("--csv") ? "csv"
                                                  : args.option("--format").value_or("table");
  if (format != "table" && format != "csv" && format != "json")
    return usage("unknown format '" + format + "'");
  if (auto out = args.option("-o")) {
    if (auto why = overwritesInput(*out, args.positional())) return failure(*why);
  }
  // Each part parsed as it is read (its text let go), by the reader its format names.
  std::vector<DiagnosisPart> diagnoses;
  std::vector<StatsPart> parts;
  for (const std::string& path : args.positional()) {
    auto text = readTextFile(path);
    if (!text) return failure(text.error());
    const std::string kind = partFormat(text->view());
    if (text->size() == 0) return failure(path + ": an empty file, not a part");
    if (kind != "tensorscope stats summary" && kind != "tensorscope diagnosis summary")
      return failure(path +
                     ": not a part of a sharded run (made by 'tensorscope-cli stats|diagnose "
                     "FILE... --shard I/N --summary-out PART')");
    const bool diagnosis = kind == "tensorscope diagnosis summary";
    if (diagnosis) {
      auto part = diagnosisPartFromJson(path, text->view());
      if (!part) return failure(part.error());
      diagnoses.push_back(std::move(*part));
    } else {
      auto part = statsPartFromJson(path, text->view());
      if (!part) return failure(part.error());
      parts.push_back(std::move(*part));
    }
    if (!diagnoses.empty() && !parts.empty())
      return failure("the parts mix 'stats' and 'diagnose' shards (" + path + " is a " +
                     (diagnosis ? "diagnose" : "stats") + " part): merge each run's parts apart");
  }
  if (!diagnoses.empty()) {
    auto merged = mergeDiagnosisParts(std::move(diagnoses), args.positional());
    if (!merged) return failure(merged.error());
    return printDiagnosis(merged->diagnosis, format, args.option("-o"), "merge");
  }
  auto merged = mergeStatsParts(std::move(parts), args.positional());
  if (!merged) return failure(merged.error());
  std::vector<StatsTable> tables;
  for (StatsReport r : merged->reports) {
    auto result = renderStats(merged->summary, r, merged->options);
    if (!result) return failure(std::string(toString(r)) + ": " + result.error());
    for (StatsTable& t : *result) tables.push_back(std::move(t));
  }
  return emitTables(tables, format, args.option("-o"), "merge");
}

}  // namespace ts::cli
