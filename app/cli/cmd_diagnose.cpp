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
#include "util/format.h"
#include "util/json_writer.h"

namespace ts::cli {

namespace {

constexpr const char* kHelp =
    "Usage: tensorscope-cli diagnose FILE... [--range T0:T1] [--rules R,...]\n"
    "                                [--gap-threshold DUR] [--kernel-wait DUR]\n"
    "                                [--json|--csv|--table] [-o OUT]\n"
    "\n"
    "Where the GPU time of a run goes, per rank (several FILEs are opened together as one\n"
    "multi-rank session), as HolisticTraceAnalysis defines it:\n"
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
    "  -o OUT            write to OUT (atomically) instead of standard output\n";

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

// Each table's rows as objects keyed by column, under the table's report name.
std::string toJson(const Diagnosis& d, const std::vector<StatsTable>& tables) {
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

}  // namespace

int runDiagnose(const std::vector<std::string>& argv) {
  Args args;
  if (std::string e =
          args.parse(argv, {"--range", "--kernel-wait", "--rules", "--gap-threshold", "-o"},
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
  auto session = openForCli(args.positional());
  if (!session) {
    std::fprintf(stderr, "tensorscope-cli diagnose: %s\n", session.error().c_str());
    return kExitFailure;
  }
  const Session& s = **session;
  if (range.from) options.range.start = s.startTime() + *range.from;
  if (range.to) options.range.end = s.startTime() + *range.to;
  auto diagnosis = diagnose(s, options);
  if (!diagnosis) {
    std::fprintf(stderr, "tensorscope-cli diagnose: %s\n", diagnosis.error().c_str());
    return kExitFailure;
  }
  std::vector<StatsTable> tables;
  for (DiagnosisTable t :
       {DiagnosisTable::Steps, DiagnosisTable::Temporal, DiagnosisTable::KernelTypes,
        DiagnosisTable::Idle, DiagnosisTable::CommOverlap, DiagnosisTable::Launch,
        DiagnosisTable::Queue, DiagnosisTable::Findings})
    tables.push_back(diagnosisTable(*diagnosis, t));
  if (!args.flag("--json"))
    return emitTables(tables, args.flag("--csv") ? "csv" : "table", args.option("-o"), "diagnose");
  std::string out = toJson(*diagnosis, tables);
  if (auto path = args.option("-o")) {
    if (Status st = writeBytesAtomically(*path, out); !st) {
      std::fprintf(stderr, "tensorscope-cli diagnose: %s\n", st.error().c_str());
      return kExitFailure;
    }
    return kExitOk;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace ts::cli
