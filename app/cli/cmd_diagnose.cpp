// tensorscope-cli diagnose: why a training run's GPU time goes where it goes — per rank the
// temporal breakdown, the overlap of computation, communication and memory work, idle time by
// cause per stream and communication/computation overlap (HolisticTraceAnalysis's definitions),
// as one JSON object, CSV tables or text tables.
#include <cstdio>
#include <variant>

#include "analysis/diagnosis_tables.h"
#include "analysis/rules/rules.h"
#include "app/cli/cli_args.h"
#include "app/cli/cli_open.h"
#include "io/atomic_file.h"
#include "io/open_session.h"
#include "summary/diagnosis_part.h"
#include "summary/stats_part.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli diagnose FILE... [--range T0:T1] [--rules R,...]\n"
    "                                [--gap-threshold DUR] [--kernel-wait DUR]\n"
    "                                [--json|--csv|--table] [-o OUT]\n"
    "       tensorscope-cli diagnose FILE... --shard I/N --summary-out PART [options]\n"
    "\n"
    "Where the GPU time of a run goes, per rank, as HolisticTraceAnalysis defines it. Several\n"
    "FILEs are the ranks of one job: without --range each is opened and diagnosed alone on a\n"
    "core of its own and the results combined (a few ranks in memory at a time); the output is\n"
    "the same as for the files opened together as one multi-rank session.\n"
    "  steps         per training step (ProfilerStep#N, NVTX step N / iteration N, repeated\n"
    "                forward/<layer> ranges, else the repeated kernel sequence): step time, GPU\n"
    "                busy by kind, exposed communication, idle by cause, data loading, forward,\n"
    "                backward and optimizer CPU time where annotated, outliers\n"
    "  temporal      kernel span, idle, compute and non-compute time\n"
    "  kernel_types  time in COMPUTATION, COMMUNICATION (nccl*), MEMORY (copies, memsets) and\n"
    "                each \"X overlapping Y\" combination\n"
    "  idle          per stream, idle time before each operation by cause: host wait (its\n"
    "                launch started after the stream's previous operation ended), kernel wait\n"
    "                (a gap under --kernel-wait), other, unknown (launch not in the trace)\n"
    "  comm_overlap  share of communication time overlapped by computation\n"
    "  launch        per operation name: CPU launch time, GPU time, launch delay (start − end\n"
    "                of the launching call), short operations (GPU time under the launch's\n"
    "                CPU time), runtime outliers (launch > 50 us), delay outliers (> 100 us)\n"
    "  queue         per stream: outstanding operations (launched, not finished), max and mean,\n"
    "                and time blocked on a full queue (1024)\n"
    "  findings      the expert rules, largest cost first, each with its advice:\n"
    "%RULES%"
    "Options:\n"
    "  --range T0:T1     only this time range, from the session start (1.5ms:20ms, 2s:)\n"
    "  --rules R,...     run only these rules (default: all)\n"
    "  --gap-threshold DUR  gpu_gaps: GPU idle at least this long (default 500ms)\n"
    "  --kernel-wait DUR gaps shorter than this are kernel wait (default 30ns)\n"
    "  --json            one object: {\"steps\": [...], \"temporal\": [...], \"kernel_types\": "
    "[...],\n"
    "                    \"idle\": [...], \"comm_overlap\": [...], \"launch\": [...], \"queue\": "
    "[...],\n"
    "                    \"findings\": [...], \"coverage\": {...}, \"notes\": [...]}; times in ns\n"
    "                    from the session start\n"
    "  --csv             the tables as CSV, separated by an empty line\n"
    "  --table           the tables as text (default)\n"
    "  -o OUT            write to OUT (atomically) instead of standard output\n"
    "  --shard I/N       diagnose only files I, I+N, I+2N, ... (0 <= I < N) of the FILEs given\n"
    "                    (give every shard the same FILEs in the same order: one rank each, not\n"
    "                    a multi-rank .tscope), no --range\n"
    "  --summary-out PART  write the shard's diagnosis there (atomically) instead of tables\n"
    "                    (without --shard: all the files, as shard 0/1); 'tensorscope-cli\n"
    "                    merge PART...' then prints what 'diagnose FILE...' prints for all\n"
    "                    the files\n";

