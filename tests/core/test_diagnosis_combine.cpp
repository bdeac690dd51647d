// Rank files diagnosed apart — on threads, in shards, through part files — give the very
// diagnosis of the multi-rank session that opening them together gives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "analysis/diagnosis_tables.h"
#include "io/open_session.h"
#include "io/tscope_file.h"
#include "session/session_builder.h"
#include "summary/diagnosis_part.h"
#include "summary/stats_part.h"

namespace ts {

namespace {

std::string kineto(const std::string& name) {
  return std::string(TSCOPE_SHARED_DATA) + "/kineto/" + name;
}

// Every table of the diagnosis as JSON, with the coverage counts.
std::string tablesOf(const Diagnosis& d) {
  std::vector<StatsTable> all;
  for (DiagnosisTable t :
       {DiagnosisTable::Steps, DiagnosisTable::Temporal, DiagnosisTable::KernelTypes,
        DiagnosisTable::Idle, DiagnosisTable::CommOverlap, DiagnosisTable::Launch,
        DiagnosisTable::Queue, DiagnosisTable::Findings})
    all.push_back(diagnosisTable(d, t));
  return statsToJson(all) + "\ncoverage " + std::to_string(d.gpuOps) + " " +
         std::to_string(d.gpuOpsWithLaunch) + " " + std::to_string(d.gpuOpsInSession);
}

std::string ofSession(const std::vector<std::string>& files, const DiagnoseOptions& o) {
  auto session = openSessionFiles(files);
  EXPECT_TRUE(session.ok()) << session.error();
  if (!session) return {};
  auto d = diagnose(**session, o);
  EXPECT_TRUE(d.ok()) << d.error();
  return d ? tablesOf(*d) : std::string{};
}

std::string rankByRank(const std::vector<std::string>& files, const DiagnoseOptions& o,
                       unsigned threads = 0) {
  OpenOptions open;
  open.threads = threads;
  auto ranks = diagnoseRankFiles(files, shardFiles(files.size(), 0, 1), o, open);
  EXPECT_TRUE(ranks.ok()) << ranks.error();
  if (!ranks) return {};
  auto d = combineRankDiagnoses(std::move(*ranks), o);
  EXPECT_TRUE(d.ok()) << d.error();
  return d ? tablesOf(*d) : std::string{};
}

std::vector<DiagnoseOptions> optionSets() {
  DiagnoseOptions plain, tight, some;
  tight.kernelWaitBelow = 2000;
  tight.rules.gapThreshold = 200'000;  // gpu_gaps finds gaps of 0.2 ms
  tight.rules.hostBoundShare = 0.01;
  some.ruleNames = {"straggler", "gpu_time_util", "launch_bound"};
  return {plain, tight, some};
}

class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("diagnosis-combine-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A rank of kernels on one stream, each launched by an API call, and NVTX ranges named as given
// (name, start, end), saved as a .tscope.
std::string savedRank(const TempDir& dir, const std::string& name, TimeNs offset,
                      const std::vector<std::tuple<std::string, TimeNs, TimeNs>>& ranges) {
  SessionBuilder b;
  const uint32_t r = b.rank(0);
  const uint32_t stream = b.stream(b.device(r, 0), 7);
  const uint32_t thread = b.thread(b.process(r, 1), 1);
  for (int k = 0; k < 12; ++k) {
    const TimeNs at = offset + k * 1000;
    EventRef call = b.addApi(thread, at, at + 50, b.intern("cudaLaunchKernel"), {});
    EventRef kernel = b.addKernel(stream, at + 300 + (k % 3) * 40, at + 700, b.intern("k"), {});
    b.addFlow(call, kernel);
  }
  for (const auto& [text, from, to] : ranges)
    b.addNvtx(thread, offset + from, offset + to, b.intern(text), {});
  auto s = b.build();
  EXPECT_TRUE(s.ok()) << s.error();
  const std::string path = dir.file(name);
  EXPECT_TRUE(saveSession(**s, path).ok());
  return path;
}

}  // namespace

// Real ranks of one job (steps marked by ProfilerStep), a trace of another time without the
// same steps, an AMD trace and a .tscope: each diagnosed alone and combined, every table equal to
// the session's, under several option sets (thresholds that make every rule find something,
// a subset of rules).
TEST(DiagnosisCombine, RanksDiagnosedApartGiveTheSessionsDiagnosis) {
  const std::vector<std::vector<std::string>> jobs = {
      {kineto("hta-trace_filter--sampled_rank-0.json.gz"),
       kineto("hta-trace_filter--sampled_rank-1.json.gz")},
      {kineto("hta-trace_filter--sampled_rank-0.json.gz"),
       kineto("hta-trace_filter--sampled_rank-1.json.gz"),
       kineto("kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz"),
       kineto("hta-amd_trace--mi250_minitoy_train_ROCm6_2_kineto.json.gz"), TSCOPE_SAMPLE},
      {kineto("hta-amd_trace--mi250_minitoy_train_ROCm6_2_kineto.json.gz"), TSCOPE_SAMPLE}};
  for (const auto& files : jobs) {
    for (const DiagnoseOptions& o : optionSets()) {
      const std::string expected = ofSession(files, o);
      EXPECT_EQ(rankByRank(files, o), expected) << files.size() << " files";
    }
  }
  // The two ranks of one job: the straggler rule compares them (it must find the same).
  DiagnoseOptions o;
  o.ruleNames = {"straggler"};
  const std::string twoRanks = ofSession(jobs[0], o);
  EXPECT_NE(twoRanks.find("started last in 8 of 10 collectives"), std::string::npos) << twoRanks;
  EXPECT_EQ(rankByRank(jobs[0], o, 1), twoRanks);
}

// Ranks that mark steps only together: one "step" NVTX range each (a single range does not make
// steps; two over the session do) — the session reads NVTX steps, and so must the ranks combined.
// Ranks whose steps are layer ranges starting with other layers cannot be judged apart: the
// combination says so, to be diagnosed as one session.
TEST(DiagnosisCombine, StepsMarkedAcrossRanksAreReadAsTheSessionReadsThem) {
  TempDir dir;
  const std::vector<std::string> together = {
      savedRank(dir, "a.tscope", 0, {{"step 1", 0, 6000}}),
      savedRank(dir, "b.tscope", 100, {{"step 1", 0, 5000}})};
  const std::string expected = ofSession(together, {});
  EXPECT_NE(expected.find("NVTX step ranges"), std::string::npos) << expected;
  EXPECT_EQ(rankByRank(together, {}), expected);

  // Ranks running the same layers at the same times: each rank's steps end where its own next
  // one starts (read in start order, the next step was the other rank's, and a step ran to its
  // rank's last layer).
  const std::vector<std::tuple<std::string, TimeNs, TimeNs>> alike = {
      {"forward/conv1", 0, 100},
      {"backward/conv1", 200, 300},
      {"forward/conv1", 4000, 4100},
      {"backward/conv1", 4200, 4300}};
  const std::vector<std::string> same = {savedRank(dir, "e.tscope", 0, alike),
                                         savedRank(dir, "f.tscope", 0, alike)};
  const std::string sameLayers = ofSession(same, {});
  EXPECT_NE(sameLayers.find("\"end_ns\": 4000"), std::string::npos) << sameLayers;
  EXPECT_EQ(rankByRank(same, {}), sameLayers);

  const std::vector<std::string> layers = {
      savedRank(dir, "c.tscope", 0, {{"forward/conv1", 0, 100}, {"forward/conv1", 4000, 4100}}),
      savedRank(dir, "d.tscope", 0, {{"forward/fc", 0, 100}, {"forward/fc", 4000, 4100}})};
  auto ranks = diagnoseRankFiles(layers, shardFiles(2, 0, 1), {}, {});
  ASSERT_TRUE(ranks.ok()) << ranks.error();
  bool differently = false;
  auto d = combineRankDiagnoses(std::move(*ranks), {}, &differently);
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(differently);
  EXPECT_NE(d.error().find("forward/fc"), std::string::npos) << d.error();
}

// Shards written to part files and read back, merged in any order, give the same diagnosis;
// parts that do not make one run are refused, naming them.
TEST(DiagnosisCombine, ShardsMergeAsOneRun) {
  const std::vector<std::string> files = {
      kineto("hta-trace_filter--sampled_rank-0.json.gz"),
      kineto("hta-trace_filter--sampled_rank-1.json.gz"),
      kineto("hta-amd_trace--mi250_minitoy_train_ROCm6_2_kineto.json.gz"), TSCOPE_SAMPLE};
  DiagnoseOptions o;
  o.rules.gapThreshold = 200'000;
  const std::string expected = ofSession(files, o);
  constexpr size_t kShards = 3;
  std::vector<DiagnosisPart> parts;
  std::vector<std::string> names;
  for (size_t i = kShards; i-- > 0;) {  // the last shard first: merge sorts them out
    DiagnosisPart part;
    part.files = files;
    part.shard = i, part.shards = kShards;
    part.options = o;
    auto ranks = diagnoseRankFiles(files, shardFiles(files.size(), i, kShards), o, {});
    ASSERT_TRUE(ranks.ok()) << ranks.error();
    part.ranks = std::move(*ranks);
    const std::string name = "part" + std::to_string(i) + ".json";
    auto back = diagnosisPartFromJson(name, diagnosisPartToJson(part));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_TRUE(isDiagnosisPart(diagnosisPartToJson(part)));
    parts.push_back(std::move(*back));
    names.push_back(name);
  }
  auto merged = mergeDiagnosisParts(parts, names);
  ASSERT_TRUE(merged.ok()) << merged.error();
  EXPECT_EQ(tablesOf(merged->diagnosis), expected);

  auto missing = mergeDiagnosisParts({parts[0], parts[1]}, {names[0], names[1]});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("shards missing: 0 of 3"), std::string::npos) << missing.error();
  auto twice = mergeDiagnosisParts({parts[0], parts[0], parts[1]}, {"x", "y", "z"});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().find("are both shard"), std::string::npos) << twice.error();
  std::vector<DiagnosisPart> other = parts;
  other[1].options.kernelWaitBelow = 1;
  auto options = mergeDiagnosisParts(other, names);
  ASSERT_FALSE(options.ok());
  EXPECT_NE(options.error().find(names[1] + " was made with other options"), std::string::npos)
      << options.error();
  EXPECT_FALSE(diagnosisPartFromJson("s.json", "{\"format\": \"tensorscope stats summary\"}").ok());
}

