// Rank files summarised apart — on threads, in shards, through part files — give the very tables
// of the multi-rank session that opening them together gives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "analysis/stats_reports.h"
#include "analysis/stats_table.h"
#include "io/open_session.h"
#include "io/tscope_file.h"
#include "session/session_builder.h"
#include "summary/stats_combine.h"
#include "summary/stats_part.h"

namespace ts {

namespace {

std::string kineto(const std::string& name) {
  return std::string(TSCOPE_SHARED_DATA) + "/kineto/" + name;
}

// Wall-clock ranks of one job, a trace of another time, an AMD trace and a .tscope without a
// wall clock: the ranks are lined up on their first events, as openSessionFiles lines them up.
std::vector<std::string> jobFiles() {
  return {
      kineto("hta-trace_filter--sampled_rank-0.json.gz"),
      kineto("hta-trace_filter--sampled_rank-1.json.gz"),
      kineto("kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz"),
      kineto("hta-amd_trace--mi250_minitoy_train_ROCm6_2_kineto.json.gz"), TSCOPE_SAMPLE};
}

std::vector<StatsReport> summarised() {
  std::vector<StatsReport> out;
  for (StatsReport r : allStatsReports()) {
    if (summarisable(r)) out.push_back(r);
  }
  return out;
}

std::string tablesOf(const StatsSummary& sum, const StatsOptions& o) {
  std::vector<StatsTable> all;
  for (StatsReport r : summarised()) {
    auto t = renderStats(sum, r, o);
    EXPECT_TRUE(t.ok()) << t.error();
    if (t) all.insert(all.end(), t->begin(), t->end());
  }
  return statsToJson(all);
}

std::string tablesOf(const Session& s, const StatsOptions& o) {
  std::vector<StatsTable> all;
  for (StatsReport r : summarised()) {
    auto t = computeStats(s, r, o);
    EXPECT_TRUE(t.ok()) << t.error();
    if (t) all.insert(all.end(), t->begin(), t->end());
  }
  return statsToJson(all);
}

std::vector<size_t> allFiles(size_t n) {
  return shardFiles(n, 0, 1);
}

// Options that make every part of the summary count: a GPU chosen, rows per GPU, short gaps and
// few of them listed (each rank's longest kept, the rest counted).
std::vector<StatsOptions> optionSets() {
  StatsOptions plain, perGpu, narrow;
  perGpu.perGpu = true;
  perGpu.buckets = 7;
  narrow.device = 2;
  narrow.minGap = 1000;
  narrow.maxGaps = 3;
  return {plain, perGpu, narrow};
}

}  // namespace

// The heart of it: for every option set, summaries of the files made one by one and combined
// render what the session of all the files renders, to the byte.
TEST(StatsSummary, RanksSummarisedApartGiveTheSessionsTables) {
  const std::vector<std::string> files = jobFiles();
  auto session = openSessionFiles(files);
  ASSERT_TRUE(session.ok()) << session.error();
  ASSERT_GE((*session)->devices.size(), 3u);
  const std::vector<StatsReport> reports = summarised();
  for (const StatsOptions& o : optionSets()) {
    OpenOptions open;
    open.threads = 2;
    auto ranks = summariseRankFiles(files, allFiles(files.size()), reports, o, open);
    ASSERT_TRUE(ranks.ok()) << ranks.error();
    ASSERT_EQ(ranks->size(), files.size());
    auto combined = combineRankSummaries(std::move(*ranks));
    ASSERT_TRUE(combined.ok()) << combined.error();
    const std::string expected = tablesOf(**session, o);
    EXPECT_EQ(tablesOf(*combined, o), expected) << "gpu " << o.device << " per-gpu " << o.perGpu;
    // The gap list was cut short: the test covers the ranks' longest being merged.
    if (o.maxGaps == 3) {
      EXPECT_NE(expected.find("the 3 longest listed"), std::string::npos);
    }
  }
}

// A rank that ends before the job does: its last kernel, of zero length, at its very end, is
// inside the job's session and must count there as when the ranks are opened together (a rank
// summarised alone once stopped at its own end: one kernel fewer, and a gap to that end).
TEST(StatsSummary, ARankEndingEarlyCountsItsLastInstant) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("stats-summary-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto rank = [&](const char* name, std::vector<std::pair<TimeNs, TimeNs>> kernels, TimeNs apiEnd) {
    SessionBuilder b;
    const uint32_t r = b.rank(0);
    const uint32_t stream = b.stream(b.device(r, 0), 7);
    for (auto [from, to] : kernels) b.addKernel(stream, from, to, b.intern("k"), {});
    b.addApi(b.thread(b.process(r, 1), 1), 0, apiEnd, b.intern("cudaDeviceSynchronize"), {});
    auto s = b.build();
    EXPECT_TRUE(s.ok()) << s.error();
    const std::string path = (dir / name).string();
    EXPECT_TRUE(saveSession(**s, path).ok());
    return path;
  };
  const std::vector<std::string> files = {rank("a.tscope", {{10, 50}, {100, 100}}, 100),
                                          rank("b.tscope", {{0, 200}}, 200)};
  auto session = openSessionFiles(files);
  ASSERT_TRUE(session.ok()) << session.error();
  StatsOptions o;
  o.minGap = 1;
  auto ranks = summariseRankFiles(files, allFiles(2), summarised(), o, {});
  ASSERT_TRUE(ranks.ok()) << ranks.error();
  auto combined = combineRankSummaries(std::move(*ranks));
  ASSERT_TRUE(combined.ok()) << combined.error();
  const std::string expected = tablesOf(**session, o);
  EXPECT_EQ(tablesOf(*combined, o), expected);
  EXPECT_NE(expected.find("\"kernels\": 2"), std::string::npos) << expected;
  std::filesystem::remove_all(dir);
}