// The help text with the rules listed from the registry, so that it cannot miss one.
std::string help() {
  std::string rules;
  for (const RuleInfo& r : expertRules()) {
    std::string name(r.name);
    rules += "                  " + name +
             std::string(name.size() < 18 ? 18 - name.size() : 1, ' ') + std::string(r.summary) +
             "\n";
  }
  std::string h = kHelp;
  h.replace(h.find("%RULES%"), 7, rules);
  return h;
}

int usage(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli diagnose: %s\n\n%s", message.c_str(), help().c_str());
  return kExitUsage;
}

void cell(JsonWriter& w, const StatsCell& c) {
  if (const auto* s = std::get_if<std::string>(&c))
    w.value(*s);
  else if (const auto* i = std::get_if<int64_t>(&c))
    w.value(*i);
  else if (const auto* d = std::get_if<double>(&c))
    w.value(*d);
  else
    w.null();
}

int failure(const std::string& message) {
  std::fprintf(stderr, "tensorscope-cli diagnose: %s\n", message.c_str());
  return kExitFailure;
}

}  // namespace

// Each table's rows as objects keyed by column, under the table's report name.
std::string diagnosisJson(const Diagnosis& d, const std::vector<StatsTable>& tables) {
  JsonWriter w;
  w.beginObject();
  for (const StatsTable& t : tables) {
    w.key(t.report).beginArray();
    for (const auto& row : t.rows) {
      w.beginObject();
      for (size_t c = 0; c < t.columns.size() && c < row.size(); ++c) {
        w.key(t.columns[c].key);
        cell(w, row[c]);
      }
      w.endObject();
    }
    w.endArray();
  }
  // How much the figures rest on: idle causes need each operation's launching call.
  w.key("coverage").beginObject();
  w.key("gpu_ops").value(static_cast<uint64_t>(d.gpuOps));
  w.key("gpu_ops_in_session").value(static_cast<uint64_t>(d.gpuOpsInSession));
  w.key("gpu_ops_with_launch").value(static_cast<uint64_t>(d.gpuOpsWithLaunch));
  w.endObject();
  w.key("notes").beginArray();
  for (const StatsTable& t : tables) {
    for (const std::string& n : t.notes) w.value(t.report + ": " + n);
  }
  w.endArray();
  w.endObject();
  return w.str() + "\n";
}