// A damaged part (cut short, bytes changed) is refused with an error naming it, or read as what it
// still says; never a crash.
TEST(DiagnosisCombine, DamagedPartsAreRefusedByName) {
  const std::vector<std::string> files = {
      kineto("hta-amd_trace--mi250_minitoy_train_ROCm6_2_kineto.json.gz"), TSCOPE_SAMPLE};
  DiagnosisPart part;
  part.files = files;
  auto ranks = diagnoseRankFiles(files, shardFiles(2, 0, 1), {}, {});
  ASSERT_TRUE(ranks.ok()) << ranks.error();
  part.ranks = std::move(*ranks);
  const std::string text = diagnosisPartToJson(part);
  auto check = [&](const std::string& damaged) {
    auto p = diagnosisPartFromJson("damaged.json", damaged);
    if (!p) {
      EXPECT_EQ(p.error().rfind("damaged.json", 0), 0u) << p.error();
      return;
    }
    auto merged = mergeDiagnosisParts({std::move(*p)}, {"damaged.json"});
    if (merged) tablesOf(merged->diagnosis);
  };
  for (size_t cut = 0; cut < text.size(); cut += std::max<size_t>(1, text.size() / 300))
    check(text.substr(0, cut));
  std::mt19937 random(7);
  for (int i = 0; i < 300; ++i) {
    std::string damaged = text;
    damaged[random() % damaged.size()] = "0-9\"{}[],:x"[random() % 12];
    check(damaged);
  }
}

}  // namespace ts