// Shards written to part files and read back, given to merge in any order, render the same.
TEST(StatsSummary, ShardsMergeAsOneRun) {
  const std::vector<std::string> files = jobFiles();
  const std::vector<StatsReport> reports = summarised();
  StatsOptions o;
  o.perGpu = true;
  o.minGap = 5000;
  o.maxGaps = 4;
  OpenOptions open;
  open.threads = 1;
  auto whole = summariseRankFiles(files, allFiles(files.size()), reports, o, open);
  ASSERT_TRUE(whole.ok()) << whole.error();
  auto combined = combineRankSummaries(std::move(*whole));
  ASSERT_TRUE(combined.ok());
  const std::string expected = tablesOf(*combined, o);

  constexpr size_t kShards = 3;
  std::vector<StatsPart> parts;
  std::vector<std::string> names;
  for (size_t i = kShards; i-- > 0;) {  // the last shard first: merge sorts them out
    StatsPart part;
    part.files = files;
    part.shard = i;
    part.shards = kShards;
    part.reports = reports;
    part.options = o;
    auto ranks = summariseRankFiles(files, shardFiles(files.size(), i, kShards), reports, o, open);
    ASSERT_TRUE(ranks.ok()) << ranks.error();
    part.ranks = std::move(*ranks);
    const std::string name = "part" + std::to_string(i) + ".json";
    auto back = statsPartFromJson(name, statsPartToJson(part));
    ASSERT_TRUE(back.ok()) << back.error();
    parts.push_back(std::move(*back));
    names.push_back(name);
  }
  auto merged = mergeStatsParts(parts, names);
  ASSERT_TRUE(merged.ok()) << merged.error();
  EXPECT_EQ(merged->reports, reports);
  EXPECT_EQ(tablesOf(merged->summary, merged->options), expected);

  // Parts that do not make one run: each refused, the part files named.
  auto refused = [&](std::vector<StatsPart> ps, std::vector<std::string> ns, const char* what) {
    auto m = mergeStatsParts(std::move(ps), ns);
    ASSERT_FALSE(m.ok()) << what;
    EXPECT_NE(m.error().find(what), std::string::npos) << m.error();
  };
  refused({parts[0], parts[1]}, {names[0], names[1]}, "shards missing: 0 of 3");
  refused({parts[0], parts[0], parts[1]}, {"a.json", "b.json", names[1]},
          "b.json and a.json are both shard 2 of 3");
  StatsPart otherOptions = parts[1];
  otherOptions.options.maxGaps = 5;
  refused({parts[0], otherOptions, parts[2]}, {names[0], "x.json", names[2]},
          "x.json was made with other reports or options than part2.json");
  StatsPart otherFiles = parts[1];
  otherFiles.files.pop_back();
  refused({parts[0], otherFiles, parts[2]}, {names[0], "y.json", names[2]},
          "y.json summarises other files than part2.json");
  StatsPart wrongFiles = parts[1];
  std::swap(wrongFiles.ranks, parts[2].ranks);
  refused({parts[0], wrongFiles}, {names[0], "z.json"}, "z.json: shard 1 of 3 does not hold");
}

// A rank of another job (another world size) is refused when the summaries are combined, as when
// the files are opened together.
TEST(StatsSummary, RankOfAnotherJobIsRefused) {
  const std::vector<std::string> files = jobFiles();
  auto ranks = summariseRankFiles(files, {0, 1}, summarised(), {}, {});
  ASSERT_TRUE(ranks.ok()) << ranks.error();
  (*ranks)[1].sources[0].worldSize = 64;
  auto combined = combineRankSummaries(std::move(*ranks));
  ASSERT_FALSE(combined.ok());
  EXPECT_NE(combined.error().find(files[1] + " belongs to another job than " + files[0]),
            std::string::npos)
      << combined.error();
}