int printDiagnosis(const Diagnosis& d, const std::string& format,
                   const std::optional<std::string>& path, const char* command) {
  std::vector<StatsTable> tables;
  for (DiagnosisTable t :
       {DiagnosisTable::Steps, DiagnosisTable::Temporal, DiagnosisTable::KernelTypes,
        DiagnosisTable::Idle, DiagnosisTable::CommOverlap, DiagnosisTable::Launch,
        DiagnosisTable::Queue, DiagnosisTable::Findings})
    tables.push_back(diagnosisTable(d, t));
  if (format != "json") return emitTables(tables, format, path, command);
  std::string out = diagnosisJson(d, tables);
  if (path) {
    if (Status st = writeBytesAtomically(*path, out); !st) {
      std::fprintf(stderr, "tensorscope-cli %s: %s\n", command, st.error().c_str());
      return kExitFailure;
    }
    return kExitOk;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

int runDiagnose(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e = args.parse(argv,
                                 {"--range", "--kernel-wait", "--rules", "--gap-threshold", "-o",
                                  "--shard", "--summary-out"},
                                 {"--json", "--csv", "--table", "--help", "-h"});
      !e.empty()) {
    return usage(e);
  }
  if (args.flag("--help") || args.flag("-h")) {
    std::fputs(help().c_str(), stdout);
    return kExitOk;
  }
  if (args.positional().empty()) return usage("no file given");
  if (args.flag("--json") + args.flag("--csv") + args.flag("--table") > 1)
    return usage("--json, --csv and --table exclude each other");
  DiagnoseOptions options;
  if (auto text = args.option("--kernel-wait")) {
    auto t = parseDuration(*text);
    if (!t || *t < 0)
      return usage("--kernel-wait needs a duration such as 30ns, got '" + *text + "'");
    options.kernelWaitBelow = *t;
  }
  if (auto text = args.option("--gap-threshold")) {
    auto t = parseDuration(*text);
    if (!t || *t <= 0)
      return usage("--gap-threshold needs a positive duration such as 500ms, got '" + *text + "'");
    options.rules.gapThreshold = *t;
  }
  if (auto text = args.option("--rules")) {
    auto names = parseRuleList(*text);
    if (!names) return usage("--rules: " + names.error());
    options.ruleNames = std::move(*names);
  }
  RelativeRange range;
  if (auto text = args.option("--range")) {
    auto parsed = parseRelativeRange(*text);
    if (!parsed)
      return usage("--range needs T0:T1 with durations such as 1.5ms:20ms, got '" + *text + "'");
    range = *parsed;
  }
  const std::string format = args.flag("--json") ? "json" : args.flag("--csv") ? "csv" : "table";
  const std::vector<std::string>& files = args.positional();
  if (auto out = args.option("-o")) {
    if (auto why = overwritesInput(*out, files)) return usage("-o: " + *why);
  }

  if (args.option("--shard") || args.option("--summary-out")) {
    auto out = args.option("--summary-out");
    if (!out) return usage("--shard needs --summary-out PART: where the shard's diagnosis goes");
    if (auto why = overwritesInput(*out, files)) return usage("--summary-out: " + *why);
    DiagnosisPart part;
    if (auto shard = args.option("--shard")) {
      auto parsed = parseShard(*shard);
      if (!parsed)
        return usage("--shard needs I/N with 0 <= I < N, such as 0/4, got '" + *shard + "'");
      std::tie(part.shard, part.shards) = *parsed;
    }
    if (range.from || range.to)
      return usage(
          "--range cannot be sharded: it is measured from the session start, which a shard "
          "does not know");
    if (args.flag("--json") || args.flag("--csv") || args.flag("--table") || args.option("-o"))
      return usage(
          "--json, --csv, --table and -o belong to 'tensorscope-cli merge', which "
          "prints the diagnosis");
    part.files = files;
    part.options = options;
    std::vector<std::string> incomplete;
    auto ranks = diagnoseRankFiles(files, shardFiles(files.size(), part.shard, part.shards),
                                   options, cliOpenOptions(), &incomplete);
    if (!ranks) return failure(withRecoverHint(ranks.failure()).message);
    noteIncomplete(incomplete);
    part.ranks = std::move(*ranks);
    if (Status st = writeBytesAtomically(*out, diagnosisPartToJson(part)); !st)
      return failure(st.error());
    return kExitOk;
  }

  // Rank by rank: a few ranks in memory at a time, every core busy. Ranks that mark their steps
  // too differently to be judged apart are diagnosed as one session instead.
  if (files.size() > 1 && !range.from && !range.to) {
    std::vector<std::string> incomplete;
    auto ranks = diagnoseRankFiles(files, shardFiles(files.size(), 0, 1), options, cliOpenOptions(),
                                   &incomplete);
    if (!ranks) return failure(withRecoverHint(ranks.failure()).message);
    bool differently = false;
    auto diagnosis = combineRankDiagnoses(std::move(*ranks), options, &differently);
    if (diagnosis) {
      noteIncomplete(incomplete);
      return printDiagnosis(*diagnosis, format, args.option("-o"), "diagnose");
    }
    if (!differently) return failure(diagnosis.error());
  }

  auto session = openForCli(files);
  if (!session) return failure(session.error());
  const Session& s = **session;
  if (range.from) options.range.start = s.startTime() + *range.from;
  if (range.to) options.range.end = s.startTime() + *range.to;
  auto diagnosis = diagnose(s, options);
  if (!diagnosis) return failure(diagnosis.error());
  return printDiagnosis(*diagnosis, format, args.option("-o"), "diagnose");
}

}  // namespace ts::cli
