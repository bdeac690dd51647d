// Runs the real tensorscope-cli binary: exit codes, help, usage errors, generate → info → convert.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/tscope_file.h"
#include "session/session_summary.h"

namespace ts {

namespace fs = std::filesystem;

struct CliRun {
  int exitCode;
  std::string out;  // stdout and stderr together
};

CliRun cli(const std::string& args) {
  std::string command = std::string(TSCOPE_CLI) + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tscope-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(Cli, HelpOnEveryCommandExitsZero) {
  for (const char* cmd : {"--help", "info --help", "convert --help", "generate --help"}) {
    CliRun r = cli(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd;
    EXPECT_NE(r.out.find("Usage: tensorscope-cli"), std::string::npos) << cmd;
  }
}

TEST_F(Cli, UsageErrorsExitTwo) {
  for (const char* cmd : {"", "frobnicate", "info", "info --bogus x.tscope", "convert only-one",
                          "generate", "generate --events", "generate --events -5 x.tscope",
                          "generate --gpus 0 x.tscope", "generate --events ten x.tscope"}) {
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
  std::ofstream(path("cut.json")) << R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": 1}, {"ph": "X", "na)";
  r = cli("info " + path("cut.json"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("truncated"), std::string::npos) << r.out;
  r = cli("convert " + std::string(TSCOPE_SAMPLE) + " " + path("out.xyz"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("cannot write '.xyz'"), std::string::npos) << r.out;
  EXPECT_EQ(cli("convert " + std::string(TSCOPE_SAMPLE) + " x.csv --table bogus").exitCode, 2);
  EXPECT_EQ(cli("convert " + std::string(TSCOPE_SAMPLE) + " x.csv --shift 1").exitCode, 2);
}

TEST_F(Cli, GenerateIsDeterministicAndInfoJsonHasTheCounts) {
  std::string a = path("a.tscope"), b = path("b.tscope");
  ASSERT_EQ(cli("generate --events 5001 --gpus 2 --streams 3 --seed 9 " + a).exitCode, 0);
  ASSERT_EQ(cli("generate --events=5001 --gpus=2 --streams=3 --seed=9 " + b).exitCode, 0);
  // Same options, same bytes: the created time is fixed for generated sessions.
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  std::string ca((std::istreambuf_iterator<char>(fa)), {}), cb((std::istreambuf_iterator<char>(fb)), {});
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
    EXPECT_EQ(uint64_t(doc["memcpy_bytes"][kind]), want.memcpyBytes[static_cast<size_t>(*k)]) << kind;
  }
  simdjson::dom::array devices = doc["devices"];
  EXPECT_EQ(devices.size(), 2u);
  EXPECT_EQ(std::string_view(devices.at(0)), "Synthetic A100-SXM4-40GB");
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
  return std::string(TSCOPE_SHARED_DATA) + "/kineto/hta-trace_filter--sampled_rank-" + std::to_string(r) + ".json.gz";
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

  CliRun r = cli("convert " + rankTrace(0) + " " + rankTrace(1) + " " + both + " --shift 1=-381000");
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

}  // namespace ts