// Every prefix of a part and a few of its bytes changed: an error naming the file, or a part that
// still reads (a changed digit) — never a crash.
TEST(StatsSummary, DamagedPartsAreRefusedByName) {
  const std::vector<std::string> files = jobFiles();
  StatsPart part;
  part.files = {files[4]};
  part.reports = summarised();
  auto ranks = summariseRankFiles(part.files, {0}, part.reports, {}, {});
  ASSERT_TRUE(ranks.ok()) << ranks.error();
  part.ranks = std::move(*ranks);
  const std::string text = statsPartToJson(part);
  ASSERT_TRUE(statsPartFromJson("p.json", text).ok());
  size_t refused = 0;
  for (size_t n = 0; n < text.size(); n += 1 + n / 50) {
    auto p = statsPartFromJson("p.json", text.substr(0, n));
    ASSERT_FALSE(p.ok()) << n;
    EXPECT_EQ(p.error().rfind("p.json: ", 0), 0u) << p.error();
    ++refused;
  }
  EXPECT_GT(refused, 100u);
  std::mt19937 random(7);
  for (int i = 0; i < 300; ++i) {
    std::string bad = text;
    bad[random() % bad.size()] = "0-9\"{}[],x"[random() % 11];
    auto p = statsPartFromJson("p.json", bad);
    if (p) {
      auto m = mergeStatsParts({*p}, {"p.json"});
      if (m) {
        for (StatsReport r : m->reports) (void)renderStats(m->summary, r, m->options);
      }
    } else {
      EXPECT_EQ(p.error().rfind("p.json: ", 0), 0u) << p.error();
    }
  }
  // Numbers no part holds: refused before anything adds them up.
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    return statsPartFromJson("p.json", t);
  };
  auto manyShards = replaced("\"shards\":1", "\"shards\":4611686018427387904");
  ASSERT_FALSE(manyShards.ok());
  EXPECT_NE(manyShards.error().find("is not a shard"), std::string::npos) << manyShards.error();
  std::string far = text;
  const size_t key = far.find("\"start_ns\":") + 11;
  far.replace(key, far.find(',', key) - key, "4700000000000000000");  // past 2^62
  auto farStart = statsPartFromJson("p.json", far);
  ASSERT_FALSE(farStart.ok());
  EXPECT_NE(farStart.error().find("\"start_ns\" is out of range"), std::string::npos)
      << farStart.error();
  auto bigGpu = replaced("\"gpu\":-1", "\"gpu\":4294967295");
  ASSERT_FALSE(bigGpu.ok());
  auto notOurs = statsPartFromJson("q.json", "{\"traceEvents\": []}");
  ASSERT_FALSE(notOurs.ok());
  EXPECT_NE(notOurs.error().find("q.json: not a stats summary"), std::string::npos);
}

// Values kept as runs describe as the values written out; runs of parts joined are the runs of
// the whole, whatever order the parts come in (ranks combined in any order).
TEST(StatsSummary, RunsDescribeAsTheValuesWrittenOut) {
  std::mt19937 random(3);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int64_t> values(1 + random() % 500);
    for (int64_t& v : values) v = static_cast<int64_t>(random() % (trial % 2 ? 40 : 100000));
    std::vector<int64_t> copy = values;
    const Distribution expected = describeValues(copy);
    const std::vector<int64_t> front(values.begin(), values.begin() + values.size() / 3),
        back(values.begin() + values.size() / 3, values.end());
    const ValueRuns a = ValueRuns::of(front), b = ValueRuns::of(back);
    const ValueRuns ab = ValueRuns::joined({&a, &b}), ba = ValueRuns::joined({&b, &a});
    const ValueRuns whole = ValueRuns::of(values);
    EXPECT_EQ(ab.value, whole.value);
    EXPECT_EQ(ab.count, whole.count);
    EXPECT_EQ(ba.value, whole.value);
    EXPECT_EQ(ba.count, whole.count);
    const Distribution d = describeRuns(whole);
    EXPECT_EQ(d.count, expected.count);
    EXPECT_EQ(d.total, expected.total);
    EXPECT_EQ(d.min, expected.min);
    EXPECT_EQ(d.max, expected.max);
    EXPECT_EQ(d.mean, expected.mean);
    EXPECT_EQ(d.median, expected.median);
    EXPECT_NEAR(d.stddev, expected.stddev, 1e-9 * (1 + expected.stddev));
  }
  std::vector<int64_t> odd{5, 1, 1000000007, 3, 3, 17, 2, 999, 4}, even{4, 1, 3, 2};
  EXPECT_EQ(describeRuns(ValueRuns::of(odd)).median, 4.0);
  EXPECT_EQ(describeRuns(ValueRuns::of(even)).median, 2.5);
  EXPECT_EQ(describeRuns({}).count, 0);
}

}  // namespace ts
