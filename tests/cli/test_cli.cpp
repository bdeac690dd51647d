// Runs the real tensorscope-cli binary: exit codes, help, usage errors, generate → info → convert.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "command_test.h"
#include "io/tscope_file.h"
#include "session/session_summary.h"
#include "session_fixture.h"

namespace ts {

namespace fs = std::filesystem;

struct CliRun {
  int exitCode;
  std::string out;  // stdout and stderr together
};

CliRun cli(const std::string& args) {
  auto [code, out] = testing::runCommand(std::string(TSCOPE_CLI) + " " + args);
  return {code, out};
}

using Cli = testing::TempDirTest;

TEST_F(Cli, HelpOnEveryCommandExitsZero) {
  for (const char* cmd : {"--help", "info --help", "convert --help", "generate --help",
                          "stats --help", "model --help", "diagnose --help", "advise --help",
                          "advise multiplex --help", "merge --help"}) {
    CliRun r = cli(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd;
    EXPECT_NE(r.out.find("Usage: tensorscope-cli"), std::string::npos) << cmd;
  }
}

TEST_F(Cli, UsageErrorsExitTwo) {
  for (const char* cmd : {"",
                          "frobnicate",
                          "info",
                          "info --bogus x.tscope",
                          "convert only-one",
                          "generate",
                          "generate --events",
                          "generate --events -5 x.tscope",
                          "generate --gpus 0 x.tscope",
                          "generate --events ten x.tscope",
                          "stats",
                          "stats x.tscope --report bogus",
                          "stats x.tscope --format xml",
                          "stats x.tscope --range 5",
                          "stats x.tscope --range 1min:2min",
                          "stats x.tscope --buckets 0",
                          "stats x.tscope --min-gap soon",
                          "diagnose",
                          "diagnose x.tscope --json --csv",
                          "diagnose x.tscope --kernel-wait soon",
                          "diagnose x.tscope --range 5",
                          "model",
                          "model frob x.onnx",
                          "model table",
                          "model zoo resnet50",
                          "model table x.onnx --batch 0",
                          "info x.tscope --threads 0",
                          "info x.tscope --threads",
                          "stats --threads many x.tscope"}) {
    CliRun r = cli(cmd);
    EXPECT_EQ(r.exitCode, 2) << "'" << cmd << "': " << r.out;
  }
}

TEST_F(Cli, FailuresExitOneAndNameTheFile) {
  std::string missing = path("missing.tscope");
  CliRun r = cli("info " + missing);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find(missing), std::string::npos) << r.out;
  std::ofstream(path("junk.tscope")) << "not a session";
  r = cli("info " + path("junk.tscope"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("unrecognised format"), std::string::npos) << r.out;
  std::ofstream(path("cut.json"))
      << R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": 1}, {"ph": "X", "na)";
  r = cli("info " + path("cut.json"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("truncated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--recover opens it"), std::string::npos) << r.out;
  // --recover, anywhere on the line: the complete event opens, the session says it is incomplete.
  r = cli("info --recover " + path("cut.json") + " --json");
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("\"events\": 1,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"incomplete_reason\": \"" + path("cut.json") +
                       ": the trace ends inside trace event 2 at byte 82; the 1 event before it is "
                       "complete\""),
            std::string::npos)
      << r.out;
  // --threads anywhere on the line: the same reading (the same error here) on one thread.
  CliRun one = cli("info --threads 1 " + path("cut.json"));
  EXPECT_EQ(one.exitCode, 1);
  EXPECT_NE(one.out.find("truncated"), std::string::npos) << one.out;
  r = cli("convert " + std::string(TSCOPE_SAMPLE) + " " + path("out.xyz"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("cannot write '.xyz'"), std::string::npos) << r.out;
  EXPECT_EQ(cli("convert " + std::string(TSCOPE_SAMPLE) + " x.csv --table bogus").exitCode, 2);
  EXPECT_EQ(cli("convert " + std::string(TSCOPE_SAMPLE) + " x.csv --shift 1").exitCode, 2);
  // A number past 32 bits in a G10 workload: was an uncaught std::out_of_range (abort).
  r = cli("simulate --g10 " + std::string(TSCOPE_SHARED_DATA) + "/crashers/g10-stoi-out-of-range");
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_NE(r.out.find("tensors.config:57: tensor id 57333333333 is out of range"),
            std::string::npos)
      << r.out;
  // A model that crashes libonnx's shape inference: was a segmentation fault of the CLI.
  r = cli("model table " + std::string(TSCOPE_SHARED_DATA) +
          "/crashers/onnx-shape-inference-segv.onnx");
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_NE(r.out.find("onnx-shape-inference-segv.onnx: the ONNX library crashed"),
            std::string::npos)
      << r.out;
}

TEST_F(Cli, GenerateIsDeterministicAndInfoJsonHasTheCounts) {
  std::string a = path("a.tscope"), b = path("b.tscope");
  ASSERT_EQ(cli("generate --events 5001 --gpus 2 --streams 3 --seed 9 " + a).exitCode, 0);
  ASSERT_EQ(cli("generate --events=5001 --gpus=2 --streams=3 --seed=9 " + b).exitCode, 0);
  // Same options, same bytes: the created time is fixed for generated sessions.
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  std::string ca((std::istreambuf_iterator<char>(fa)), {}),
      cb((std::istreambuf_iterator<char>(fb)), {});
  EXPECT_EQ(ca, cb);

  CliRun r = cli("info --json " + a);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto loaded = loadSession(a);
  ASSERT_TRUE(loaded.ok());
  SessionSummary want = summarize(**loaded);

  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(uint64_t(doc["kernels"]), want.kernels);
  EXPECT_EQ(uint64_t(doc["memsets"]), want.memsets);
  EXPECT_EQ(uint64_t(doc["api_calls"]), want.apiCalls);
  EXPECT_EQ(uint64_t(doc["nvtx_ranges"]), want.nvtxRanges);
  EXPECT_EQ(uint64_t(doc["streams"]), 6u);
  EXPECT_EQ(uint64_t(doc["events"]), 5001u);
  EXPECT_EQ(int64_t(doc["duration_ns"]), (*loaded)->duration());
  for (const char* kind : {"HtoD", "DtoH", "DtoD", "PtoP", "other"}) {
    auto k = copyKindFromString(kind);
    ASSERT_TRUE(k);
    EXPECT_EQ(uint64_t(doc["memcpy"][kind]), want.memcpyCount[static_cast<size_t>(*k)]) << kind;
    EXPECT_EQ(uint64_t(doc["memcpy_bytes"][kind]), want.memcpyBytes[static_cast<size_t>(*k)])
        << kind;
  }
  simdjson::dom::array devices = doc["devices"];
  EXPECT_EQ(devices.size(), 2u);
  EXPECT_EQ(std::string_view(devices.at(0)), "Synthetic A100-SXM4-40GB");
}

// A capture's lost records: the total, then each cause that occurred, in the text and the JSON.
TEST_F(Cli, InfoListsTheCausesOfLostRecords) {
  std::shared_ptr<Session> s = copySession(*testing::makeFixtureSession());
  s->provenance.droppedRecords = 1'502;
  s->provenance.lost = {{"dropped by CUPTI (its buffers were full)", 1'500},
                        {"unreadable (incomplete or invalid)", 2}};
  const std::string file = path("lost.tscope");
  ASSERT_TRUE(saveSession(*s, file).ok());
  CliRun r = cli("info " + file);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("LOST          1,502 records while recording"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1,500 dropped by CUPTI (its buffers were full)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2 unreadable (incomplete or invalid)\n"), std::string::npos) << r.out;
  r = cli("info --json " + file);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(uint64_t(doc["dropped_records"]), 1'502u);
  EXPECT_EQ(uint64_t(doc["lost"]["dropped by CUPTI (its buffers were full)"]), 1'500u);
  EXPECT_EQ(uint64_t(doc["lost"]["unreadable (incomplete or invalid)"]), 2u);
}

TEST_F(Cli, InfoOnSeveralFilesGivesAnArray) {
  CliRun r = cli("info --json " + std::string(TSCOPE_SAMPLE) + " " + std::string(TSCOPE_SAMPLE));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::array files = parser.parse(r.out);
  EXPECT_EQ(files.size(), 2u);
  r = cli("info " + std::string(TSCOPE_SAMPLE));
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("kernels"), std::string::npos);
}

TEST_F(Cli, ConvertRewritesASession) {
  std::string out = path("copy.tscope");
  CliRun r = cli("convert " + std::string(TSCOPE_SAMPLE) + " " + out);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto a = loadSession(TSCOPE_SAMPLE), b = loadSession(out);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->eventCount(), (*b)->eventCount());
  EXPECT_EQ((*a)->duration(), (*b)->duration());
}

namespace {
std::string rankTrace(int r) {
  return std::string(TSCOPE_SHARED_DATA) + "/kineto/hta-trace_filter--sampled_rank-" +
         std::to_string(r) + ".json.gz";
}
}  // namespace

TEST_F(Cli, TracesConvertAndCombineAsRanks) {
  std::string json = path("r0.json"), csv = path("r0.csv"), both = path("both.tscope");
  ASSERT_EQ(cli("convert " + rankTrace(0) + " " + json).exitCode, 0);
  ASSERT_EQ(cli("convert " + json + " " + csv + " --table memcpy").exitCode, 0);
  std::ifstream f(csv);
  std::string header;
  std::getline(f, header);
  EXPECT_NE(header.find("src_kind"), std::string::npos);
  size_t rows = 0;
  for (std::string line; std::getline(f, line);) ++rows;
  EXPECT_EQ(rows, 40u);

  CliRun r =
      cli("convert " + rankTrace(0) + " " + rankTrace(1) + " " + both + " --shift 1=-381000");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  r = cli("info --json " + both);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(uint64_t(doc["ranks"]), 2u);
  EXPECT_EQ(uint64_t(doc["kernels"]), 1154u + 1104u);

  r = cli("info --json --ranks " + rankTrace(0) + " " + rankTrace(1));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::element merged = parser.parse(r.out);
  EXPECT_EQ(uint64_t(merged["ranks"]), 2u);
  EXPECT_EQ(uint64_t(merged["api_calls"]), 1204u + 1154u);
}

TEST_F(Cli, StatsReportsOnRanksByContentInEveryFormat) {
  // The two sampled ranks as one session, one of them under a name that hides its format.
  std::string hidden = path("rank1.dat");
  fs::copy_file(rankTrace(1), hidden);
  CliRun r =
      cli("stats " + rankTrace(0) + " " + hidden + " --report kern_sum,mem_time --format json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  ASSERT_EQ(simdjson::dom::array(doc).size(), 2u);
  EXPECT_EQ(std::string_view(doc.at(0)["report"]), "kern_sum");
  uint64_t kernels = 0;
  double pct = 0;
  for (simdjson::dom::element row : doc.at(0)["rows"]) {
    kernels += uint64_t(row["count"]);
    pct += double(row["time_pct"]);
  }
  EXPECT_EQ(kernels, 1154u + 1104u);  // Python's count of the two files
  EXPECT_NEAR(pct, 100.0, 1e-6);
  uint64_t htod = 0;
  for (simdjson::dom::element row : doc.at(1)["rows"]) {
    if (std::string_view(row["operation"]) == "HtoD") htod = uint64_t(row["count"]);
  }
  EXPECT_EQ(htod, 48u);

  std::string csv = path("util.csv");
  r = cli("stats " + std::string(TSCOPE_SAMPLE) +
          " --report gpu_util --buckets 4 --range 43s: --gpu 0 --format csv -o " + csv);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::ifstream f(csv);
  std::string header;
  std::getline(f, header);
  EXPECT_EQ(header, "row,kernels,busy_pct,bucket_0,bucket_1,bucket_2,bucket_3\r");

  r = cli("stats " + std::string(TSCOPE_SAMPLE) + " --report overlap");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("Copy time overlapped by compute"), std::string::npos) << r.out;

  r = cli("stats " + std::string(TSCOPE_SAMPLE) + " --gpu 99");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("no GPU 99"), std::string::npos) << r.out;
  r = cli("stats " + path("missing.json"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find(path("missing.json")), std::string::npos) << r.out;
}

// Shards of a stats run over rank files (as a SLURM array would run them), merged: the output of
// one stats run over all the files, byte for byte; and that one run, rank by rank, the output of
// the files opened as one session.
TEST_F(Cli, StatsShardsMergeIntoTheOneRunsTables) {
  const std::string files = rankTrace(0) + " " + rankTrace(1) + " " + TSCOPE_SAMPLE;
  const std::string reports = "--report kern_sum,mem_size,gpu_util,overlap,kern_hist --per-gpu";
  CliRun one = cli("stats " + files + " " + reports + " --format csv");
  ASSERT_EQ(one.exitCode, 0) << one.out;
  // --range 0: opens the files as one session (the scope note aside, the same tables).
  CliRun session = cli("stats " + files + " " + reports + " --range 0: --format csv");
  ASSERT_EQ(session.exitCode, 0) << session.out;
  EXPECT_EQ(one.out, session.out);
  for (int i = 0; i < 2; ++i) {
    CliRun r = cli("stats " + files + " " + reports + " --shard " + std::to_string(i) +
                   "/2 --summary-out " + path("part" + std::to_string(i)));
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_EQ(r.out, "");
  }
  CliRun merged = cli("merge " + path("part1") + " " + path("part0") + " --format csv");
  ASSERT_EQ(merged.exitCode, 0) << merged.out;
  EXPECT_EQ(merged.out, one.out);
  CliRun table = cli("merge " + path("part0") + " " + path("part1"));
  ASSERT_EQ(table.exitCode, 0) << table.out;
  EXPECT_EQ(table.out, cli("stats " + files + " " + reports).out);

  CliRun missing = cli("merge " + path("part0"));
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.out.find("shards missing: 1 of 2"), std::string::npos) << missing.out;
  CliRun range = cli("stats " + files + " --shard 0/2 --summary-out x --range 1s:");
  EXPECT_EQ(range.exitCode, 2);
  EXPECT_NE(range.out.find("--range cannot be summarised"), std::string::npos) << range.out;
  CliRun diagnosis = cli("stats " + files + " --report steps --shard 0/2 --summary-out x");
  EXPECT_EQ(diagnosis.exitCode, 2);
  EXPECT_NE(diagnosis.out.find("steps is not summarised"), std::string::npos) << diagnosis.out;
  CliRun shard = cli("stats " + files + " --shard 2/2 --summary-out x");
  EXPECT_EQ(shard.exitCode, 2);
  EXPECT_NE(shard.out.find("--shard needs I/N with 0 <= I < N"), std::string::npos) << shard.out;
  CliRun notPart = cli("merge " + rankTrace(0));
  EXPECT_EQ(notPart.exitCode, 1);
  EXPECT_NE(notPart.out.find(rankTrace(0) + ": not a part of a sharded run"), std::string::npos)
      << notPart.out;
  EXPECT_FALSE(fs::exists(path("x")));
}

// Shards of a diagnose run, merged: the output of one diagnose over all the files (which goes
// rank by rank), and that the output of the files opened as one session.
TEST_F(Cli, DiagnoseShardsMergeIntoTheOneRunsDiagnosis) {
  const std::string files = rankTrace(0) + " " + rankTrace(1) + " " + TSCOPE_SAMPLE;
  const std::string options = " --gap-threshold 1ms --kernel-wait 1us";
  CliRun one = cli("diagnose " + files + options + " --json");
  ASSERT_EQ(one.exitCode, 0) << one.out;
  // --range 0: opens the files as one session.
  CliRun session = cli("diagnose " + files + options + " --range 0: --json");
  ASSERT_EQ(session.exitCode, 0) << session.out;
  EXPECT_EQ(one.out, session.out);
  // Two ranks of one job: the straggler rule compares their collectives, rank by rank too.
  const std::string ranks = rankTrace(0) + " " + rankTrace(1);
  CliRun straggler = cli("diagnose " + ranks + " --json");
  ASSERT_EQ(straggler.exitCode, 0) << straggler.out;
  EXPECT_NE(straggler.out.find("\"straggler\""), std::string::npos) << straggler.out;
  EXPECT_EQ(straggler.out, cli("diagnose " + ranks + " --json --range 0:").out);
  for (int i = 0; i < 2; ++i) {
    CliRun r = cli("diagnose " + files + options + " --shard " + std::to_string(i) +
                   "/2 --summary-out " + path("dpart" + std::to_string(i)));
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_EQ(r.out, "");
  }
  CliRun merged = cli("merge " + path("dpart1") + " " + path("dpart0") + " --format json");
  ASSERT_EQ(merged.exitCode, 0) << merged.out;
  EXPECT_EQ(merged.out, one.out);
  CliRun csv = cli("merge " + path("dpart0") + " " + path("dpart1") + " --format csv");
  ASSERT_EQ(csv.exitCode, 0) << csv.out;
  EXPECT_EQ(csv.out, cli("diagnose " + files + options + " --csv").out);

  // One file in one shard: its own session's diagnosis (its rank number, GPUs without a rank).
  CliRun alone =
      cli("diagnose " + rankTrace(1) + options + " --shard 0/1 --summary-out " + path("dalone"));
  ASSERT_EQ(alone.exitCode, 0) << alone.out;
  CliRun aloneMerged = cli("merge " + path("dalone") + " --format json");
  ASSERT_EQ(aloneMerged.exitCode, 0) << aloneMerged.out;
  EXPECT_EQ(aloneMerged.out, cli("diagnose " + rankTrace(1) + options + " --json").out);
  EXPECT_NE(aloneMerged.out.find("\"GPU 1 sat idle"), std::string::npos) << aloneMerged.out;

  // Mistakes that would lose data or make up findings are refused.
  CliRun overwrite = cli("diagnose " + files + " --shard 0/2 --summary-out " + rankTrace(0));
  EXPECT_EQ(overwrite.exitCode, 2);
  EXPECT_NE(overwrite.out.find("is also an input"), std::string::npos) << overwrite.out;
  CliRun overPart = cli("merge " + path("dpart0") + " " + path("dpart1") + " -o " + path("dpart0"));
  EXPECT_EQ(overPart.exitCode, 1);
  EXPECT_NE(overPart.out.find("is also an input"), std::string::npos) << overPart.out;
  CliRun twice = cli("diagnose " + rankTrace(0) + " " + rankTrace(0));
  EXPECT_EQ(twice.exitCode, 1);
  EXPECT_NE(twice.out.find(rankTrace(0) + " is given twice"), std::string::npos) << twice.out;
  CliRun jsonFlag = cli("merge " + path("dpart0") + " " + path("dpart1") + " --json");
  EXPECT_EQ(jsonFlag.out, merged.out);

  CliRun range = cli("diagnose " + files + " --shard 0/2 --summary-out x --range 1s:");
  EXPECT_EQ(range.exitCode, 2);
  EXPECT_NE(range.out.find("--range cannot be sharded"), std::string::npos) << range.out;
  CliRun format = cli("diagnose " + files + " --shard 0/2 --summary-out x --json");
  EXPECT_EQ(format.exitCode, 2);
  CliRun mixed = cli("stats " + files + " --shard 0/2 --summary-out " + path("spart"));
  ASSERT_EQ(mixed.exitCode, 0) << mixed.out;
  CliRun both = cli("merge " + path("dpart0") + " " + path("spart"));
  EXPECT_EQ(both.exitCode, 1);
  EXPECT_NE(both.out.find("mix 'stats' and 'diagnose'"), std::string::npos) << both.out;
  EXPECT_FALSE(fs::exists(path("x")));
}

// The JSON keys the issue documents, on the two sampled ranks as one session; the values are
// checked against a computation from the raw files in tests/core/test_breakdown.cpp.
TEST_F(Cli, DiagnoseGivesOneJsonObjectPerRankAndStream) {
  CliRun r = cli("diagnose --json " + rankTrace(0) + " " + rankTrace(1));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  simdjson::dom::array temporal = doc["temporal"];
  ASSERT_EQ(temporal.size(), 2u);
  EXPECT_EQ(int64_t(temporal.at(0)["rank"]), 0);
  EXPECT_EQ(int64_t(temporal.at(1)["rank"]), 1);
  EXPECT_EQ(int64_t(temporal.at(0)["kernel_span_ns"]), 1'222'847'000);
  for (simdjson::dom::element t : temporal) {
    EXPECT_EQ(int64_t(t["kernel_span_ns"]),
              int64_t(t["idle_ns"]) + int64_t(t["compute_ns"]) + int64_t(t["non_compute_ns"]));
  }
  size_t streams = 0;
  for (simdjson::dom::element i : doc["idle"]) {
    ++streams;
    for (const char* key : {"rank", "stream", "host_wait_ns", "kernel_wait_ns", "other_ns"})
      EXPECT_FALSE(i[key].error()) << key;
  }
  EXPECT_EQ(streams, 10u);  // five streams on each rank
  bool sawTriple = false;
  for (simdjson::dom::element k : doc["kernel_types"]) {
    sawTriple |=
        std::string_view(k["type"]) == "COMPUTATION overlapping COMMUNICATION overlapping MEMORY";
  }
  EXPECT_TRUE(sawTriple);
  simdjson::dom::array comm = doc["comm_overlap"];
  ASSERT_EQ(comm.size(), 2u);
  EXPECT_NEAR(double(comm.at(0)["percent"]), 14.946, 1e-3);
  EXPECT_EQ(uint64_t(doc["coverage"]["gpu_ops_with_launch"]), 1204u + 1154u);

  // The same tables through stats, and as CSV.
  r = cli("stats " + rankTrace(0) + " --report temporal,idle --format csv");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("rank,kernel_span_ns,idle_ns"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank,stream,host_wait_ns,kernel_wait_ns,other_ns,unknown_ns"),
            std::string::npos)
      << r.out;
  std::string out = path("d.csv");
  ASSERT_EQ(cli("diagnose --csv -o " + out + " " + rankTrace(0)).exitCode, 0);
  EXPECT_TRUE(fs::file_size(out) > 0);

  r = cli("diagnose --range 2s:1s " + rankTrace(0));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("the range is empty"), std::string::npos) << r.out;
  r = cli("diagnose " + path("missing.json"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find(path("missing.json")), std::string::npos) << r.out;
}

TEST_F(Cli, AdviseHeteroSplitsByThroughput) {
  // The text's example: K80=1, V100=2, batch 3N (N = 32) → N on the K80, 2N on the V100.
  CliRun r =
      cli("advise hetero --device K80 --device V100 --throughput K80=1,V100=2 --batch 96 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(std::string_view(doc["parallel"]), "data");
  simdjson::dom::array split = doc["prediction"]["balanced"]["devices"];
  EXPECT_EQ(int64_t(split.at(0)["batch"]), 32);
  EXPECT_EQ(int64_t(split.at(1)["batch"]), 64);
  EXPECT_DOUBLE_EQ(double(doc["prediction"]["speedup"]), 1.5);
  EXPECT_EQ(std::string_view(doc["inputs"]["devices"].at(0)["source"]), "given");
  EXPECT_GT(simdjson::dom::array(doc["assumptions"]).size(), 0u);
  // Pipeline over six equal layers: two on the K80, four on the V100.
  r =
      cli("advise hetero --device K80 --device V100 --throughput K80=1,V100=2 --batch 96 "
          "--parallel pipeline --layers 6 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  doc = parser.parse(r.out);
  EXPECT_EQ(int64_t(doc["prediction"]["balanced"]["stages"].at(0)["layers"]), 2);
  EXPECT_EQ(int64_t(doc["prediction"]["balanced"]["stages"].at(1)["layers"]), 4);
  // Estimated from a built-in model: sources say so, the table reads; the predicted step as a
  // session that opens like any other, a GPU per device.
  const std::string predicted = path("predicted.tscope");
  r = cli("advise hetero --device K80:2 --device V100:2 --model resnet50 --batch 64 --timeline " +
          predicted);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("estimated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("predicted step"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gradients all-reduced once per step"), std::string::npos) << r.out;
  // A pipeline of the same model all-reduces nothing, and says nothing of it.
  r =
      cli("advise hetero --device K80:2 --device V100:2 --model resnet50 --batch 64 "
          "--parallel pipeline");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_EQ(r.out.find("gradients all-reduced"), std::string::npos) << r.out;
  r = cli("info " + predicted + " --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("V100"), std::string::npos) << r.out;
  // The pipeline in steady state: four batches through the two stages, a GPU each.
  r =
      cli("advise hetero --device K80 --device V100 --throughput K80=1,V100=2 --batch 96 "
          "--parallel pipeline --layers 6 --timeline " +
          path("p.tscope"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  r = cli("info " + path("p.tscope") + " --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("\"kernels\": 8"), std::string::npos) << r.out;
  // A device type's throughput measured in a run of the step on it: 32 samples a step over the
  // ResNet-50 trace's median step (176.27 ms) = 181.5 samples/s, beside the roofline's estimate.
  const std::string resnet = std::string(TSCOPE_SHARED_DATA) +
                             "/kineto/kineto-tb_plugin--resnet50_num_workers_0--worker0."
                             "1623143089861.pt.trace.json.gz";
  r =
      cli("advise hetero --device V100 --device A100-40GB --model resnet50 --batch 96 --session "
          "V100=" +
          resnet + " --run-batch 32 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  doc = parser.parse(r.out);
  EXPECT_EQ(std::string_view(doc["inputs"]["devices"].at(0)["source"]), "measured");
  EXPECT_NEAR(double(doc["inputs"]["devices"].at(0)["samples_per_second"]), 181.54, 0.05);
  EXPECT_EQ(std::string_view(doc["inputs"]["devices"].at(1)["source"]), "estimated");
  EXPECT_EQ(cli("advise hetero --device V100 --device K80 --throughput K80=1 --batch 8 --session "
                "V100=" +
                resnet)
                .exitCode,
            2);  // no --run-batch
  // Bad input: clear errors, non-zero exits.
  r = cli("advise hetero --device K80 --device V100 --throughput K80=1,V100=2 --batch 1");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("cannot be split across 2 devices"), std::string::npos) << r.out;
  r = cli("advise hetero --device GTX9000 --device V100 --model resnet50 --batch 8");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("unknown device 'GTX9000'"), std::string::npos) << r.out;
  r = cli("advise hetero --device K80 --device V100 --batch 8");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.out.find("no throughput for K80"), std::string::npos) << r.out;
  EXPECT_EQ(cli("advise hetero --device K80 --batch 8 --throughput K80=1").exitCode, 2);
  EXPECT_EQ(cli("advise hetero --device K80 --device V100 --throughput K80=x --batch 8").exitCode,
            2);
}

TEST_F(Cli, AdviseMultiplexJudgesTheWaysOfSharing) {
  const std::string run =
      std::string(TSCOPE_SHARED_DATA) + "/kineto/param--et_replay--linear_kineto.json.gz";
  const std::string packed = path("packed.tscope");
  CliRun r = cli("advise multiplex " + run +
                 " --times 2 --gpu A100-80GB --memory 1=20GiB "
                 "--memory 2=30GiB --json --timeline " +
                 packed);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  simdjson::dom::array predictions = doc["predictions"];
  ASSERT_EQ(predictions.size(), 3u);  // time-slicing, MPS, MIG
  EXPECT_EQ(std::string_view(predictions.at(1)["sharing"]), "MPS");
  // A job busy a third of its time packs well: more than alone under MPS.
  EXPECT_GT(double(predictions.at(1)["normalised_throughput"]), 1.2);
  EXPECT_EQ(int64_t(doc["memory"]["total_bytes"]), 50LL << 30);
  EXPECT_TRUE(bool(doc["memory"]["fits"]));
  EXPECT_EQ(std::string_view(doc["inputs"]["jobs"].at(0)["memory_source"]), "given (--memory)");
  // Its steps alone, and packed: the step ÷ the job's rate.
  const int64_t alone = doc["inputs"]["jobs"].at(0)["step_ns"];
  const double rate = predictions.at(1)["jobs"].at(0)["rate"];
  EXPECT_NEAR(double(int64_t(predictions.at(1)["jobs"].at(0)["step_ns"])), alone / rate, 1.0);
  EXPECT_NE(std::string_view(doc["recommendation"]).find("pack with"), std::string_view::npos);
  r = cli("info " + packed + " --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  // Memory that cannot fit: don't pack (MIG has no profile for 50 GiB jobs either).
  r = cli("advise multiplex " + run +
          " --times 2 --gpu A100-80GB --memory 1=50GiB --memory "
          "2=50GiB");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("don't pack"), std::string::npos) << r.out;
  // Bad input.
  EXPECT_EQ(cli("advise multiplex " + run).exitCode, 2);
  EXPECT_EQ(cli("advise multiplex " + run + " --times 2 --gpu GTX9000").exitCode, 2);
  // A GPU without MIG: its memory bounds the jobs; MIG is not judged.
  r = cli("advise multiplex " + run + " --times 2 --gpu K80 --memory 1=8GiB --memory 2=8GiB");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("does not fit"), std::string::npos) << r.out;  // 16 GiB on 12 GB
  EXPECT_EQ(r.out.find("MIG           Σ"), std::string::npos) << r.out;
  EXPECT_EQ(cli("advise multiplex " + run + " --times 2 --memory 3=1GiB").exitCode, 2);
  // No memory counter in this trace: a model's simulated step gives job 1's peak, job 2 stays
  // unknown, and each job's source is printed.
  r = cli("advise multiplex " + run + " --times 2 --model 1=resnet50:32 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  doc = parser.parse(r.out);
  EXPECT_GT(int64_t(doc["inputs"]["jobs"].at(0)["peak_memory_bytes"]), 1LL << 30);
  EXPECT_EQ(std::string_view(doc["inputs"]["jobs"].at(0)["memory_source"])
                .rfind("estimated from the simulated training step of resnet50 at batch 32", 0),
            0u);
  EXPECT_TRUE(doc["inputs"]["jobs"].at(1)["peak_memory_bytes"].is_null());
  r = cli("advise multiplex " + run + " --times 2 --model 1=resnet50:32 --model 2=resnet50:64");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("estimated from the simulated training step of resnet50 at batch 64"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(cli("advise multiplex " + run + " --times 2 --model 1=resnet50").exitCode, 2);
  r = cli("advise multiplex " + run + " --times 2 --model 1=" + path("none.onnx") + ":8");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("none.onnx"), std::string::npos) << r.out;
  r = cli("advise multiplex " + run + " " + path("missing.json"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("missing.json"), std::string::npos) << r.out;
}

TEST_F(Cli, AdviseConsolidateFromTheRunsCollectives) {
  const std::string k = std::string(TSCOPE_SHARED_DATA) + "/kineto/hta-trace_filter--sampled_rank-";
  const std::string runs = k + "0.json.gz " + k + "1.json.gz";
  const std::string astra = path("astra");
  auto said = [](simdjson::dom::element doc, std::string_view text) {
    for (auto a : simdjson::dom::array(doc["assumptions"])) {
      if (std::string_view(a).find(text) != std::string_view::npos) return true;
    }
    return false;
  };
  // Two sampled ranks of a 128-rank job (their distributedInfo.world_size): 16 machines of 8 GPUs
  // are more than the two the ranks name, and where the others run is unknown: asked for.
  CliRun r = cli("advise consolidate " + runs + " --gpus-per-node 8 --hosts 0=a,1=b");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("the job's 128 ranks need at least 16 machines of 8 GPUs, more than the 2"),
            std::string::npos)
      << r.out;
  r = cli("advise consolidate " + runs +
          " --gpus-per-node 8 --hosts 0=a,1=b --nodes 32 --json "
          "--astra-out " +
          astra);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(int64_t(doc["inputs"]["world"]), 128);
  EXPECT_EQ(int64_t(doc["prediction"]["machines_now"]), 32);
  EXPECT_EQ(int64_t(doc["prediction"]["machines_after"]), 16);
  EXPECT_TRUE(said(doc, "a job of 128 ranks, as its traces say"));
  // The nccl:<collective> annotations with sizes: 20, of three kinds fitted apart.
  int64_t sized = 0;
  for (auto k : simdjson::dom::array(doc["fit"]["by_kind"])) sized += int64_t(k["samples"]);
  EXPECT_EQ(sized, 20);
  EXPECT_EQ(simdjson::dom::array(doc["fit"]["by_kind"]).size(), 3u);
  // Still across machines, over the link the run got: nothing predicted to change.
  EXPECT_EQ(int64_t(doc["prediction"]["step_ns_after"]), int64_t(doc["prediction"]["step_ns_now"]));
  // The run's collectives wait for each other: the fit says it is poor, and so does the advice.
  EXPECT_TRUE(said(doc, "the fit is poor"));
  EXPECT_TRUE(fs::exists(astra + "/network_now.yml"));
  EXPECT_TRUE(fs::exists(astra + "/network_after.yml"));
  EXPECT_TRUE(fs::exists(astra + "/system.json"));
  // Taken as a job of these two ranks alone: onto one machine, the difference said.
  const std::string two = runs + " --world 2";
  r = cli("advise consolidate " + two + " --gpus-per-node 8 --hosts 0=a,1=b --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  doc = parser.parse(r.out);
  EXPECT_EQ(int64_t(doc["prediction"]["machines_now"]), 2);
  EXPECT_EQ(int64_t(doc["prediction"]["machines_after"]), 1);
  EXPECT_LT(int64_t(doc["prediction"]["step_ns_after"]), int64_t(doc["prediction"]["step_ns_now"]));
  EXPECT_TRUE(said(doc, "a job of 2 ranks, as given; its traces say 128"));
  // A model's gradients are not needed where the trace has sizes; a model that is not there.
  r = cli("advise consolidate " + two +
          " --gpus-per-node 8 --hosts 0=a,1=b --model resnet50 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  doc = parser.parse(r.out);
  EXPECT_EQ(std::string_view(doc["inputs"]["model"]), "resnet50");
  EXPECT_GT(int64_t(doc["inputs"]["gradient_bytes"]), 90'000'000);  // 25.6 M fp32 parameters
  EXPECT_TRUE(said(doc, "the gradients of resnet50 were not needed"));
  r = cli("advise consolidate " + two + " --gpus-per-node 8 --hosts 0=a,1=b --model " +
          path("missing.onnx"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("missing.onnx"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nor a built-in model (alexnet,"), std::string::npos) << r.out;
  // A faster link between the same machines, and a layout too small for the job.
  r = cli("advise consolidate " + two + " --gpus-per-node 1 --hosts 0=a,1=b --inter 400g");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("from the faster link between machines (400 Gb/s), not from the move"),
            std::string::npos)
      << r.out;
  r = cli("advise consolidate " + two + " --gpus-per-node 1 --hosts 0=a,1=b --machines 1");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("cannot hold the job's 2 ranks"), std::string::npos) << r.out;
  EXPECT_EQ(
      cli("advise consolidate " + two + " --gpus-per-node 8 --hosts 0=a,1=b --inter 10g").exitCode,
      2);
  r = cli("advise consolidate " + two + " --gpus-per-node 8 --hosts 0=a,1=b --machines 3");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("more machines than ranks"), std::string::npos) << r.out;
  // The link asked for is in the JSON.
  r = cli("advise consolidate " + two + " --gpus-per-node 1 --hosts 0=a,1=b --inter 25g --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  doc = parser.parse(r.out);
  EXPECT_EQ(std::string_view(doc["inputs"]["inter_link"]), "25 Gb/s Ethernet");
  // Bad input: no hosts, no --gpus-per-node, an unknown rank, a trace without collectives.
  r = cli("advise consolidate " + runs + " --gpus-per-node 8");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("name no machine"), std::string::npos) << r.out;
  EXPECT_EQ(cli("advise consolidate " + runs + " --hosts 0=a,1=b").exitCode, 2);
  EXPECT_EQ(cli("advise consolidate " + runs + " --gpus-per-node 8 --hosts 7=a").exitCode, 2);
  r = cli("advise consolidate " + std::string(TSCOPE_SAMPLE) + " --gpus-per-node 8 --hosts 0=a");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("advise consolidate:"), std::string::npos) << r.out;
}

TEST_F(Cli, ModelZooTableAndInfo) {
  std::string onnx = path("vgg16.onnx");
  CliRun r = cli("model zoo vgg16 -o " + onnx);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  r = cli("model table " + onnx + " --layers --json --batch 4");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  simdjson::dom::array rows = doc["rows"];
  EXPECT_EQ(rows.size(), 17u);  // 13 convolutions, 3 fully connected, the totals
  EXPECT_EQ(int64_t(rows.at(15)["parameters"]), 4'097'000);
  EXPECT_EQ(int64_t(rows.at(16)["parameters"]), 138'357'544);
  r = cli("model info " + onnx);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("138,357,544"), std::string::npos) << r.out;
  std::ofstream(path("junk.onnx")) << "junk";
  r = cli("model table " + path("junk.onnx"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("junk.onnx"), std::string::npos) << r.out;
  r = cli("model zoo lenet -o " + path("x.onnx"));
  EXPECT_EQ(r.exitCode, 1);
  r = cli("model zoo --list");
  EXPECT_NE(r.out.find("bert-base"), std::string::npos) << r.out;
}

// One figure for a model's step memory: `model memory`'s peak is the one `simulate --json` gives
// as step_peak_bytes, for every policy, with its make-up summing to it; unlimited memory (ideal)
// allocates it all on the GPU.
TEST_F(Cli, ModelMemoryAndSimulateGiveOnePeak) {
  CliRun r = cli("model memory resnet50 --batch 8 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element table = parser.parse(r.out);
  EXPECT_EQ(std::string_view(table["report"]), "step_memory");
  EXPECT_EQ(std::string_view(table["rows"].at(0)["group"]), "forward/conv1");
  simdjson::dom::array notes = table["notes"];
  const std::string peakNote(std::string_view(notes.at(0)));
  EXPECT_NE(peakNote.find("peak 897 MiB"), std::string::npos) << peakNote;
  r = cli("simulate --model resnet50 --batch 8 --policy g10,ideal --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser second;
  simdjson::dom::array runs = second.parse(r.out);
  ASSERT_EQ(runs.size(), 2u);
  for (simdjson::dom::element run : runs) {
    const int64_t peak = int64_t(run["memory"]["step_peak_bytes"]);
    EXPECT_EQ(peak, 940'297'440);  // 896.7 MiB; PyTorch's own allocator held 904.9 MiB
    int64_t parts = 0;
    for (auto [kind, bytes] : simdjson::dom::object(run["memory"]["step_peak_by_kind"]))
      parts += int64_t(bytes);
    EXPECT_EQ(parts, peak);
    EXPECT_LE(int64_t(run["memory"]["gpu_peak_bytes"]), peak);
  }
  EXPECT_EQ(int64_t(runs.at(1)["memory"]["gpu_peak_bytes"]), 940'297'440);
}

// The run itself planned, no model: TraceLens's ViT trace (its own allocations, H100). With
// unlimited memory the plan's peak is the run's; 216 MiB of GPU memory makes policies move data.
// The same from a memory snapshot alone: it has no kernels to plan.
TEST_F(Cli, SimulateTheRunItselfWithoutAModel) {
  const std::string vit = std::string(TSCOPE_SHARED_DATA) +
                          "/kineto/tracelens-h100-Falconsai_nsfw_image_detection__1016002.json.gz";
  CliRun r = cli("simulate --session " + vit + " --policy ideal,g10 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::array runs = parser.parse(r.out);
  ASSERT_EQ(runs.size(), 2u);
  const int64_t peak = int64_t(runs.at(0)["memory"]["step_peak_bytes"]);
  EXPECT_GT(peak, 220 << 20);  // the allocator's 221 MiB, less what no kernel ran during
  EXPECT_LE(peak, 231'332'864);
  // Under less memory than the run held, what the policies keep allocated on the GPU stays within
  // it: a tensor takes its memory when its kernel runs, not during the stall that makes room.
  r = cli("simulate --session " + vit + " --policy g10,lru,deepum --gpu-mem 216MiB --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser tight;
  for (simdjson::dom::element run : simdjson::dom::array(tight.parse(r.out))) {
    EXPECT_GT(int64_t(run["stall_ns"]), 0);
    EXPECT_LE(int64_t(run["memory"]["gpu_peak_bytes"]), int64_t{216} << 20)
        << std::string_view(run["policy"]);
  }
  r = cli("simulate --session " + vit + " --policy lru --gpu-mem 216MiB");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("The run itself: 154 kernels of iteration 1 of 1"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("286 measured allocations"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("model memory lists"), std::string::npos) << r.out;
  r = cli("simulate --session " + vit + " --batch 8");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.out.find("--batch goes with --model"), std::string::npos) << r.out;
  r = cli(
      "simulate --session " + std::string(TSCOPE_SHARED_DATA) +
      "/kineto/kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("carry no addresses"), std::string::npos) << r.out;
}

TEST_F(Cli, SimulateG10WorkloadAsJsonTableAndSession) {
  const std::string bert = std::string(TSCOPE_SHARED_DATA) + "/g10/BERT-256";
  CliRun r = cli("simulate --g10 " + bert + " --policy g10,lru --policy ideal --json -o " +
                 path("sim.tscope") + " --plan " + path("plan.csv"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::array runs = parser.parse(r.out);
  ASSERT_EQ(runs.size(), 3u);
  const char* names[] = {"g10", "lru", "ideal"};
  size_t i = 0;
  for (simdjson::dom::element run : runs) {
    EXPECT_EQ(std::string_view(run["policy"]), names[i++]);
    EXPECT_TRUE(bool(run["feasible"]));
    EXPECT_EQ(int64_t(run["ideal_ns"]), 7'285'465'838);  // Σ of G10's cycles / 1.2 GHz
    EXPECT_GE(int64_t(run["iteration_ns"]), int64_t(run["ideal_ns"]));
    EXPECT_GT(double(run["slowdown"]), 0.99);
    EXPECT_GE(int64_t(run["stall_ns"]), 0);
    EXPECT_GE(int64_t(run["bytes"]["host-to-gpu"]), 0);
    EXPECT_GE(int64_t(run["bytes"]["gpu-to-ssd"]), 0);
  }
  std::ifstream planFile(path("plan.csv"));
  std::string plan((std::istreambuf_iterator<char>(planFile)), std::istreambuf_iterator<char>());
  EXPECT_EQ(plan.rfind("policy,kernel,kernel_name,action,tensor,bytes", 0), 0u);
  EXPECT_NE(plan.find("g10,"), std::string::npos);
  EXPECT_NE(plan.find(",evict-to-host,"), std::string::npos);
  EXPECT_NE(plan.find(",prefetch,"), std::string::npos);
  // The saved timeline opens like any session: a rank per policy with its kernels.
  r = cli("info " + path("sim.tscope"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("lru (simulated)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4,107"), std::string::npos) << r.out;  // 3 × 1,369 kernels
  // The table shows G10's published numbers beside ours (published.txt sits next to the folder).
  r = cli("simulate --g10 " + bert + " --policy all");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("G10 published"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("flashneuron"), std::string::npos) << r.out;
  // ... only at G10's own tiers: beside a 24 GiB GPU its 40 GiB figure means nothing.
  r = cli("simulate --g10 " + bert + " --policy g10 --gpu-mem 24GiB");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_EQ(r.out.find("G10 published"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("published times are for its default tiers"), std::string::npos) << r.out;
  // A built-in model by its name, as the GUI and the advisor take it.
  r = cli("simulate --model alexnet --batch 64 --policy ideal");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("ideal"), std::string::npos) << r.out;
  r = cli("simulate --model no-such-model --policy ideal");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("no such file, nor a built-in model (alexnet"), std::string::npos) << r.out;
}

TEST_F(Cli, SimulateSweepsAndModels) {
  const std::string bert = std::string(TSCOPE_SHARED_DATA) + "/g10/BERT-256";
  CliRun r =
      cli("simulate --g10 " + bert + " --policy g10,ideal --sweep gpu-mem=40GiB..48GiB:4GiB");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(
      line,
      "gpu-mem,policy,feasible,iteration_ns,ideal_ns,slowdown,stall_ns\r");  // RFC 4180 line ends
  int rows = 0;
  while (std::getline(lines, line)) rows += !line.empty();
  EXPECT_EQ(rows, 6);  // 3 points × 2 policies
  // A point too small for the largest kernel is a row of infeasible results, not a failure.
  r = cli("simulate --g10 " + bert + " --policy g10 --sweep gpu-mem=1GB..3GB:2GB");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("1000000000,g10,no"), std::string::npos) << r.out;

  std::string onnx = path("resnet50.onnx");
  ASSERT_EQ(cli("model zoo resnet50 -o " + onnx).exitCode, 0);
  r = cli("simulate --model " + onnx +
          " --batch 64 --gpu-mem 4GiB --policy g10,lru,flashneuron,ideal --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::array runs = parser.parse(r.out);
  ASSERT_EQ(runs.size(), 4u);
  int64_t ideal = int64_t(runs.at(3)["iteration_ns"]);
  EXPECT_GT(int64_t(runs.at(1)["iteration_ns"]), ideal);  // LRU pays for the overcommitment
  r = cli("simulate --model " + onnx + " --sweep batch=32..64:32 --gpu-mem 4GiB --policy ideal");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("\n64,ideal,yes"), std::string::npos) << r.out;
}

TEST_F(Cli, SimulateFromG10sOwnInputs) {
  const std::string root = std::string(TSCOPE_SHARED_DATA) + "/g10-inputs";
  // BERT at 512, a batch with no G10 workload directory: built from G10's model file and traces.
  CliRun r =
      cli("simulate --g10-inputs " + root + " --model bert --batch 512 --policy ideal --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::array runs = parser.parse(r.out);
  ASSERT_EQ(runs.size(), 1u);
  // G10's published ideal for BERT at 512 is 11,799,396,628 cycles at 1.2 GHz (each kernel's
  // time is rounded to the ns: within a µs).
  EXPECT_NEAR(double(int64_t(runs.at(0)["iteration_ns"])), 11'799'396'628 / 1.2, 1000.0);
  // The sweep runs the batches G10 traced within the range.
  r = cli("simulate --g10-inputs " + root + " --model ResNet152 --batch 256 --policy ideal " +
          "--sweep batch=200..800:1");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("\n256,ideal,yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n512,ideal,yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n768,ideal,yes"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n300,"), std::string::npos) << r.out;
  // A batch G10 did not trace names the ones it did.
  r = cli("simulate --g10-inputs " + root + " --model VIT --batch 1000");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("cudnn1000.txt: missing; G10 traced VIT at batch 256, 512"),
            std::string::npos)
      << r.out;
  for (const std::string& args :
       {"simulate --g10-inputs " + root, "simulate --g10-inputs " + root + " --model VIT",
        "simulate --g10-inputs " + root + " --model VIT --batch 256 " + "--device H100"}) {
    EXPECT_EQ(cli(args).exitCode, 2) << args;
  }
  r = cli("simulate --g10-inputs " + root + " --model AlexNet --batch 256");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("not a model of G10's evaluation"), std::string::npos) << r.out;
}

TEST_F(Cli, SimulateReproducesG10sExperiments) {
  const std::string root = std::string(TSCOPE_SHARED_DATA) + "/g10-inputs";
  CliRun r = cli("simulate --g10-inputs " + root + " --reproduce batch --model BERT --published " +
                 root + "/published-bert-batchsize.txt --csv -o " + path("bert"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_EQ(r.out.rfind("model,batch,policy,feasible,cycles,ideal_cycles,g10_cycles,delta_pct", 0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("BERT,512,lru,yes,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",97051580903,"), std::string::npos) << r.out;  // G10's, attached
  // The sweep it wrote charts like any simulate --sweep table.
  r = cli("export --sweep " + path("bert-BERT.csv") + " --chart sweep --format svg -o " +
          path("bert.svg"));
#ifdef TSCOPE_HAVE_EXPORT
  EXPECT_EQ(r.exitCode, 0) << r.out;
#endif
  for (const std::string& args :
       {std::string("simulate --reproduce batch"),
        "simulate --g10-inputs " + root + " --reproduce pcie",
        "simulate --g10-inputs " + root + " --reproduce fig11 --gpu-mem 8GiB",
        "simulate --g10-inputs " + root + " --reproduce fig11 -o x"}) {
    EXPECT_EQ(cli(args).exitCode, 2) << args;
  }
  r = cli("simulate --g10-inputs " + root + " --reproduce ssd-bw --published " + root +
          "/published-bert-batchsize.txt");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("give --model"), std::string::npos) << r.out;
}

TEST_F(Cli, SimulateBadInput) {
  const std::string bert = std::string(TSCOPE_SHARED_DATA) + "/g10/BERT-256";
  for (const char* args :
       {"simulate", "simulate --g10 x --model y.onnx", "simulate --g10 x --policy fast",
        "simulate --g10 x --gpu-mem lots", "simulate --g10 x --preset tpu",
        "simulate --g10 x --batch 4", "simulate --g10 x --sweep gpu-mem=1GB",
        "simulate --g10 x --sweep warp=1..2:1", "simulate --g10 x --sweep batch=1..2:1",
        "simulate --g10 x --gpu-mem 0", "simulate --model y.onnx --optimizer lamb"}) {
    CliRun r = cli(args);
    EXPECT_EQ(r.exitCode, 2) << args << ": " << r.out;
  }
  CliRun r = cli("simulate --g10 " + path("missing"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("missing"), std::string::npos) << r.out;
  r = cli("simulate --g10 " + bert + " --gpu-mem 2GB");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("more than the GPU memory of 1.86 GiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel "), std::string::npos) << r.out;
  std::ofstream(path("tiers.txt")) << "gpu-mem = 40GB\nwarp = 9\n";
  r = cli("simulate --g10 " + bert + " --tiers " + path("tiers.txt"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("tiers.txt:2"), std::string::npos) << r.out;
  // FlashNeuron cannot keep BERT's activations in 12 GB: infeasible, not an error.
  r = cli("simulate --g10 " + bert + " --gpu-mem 12GB --policy flashneuron,g10 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("\"feasible\": false"), std::string::npos) << r.out;
}

// A measured run with NVTX layer ranges, as a .tscope file.
std::string measuredLayers(const std::string& file) {
  SessionPtr s = testing::makeLayerRun({{"forward/conv1", 0, 2'000'000, 1'000'000},
                                        {"backward/conv1", 3'000'000, 6'000'000, 2'000'000}});
  EXPECT_TRUE(s && saveSession(*s, file).ok());
  return file;
}

TEST_F(Cli, SimulateAMeasuredModelAndCompareLayers) {
  std::string measured = measuredLayers(path("measured.tscope"));
  ASSERT_EQ(cli("model zoo resnet50 -o " + path("r50.onnx")).exitCode, 0);
  CliRun r = cli("simulate --model " + path("r50.onnx") + " --batch 8 --session " + measured +
                 " --policy ideal,g10 -o " + path("sim.tscope"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  r = cli("compare " + measured + " " + path("sim.tscope") +
          " --layers --policy ideal --format csv");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("layer,measured_ns,simulated_ns,delta_ns,delta_pct"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("conv1 (forward),1000000,1000000,0,0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conv1 (backward),2000000,2000000,0,0"), std::string::npos) << r.out;
  r = cli("compare " + measured + " " + path("sim.tscope") + " --layers --policy deepum");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("no policy 'deepum'"), std::string::npos) << r.out;
#ifdef TSCOPE_HAVE_EXPORT
  r = cli("export " + measured + " --sim " + path("sim.tscope") +
          " --chart sim_vs_measured --policy g10 --format png -o " + path("layers.png"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_TRUE(fs::file_size(path("layers.png")) > 1000);
#endif
}

// The bundled PyTorch trace of AlexNet against the zoo's AlexNet: kernels mapped through the
// aten:: op ranges in the last of two repeated iterations; corrections, the iteration and the
// comparison tables; the overlay drawn headless.
TEST_F(Cli, SimulateMapsARunAndComparesItsIteration) {
  const std::string sample = TSCOPE_SAMPLE;
  ASSERT_EQ(cli("model zoo alexnet -o " + path("alexnet.onnx")).exitCode, 0);
  const std::string base =
      "simulate --model " + path("alexnet.onnx") + " --batch 128 --session " + sample;
  CliRun r = cli(base + " --mapping --csv");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("index,start_ns,duration_ns,kernel,layer,by,certainty"), std::string::npos)
      << r.out;
  // The sample recorded no shapes: its kernels are mapped by their ops' order, unchecked.
  EXPECT_NE(r.out.find(",ampere_sgemm_32x32_sliced1x4_tn,forward/classifier.1,aten,order"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",aten,guess"),
            std::string::npos);  // adaptive average pooling: not in the zoo model
  // Another iteration than the last, and one the run does not have.
  r = cli(base + " --mapping --step 1");
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("by aten, iteration 1 of 2 (repeated kernels)"), std::string::npos) << r.out;
  r = cli(base + " --mapping --step 3");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.out.find(sample + ": --step 3: the run has 2 iterations (repeated kernels)"),
            std::string::npos)
      << r.out;
  r = cli(base + " --mapping");
  EXPECT_NE(r.out.find("by aten, iteration 2 of 2 (repeated kernels), 97.4 % of its kernel time "
                       "mapped (0.0 % checked), 2.6 % placed by guess"),
            std::string::npos)
      << r.out;

  // A correction maps the pooling kernel; a bad corrections file names its line.
  {
    std::ofstream f(path("fix.tsv"));
    f << "# kernel\tlayer\nvoid at::native::(anonymous "
         "namespace)::adaptive_average_pool<float>(float const*, float*, int, int, int, int, long, "
         "long, long)\tforward/features.10\n";
  }
  r = cli(base + " --corrections " + path("fix.tsv") + " --mapping");
  EXPECT_NE(r.out.find("100.0 % of its kernel time mapped"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(unmapped)"), std::string::npos);
  {
    std::ofstream f(path("bad.tsv"));
    f << "no tab\n";
  }
  r = cli(base + " --corrections " + path("bad.tsv") + " --mapping");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find(path("bad.tsv") + ":1"), std::string::npos) << r.out;
  // The first iteration instead (the warm-up), by range from the session's start.
  r = cli(base + " --iteration 0:43.3s --mapping");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("iteration 1 of 1 (your range)"), std::string::npos) << r.out;

  // Measured against simulated: the measured layers carry over exactly with infinite memory.
  r = cli(base + " --policy ideal --compare --csv");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("quantity,measured_ns,simulated_ns,delta_ns,delta_pct"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Iteration,27192000,"), std::string::npos)
      << r.out;  // first kernel start to last end
  EXPECT_NE(r.out.find("features.0 (forward),1532000,1532000,0,0"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find(
          "index,kernel,layer,time_from,measured_ns,simulated_ns,delta_ns,delta_pct,stall_ns"),
      std::string::npos);
  EXPECT_NE(r.out.find("host → GPU,0,0,0,"), std::string::npos)
      << r.out;  // ideal moves nothing; the run's copies come before
  // The table says where the times came from.
  r = cli(base + " --policy g10");
  EXPECT_NE(r.out.find("by aten, iteration 2 of 2 (repeated kernels), 97.4 % of its kernel "
                       "time mapped (0.0 % checked), 2.6 % placed by guess; layers timed: "
                       "forward 8 of 8, backward 0 of 8, update 0 of 8"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(cli(base + " --mapping --compare").exitCode, 2);
  EXPECT_EQ(cli("simulate --model " + path("alexnet.onnx") + " --mapping").exitCode, 2);
  EXPECT_EQ(cli(base + " --iteration soon --mapping").exitCode, 2);
  // Two captures compared as JSON.
  r = cli("compare " + sample + " " + sample + " --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_EQ(r.out.front(), '[');
  EXPECT_EQ(cli("compare " + sample + " " + sample + " --json --csv").exitCode, 2);
#ifdef TSCOPE_HAVE_EXPORT
  r = cli("export " + sample + " --timeline --overlay " + path("alexnet.onnx") +
          " --batch 128 --gpu-mem 1GB --unfold --range 43.35s:43.51s --format png -o " +
          path("overlay.png"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_GT(fs::file_size(path("overlay.png")), 20000u);
  EXPECT_EQ(
      cli("export " + sample + " --timeline --unfold --format png -o " + path("x.png")).exitCode,
      2);
  r = cli("export " + sample + " --timeline --overlay " + path("alexnet.onnx") +
          " --policy frob --format png -o " + path("x.png"));
  EXPECT_EQ(r.exitCode, 2);
  // A range where the run has nothing is an error, not an image of nothing.
  r = cli("export " + sample + " --timeline --range 100s:200s --format png -o " + path("x.png"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("--range: the run has nothing there"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("x.png")));
#endif
}

#ifdef TSCOPE_HAVE_EXPORT
TEST_F(Cli, ExportsSessionAndSimulationChartsHeadless) {
  const std::string bert = std::string(TSCOPE_SHARED_DATA) + "/g10/BERT-256";
  ASSERT_EQ(cli("simulate --g10 " + bert + " -o " + path("sim.tscope")).exitCode, 0);
  ASSERT_EQ(
      cli("simulate --g10 " + bert +
          " --policy g10,lru --sweep ssd-bw=3.2GB/s..12.8GB/s:3.2GB/s -o " + path("sweep.csv"))
          .exitCode,
      0);
  auto isPng = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    char magic[8] = {};
    in.read(magic, 8);
    return std::string(magic + 1, 3) == "PNG";
  };
  for (const char* chart : {"tier_usage", "link_traffic", "policy_performance"}) {
    std::string out = path(std::string(chart) + ".png");
    CliRun r = cli("export --sim " + path("sim.tscope") + " --chart " + chart +
                   " --format png -o " + out + " --width 800 --height 500");
    ASSERT_EQ(r.exitCode, 0) << chart << ": " << r.out;
    EXPECT_TRUE(isPng(out)) << chart;
  }
  CliRun r = cli("export --sim " + path("sim.tscope") +
                 " --chart tier_usage --policy deepum --format svg -o " + path("t.svg"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::ifstream svg(path("t.svg"));
  std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Memory tiers over time — deepum (BERT-256)"), std::string::npos);
  r = cli("export --sweep " + path("sweep.csv") + " --chart sweep --format pdf -o " +
          path("sweep.pdf"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::ifstream pdf(path("sweep.pdf"));
  std::string head(5, ' ');
  pdf.read(head.data(), 5);
  EXPECT_EQ(head, "%PDF-");
  r = cli(std::string("export ") + TSCOPE_SAMPLE + " --chart kernel_histogram --format png -o " +
          path("h.png"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_TRUE(isPng(path("h.png")));
  // A capture is no simulation; a policy that is not there; a chart without its data.
  r = cli(std::string("export --sim ") + TSCOPE_SAMPLE + " --chart tier_usage --format png -o " +
          path("x.png"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("not a simulated session"), std::string::npos) << r.out;
  r = cli("export --sim " + path("sim.tscope") +
          " --chart tier_usage --policy warp --format png -o " + path("x.png"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(cli("export --chart sweep --format png -o " + path("x.png")).exitCode, 2);
  EXPECT_EQ(cli("export --chart link_traffic --format png -o " + path("x.png")).exitCode, 2);
  std::ofstream(path("bad.csv"))
      << "gpu-mem,policy,feasible,iteration_ns,ideal_ns,slowdown,stall_ns\nlots,g10,yes,1,1,1,0\n";
  r = cli("export --sweep " + path("bad.csv") + " --chart sweep --format png -o " + path("x.png"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("bad.csv:2"), std::string::npos) << r.out;
}
#endif

}  // namespace ts
