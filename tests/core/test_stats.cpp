// Statistics reports against numbers computed by hand on a small session, and spot checks on a
// real trace.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analysis/intervals.h"
#include "analysis/session_compare.h"
#include "analysis/stats_reports.h"
#include "io/open_session.h"
#include "session/session_builder.h"
#include "session_fixture.h"
#include "util/format.h"

namespace ts {

namespace {

// GPU 0: stream 1 and 2; GPU 1: stream 3. Times in ns; the session spans [0, 1300).
//   stream 1: gemm [0,100), gemm [200,500), relu [500,550), memset [700,710) 64 B
//   stream 2: gemm [50,150), relu [1000,1100), HtoD [100,300) 2000 B, DtoH [600,700) 500 B,
//             HtoD [1200,1300) 1000 B
//   stream 3: gemm [0,1000)
//   CPU thread: cudaLaunchKernel [0,10) [20,40) [40,100), cudaMemcpyAsync [90,120),
//               NVTX "step" [0,1300)
SessionPtr handSession() {
  SessionBuilder b;
  uint32_t r = b.rank(0);
  uint32_t g0 = b.device(r, 0), g1 = b.device(r, 1);
  uint32_t s1 = b.stream(g0, 1), s2 = b.stream(g0, 2), s3 = b.stream(g1, 3);
  StringId gemm = b.intern("gemm"), relu = b.intern("relu");
  b.addKernel(s1, 0, 100, gemm, {});
  b.addKernel(s1, 200, 500, gemm, {});
  b.addKernel(s1, 500, 550, relu, {});
  b.addKernel(s2, 50, 150, gemm, {});
  b.addKernel(s2, 1000, 1100, relu, {});
  b.addKernel(s3, 0, 1000, gemm, {});
  auto copy = [&](uint32_t s, TimeNs a, TimeNs e, CopyKind k, uint64_t bytes) {
    MemcpyDetail m;
    m.copyKind = k;
    m.bytes = bytes;
    b.addMemcpy(s, a, e, b.intern("copy"), m);
  };
  copy(s2, 100, 300, CopyKind::HtoD, 2000);
  copy(s2, 600, 700, CopyKind::DtoH, 500);
  copy(s2, 1200, 1300, CopyKind::HtoD, 1000);
  MemsetDetail ms;
  ms.bytes = 64;
  b.addMemset(s1, 700, 710, b.intern("memset"), ms);
  uint32_t t = b.thread(b.process(r, 10), 11);
  StringId launch = b.intern("cudaLaunchKernel");
  b.addApi(t, 0, 10, launch, {});
  b.addApi(t, 20, 40, launch, {});
  b.addApi(t, 40, 100, launch, {});
  b.addApi(t, 90, 120, b.intern("cudaMemcpyAsync"), {});
  b.addNvtx(t, 0, 1300, b.intern("step"), {});
  auto s = b.build();
  EXPECT_TRUE(s.ok());
  return s.value();
}

StatsTable one(const Session& s, StatsReport r, const StatsOptions& o = {}) {
  auto t = computeStats(s, r, o);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error());
  EXPECT_EQ(t->size(), 1u);
  return t->front();
}

// The row whose text column `column` equals `key`.
size_t rowOf(const StatsTable& t, const std::string& column, const std::string& key) {
  size_t c = 0;
  while (c < t.columns.size() && t.columns[c].key != column) ++c;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (std::get<std::string>(t.rows[r][c]) == key) return r;
  }
  ADD_FAILURE() << "no row " << key;
  return 0;
}

double cell(const StatsTable& t, size_t row, const std::string& column) {
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].key == column) return t.number(row, c);
  }
  ADD_FAILURE() << "no column " << column;
  return NAN;
}

}  // namespace

TEST(Stats, KernelSummaryByHand) {
  SessionPtr s = handSession();
  StatsTable t = one(*s, StatsReport::KernSum);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(t.rows[0].back()), "gemm");  // sorted by total time
  // gemm: 100, 300, 100, 1000 ns.
  EXPECT_DOUBLE_EQ(cell(t, 0, "total_ns"), 1500);
  EXPECT_DOUBLE_EQ(cell(t, 0, "count"), 4);
  EXPECT_DOUBLE_EQ(cell(t, 0, "avg_ns"), 375);
  EXPECT_DOUBLE_EQ(cell(t, 0, "med_ns"), 200);
  EXPECT_DOUBLE_EQ(cell(t, 0, "min_ns"), 100);
  EXPECT_DOUBLE_EQ(cell(t, 0, "max_ns"), 1000);
  EXPECT_NEAR(cell(t, 0, "stddev_ns"), std::sqrt(547500.0 / 3), 1e-9);
  EXPECT_NEAR(cell(t, 0, "time_pct"), 100.0 * 1500 / 1650, 1e-9);
  // relu: 50, 100.
  EXPECT_DOUBLE_EQ(cell(t, 1, "med_ns"), 75);
  EXPECT_NEAR(cell(t, 1, "stddev_ns"), std::sqrt(1250.0), 1e-9);

  StatsOptions gpu0;
  gpu0.device = 0;
  t = one(*s, StatsReport::KernSum, gpu0);
  EXPECT_DOUBLE_EQ(cell(t, rowOf(t, "name", "gemm"), "total_ns"), 500);
  EXPECT_NEAR(cell(t, rowOf(t, "name", "relu"), "time_pct"), 100.0 * 150 / 650, 1e-9);

  StatsOptions perGpu;
  perGpu.perGpu = true;
  t = one(*s, StatsReport::KernSum, perGpu);
  EXPECT_EQ(t.rows.size(), 3u);  // gemm on GPU 0 and GPU 1, relu on GPU 0
  EXPECT_DOUBLE_EQ(cell(t, 0, "total_ns"), 1000);
  EXPECT_EQ(std::get<std::string>(t.rows[0][t.columns.size() - 2]), s->deviceLabel(1));
}

TEST(Stats, MemoryAndApiSummariesByHand) {
  SessionPtr s = handSession();
  StatsTable t = one(*s, StatsReport::MemTime);
  size_t htod = rowOf(t, "operation", "HtoD"), dtoh = rowOf(t, "operation", "DtoH");
  size_t memset = rowOf(t, "operation", "Memset");
  EXPECT_DOUBLE_EQ(cell(t, htod, "total_ns"), 300);
  EXPECT_DOUBLE_EQ(cell(t, htod, "count"), 2);
  EXPECT_NEAR(cell(t, htod, "time_pct"), 100.0 * 300 / 410, 1e-9);
  EXPECT_DOUBLE_EQ(cell(t, htod, "bandwidth"), 1e10);  // 3000 B in 300 ns
  EXPECT_DOUBLE_EQ(cell(t, dtoh, "bandwidth"), 5e9);
  EXPECT_DOUBLE_EQ(cell(t, memset, "bandwidth"), 6.4e9);

  t = one(*s, StatsReport::MemSize);
  htod = rowOf(t, "operation", "HtoD");
  EXPECT_DOUBLE_EQ(cell(t, htod, "total_bytes"), 3000);
  EXPECT_DOUBLE_EQ(cell(t, htod, "med_bytes"), 1500);
  EXPECT_DOUBLE_EQ(cell(t, htod, "min_bytes"), 1000);
  EXPECT_NEAR(cell(t, htod, "stddev_bytes"), std::sqrt(2 * 500.0 * 500.0), 1e-9);

  t = one(*s, StatsReport::ApiSum);
  size_t launch = rowOf(t, "name", "cudaLaunchKernel");
  EXPECT_EQ(launch, 0u);
  EXPECT_DOUBLE_EQ(cell(t, launch, "total_ns"), 90);
  EXPECT_DOUBLE_EQ(cell(t, launch, "med_ns"), 20);
  EXPECT_DOUBLE_EQ(cell(t, launch, "time_pct"), 75);
}

// Bucket columns of a short range 43 s into the sample are named apart: +43.27 s, +43.28 s, …
TEST(Stats, UtilisationBucketsOfAShortRangeHaveDistinctNames) {
  auto s = openSessionFile(TSCOPE_SAMPLE);
  ASSERT_TRUE(s.ok()) << s.error();
  StatsOptions o;
  o.buckets = 10;
  o.start = (*s)->startTime() + 43'270'000'000;
  o.end = (*s)->startTime() + 43'370'000'000;
  auto tables = computeStats(**s, StatsReport::GpuUtil, o);
  ASSERT_TRUE(tables.ok());
  std::set<std::string> titles;
  for (const StatsColumn& c : (*tables)[0].columns) titles.insert(c.title);
  EXPECT_EQ(titles.size(), (*tables)[0].columns.size());
  EXPECT_TRUE(titles.count("+43.28 s")) << *titles.rbegin();
  // The whole session's first bucket starts at "+0 s", in its neighbours' unit, not "+0 ns".
  auto whole = computeStats(**s, StatsReport::GpuUtil, StatsOptions{});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ((*whole)[0].columns[3].title, "+0 s");
}

TEST(Stats, UtilisationGapsAndOverlapByHand) {
  SessionPtr s = handSession();
  StatsOptions o;
  o.buckets = 2;
  o.minGap = 100;
  auto tables = computeStats(*s, StatsReport::GpuUtil, o);
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 2u);
  const StatsTable& util = (*tables)[0];
  size_t g0 = rowOf(util, "row", s->deviceLabel(0)), g1 = rowOf(util, "row", s->deviceLabel(1));
  // GPU 0 busy: [0,150) ∪ [200,550) ∪ [1000,1100) = 600 of 1300 ns.
  EXPECT_NEAR(cell(util, g0, "busy_pct"), 100.0 * 600 / 1300, 1e-9);
  EXPECT_NEAR(cell(util, g0, "bucket_0"), 100.0 * 500 / 650, 1e-9);
  EXPECT_NEAR(cell(util, g0, "bucket_1"), 100.0 * 100 / 650, 1e-9);
  EXPECT_DOUBLE_EQ(cell(util, g0, "kernels"), 5);
  EXPECT_NEAR(cell(util, g0 + 1, "busy_pct"), 100.0 * 450 / 1300, 1e-9);  // stream 1
  EXPECT_NEAR(cell(util, g1, "bucket_1"), 100.0 * 350 / 650, 1e-9);

  const StatsTable& gaps = (*tables)[1];
  ASSERT_EQ(gaps.rows.size(), 1u);  // [550, 1000) on GPU 0; the 50 ns gap is too short
  EXPECT_DOUBLE_EQ(cell(gaps, 0, "start_ns"), 550);
  EXPECT_DOUBLE_EQ(cell(gaps, 0, "duration_ns"), 450);
  EXPECT_EQ(std::get<std::string>(gaps.rows[0][3]), "in step");  // the range around the gap
  // A range that starts or ends inside that gap still lists it, clipped to the range (the
  // kernels before and after bound it).
  for (auto [from, to, gapStart, gapLength] :
       {std::tuple<TimeNs, TimeNs, TimeNs, TimeNs>{700, 1100, 700, 300},
        {0, 800, 550, 250},
        {600, 900, 600, 300}}) {
    StatsOptions clipped = o;
    clipped.start = s->startTime() + from;
    clipped.end = s->startTime() + to;
    auto t = computeStats(*s, StatsReport::GpuUtil, clipped);
    ASSERT_TRUE(t.ok());
    const StatsTable& g = (*t)[1];
    ASSERT_EQ(g.rows.size(), 1u) << from << ".." << to;
    EXPECT_DOUBLE_EQ(cell(g, 0, "start_ns"), gapStart) << from << ".." << to;
    EXPECT_DOUBLE_EQ(cell(g, 0, "duration_ns"), gapLength) << from << ".." << to;
  }

  // Timestamps as many digits as their neighbours need: gaps 1 ms apart 43 s in.
  StatsTable near{"t", "t", {{"start_ns", "Start", StatsUnit::Timestamp}}, {}, {}};
  near.rows = {{int64_t{43'280'000'000}}, {int64_t{43'281'000'000}}, {int64_t{43'283'500'000}}};
  EXPECT_EQ(near.timestampResolution(), 1'000'000);
  EXPECT_EQ(near.text(0, 0), "43.280 s");
  EXPECT_EQ(near.text(1, 0), "43.281 s");
  near.rows.push_back({int64_t{43'283'500'100}});  // rows changed: found again
  EXPECT_EQ(near.text(0, 0), "43.2800000 s");

  StatsTable ov = one(*s, StatsReport::Overlap);
  size_t all = 0, htod = 1;
  ASSERT_EQ(std::get<std::string>(ov.rows[all][1]), "all");
  ASSERT_EQ(std::get<std::string>(ov.rows[htod][1]), "HtoD");
  EXPECT_DOUBLE_EQ(cell(ov, all, "copy_ns"), 400);
  EXPECT_DOUBLE_EQ(cell(ov, all, "overlap_ns"), 150);
  EXPECT_DOUBLE_EQ(cell(ov, all, "exposed_ns"), 250);
  EXPECT_DOUBLE_EQ(cell(ov, all, "overlap_pct"), 37.5);
  EXPECT_DOUBLE_EQ(cell(ov, all, "compute_ns"), 600);
  EXPECT_DOUBLE_EQ(cell(ov, htod, "overlap_pct"), 50);
}

TEST(Stats, DurationHistogramByHand) {
  // Kernels of 100, 300, 50, 100, 100 and 1000 ns. Four bins per decade, edges 10^(k/4) rounded:
  // ... 32, 56, 100, 178, 316, 562, 1000, 1778: 50 is in [32, 56), the 100s in [100, 178), 300 in
  // [178, 316), 1000 in [1000, 1778).
  SessionPtr s = handSession();
  StatsTable t = one(*s, StatsReport::KernHist);
  std::map<int64_t, int64_t> counts;
  for (size_t r = 0; r < t.rows.size(); ++r)
    counts[static_cast<int64_t>(cell(t, r, "bin_start_ns"))] =
        static_cast<int64_t>(cell(t, r, "count"));
  EXPECT_EQ(counts.at(32), 1);   // 50 ns in [32, 56)
  EXPECT_EQ(counts.at(100), 3);  // [100, 178)
  EXPECT_EQ(counts.at(178), 1);  // 300 ns
  EXPECT_EQ(counts.at(1000), 1);
  EXPECT_EQ(counts.at(316), 0);  // empty bins between are listed
  double kernels = 0, pct = 0;
  for (size_t r = 0; r < t.rows.size(); ++r)
    kernels += cell(t, r, "count"), pct += cell(t, r, "time_pct");
  EXPECT_EQ(kernels, 6);
  EXPECT_NEAR(pct, 100, 1e-9);
}

// Kernels the trace gives no duration get a row of their own, not a "1 ns" bin followed by
// empty bins up to the real ones.
TEST(Stats, ZeroDurationKernelsHaveTheirOwnHistogramRow) {
  SessionBuilder b;
  const uint32_t stream = b.stream(b.device(b.rank(0), 0), 7);
  const StringId k = b.intern("k");
  b.addKernel(stream, 0, 0, k, {});
  b.addKernel(stream, 10, 10, k, {});
  b.addKernel(stream, 20, 120, k, {});
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  StatsTable t = one(**s, StatsReport::KernHist);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(cell(t, 0, "bin_start_ns"), 0);
  EXPECT_EQ(cell(t, 0, "bin_end_ns"), 0);
  EXPECT_EQ(cell(t, 0, "count"), 2);
  EXPECT_NEAR(cell(t, 0, "count_pct"), 200.0 / 3, 1e-9);
  EXPECT_EQ(cell(t, 1, "bin_start_ns"), 100);  // the 100 ns kernel's bin, and nothing between
  EXPECT_EQ(cell(t, 1, "count"), 1);
  EXPECT_NEAR(cell(t, 1, "time_pct"), 100, 1e-9);
}

TEST(Stats, RangeCountsIntersectingEventsAndClipsBusyTime) {
  SessionPtr s = handSession();
  StatsOptions o;
  o.start = 0;
  o.end = 160;
  StatsTable t = one(*s, StatsReport::KernSum, o);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(cell(t, 0, "count"), 3);  // gemm [0,100), [50,150) and [0,1000), whole
  EXPECT_DOUBLE_EQ(cell(t, 0, "total_ns"), 1200);
  o.buckets = 1;
  auto util = computeStats(*s, StatsReport::GpuUtil, o);
  ASSERT_TRUE(util.ok());
  EXPECT_NEAR(cell((*util)[0], 0, "busy_pct"), 100.0 * 150 / 160, 1e-9);
}

TEST(Stats, BadOptionsAreErrors) {
  SessionPtr s = handSession();
  StatsOptions o;
  o.device = 5;
  EXPECT_FALSE(computeStats(*s, StatsReport::KernSum, o).ok());
  o = {};
  o.start = 10, o.end = 10;
  EXPECT_FALSE(computeStats(*s, StatsReport::KernSum, o).ok());
  o = {};
  o.buckets = 0;
  EXPECT_FALSE(computeStats(*s, StatsReport::GpuUtil, o).ok());
}

// Cells as people read them: a negative difference of bytes keeps its sign (the Traffic table
// showed a run moving 18.4 MiB more than the simulation as Δ "0 B"), and small shares are neither
// "0.0 %" nor in exponents ("7.8e-05 %").
TEST(Stats, SignedBytesAndSmallShares) {
  EXPECT_EQ(formatCell(int64_t{-19293798}, StatsUnit::Bytes), "-18.4 MiB");
  EXPECT_EQ(formatCell(int64_t{2048}, StatsUnit::Bytes), "2 KiB");
  EXPECT_EQ(formatCell(0.044, StatsUnit::Percent), "0.044 %");
  EXPECT_EQ(formatCell(7.8e-05, StatsUnit::Percent), "< 0.001 %");
  EXPECT_EQ(formatCell(0.0, StatsUnit::Percent), "0.0 %");
  EXPECT_EQ(formatCell(12.5, StatsUnit::Percent), "12.5 %");
}

TEST(Stats, TextCsvAndJson) {
  StatsTable t{"demo",
               "Demo",
               {{"name", "Name", StatsUnit::Text},
                {"total_ns", "Total", StatsUnit::Duration},
                {"pct", "Share", StatsUnit::Percent},
                {"bytes", "Bytes", StatsUnit::Bytes}},
               {{std::string("a, \"b\""), int64_t{1500000}, 12.5, int64_t{2048}},
                {std::string("c"), int64_t{7}, 0.0, {}}},
               {"a note"}};
  EXPECT_EQ(statsToCsv(t),
            "name,total_ns,pct,bytes\r\n\"a, \"\"b\"\"\",1500000,12.5,2048\r\nc,7,0,\r\n");
  std::string text = statsToText(t);
  EXPECT_NE(text.find("1.5 ms"), std::string::npos);
  EXPECT_NE(text.find("12.5 %"), std::string::npos);
  EXPECT_NE(text.find("2 KiB"), std::string::npos);
  EXPECT_NE(text.find("a note"), std::string::npos);
  simdjson::padded_string json(statsToJson({t}));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(doc["rows"].at(0)["name"]), "a, \"b\"");
  EXPECT_EQ(int64_t(doc["rows"].at(0)["total_ns"]), 1500000);
  EXPECT_TRUE(doc["rows"].at(1)["bytes"].is_null());
  EXPECT_EQ(std::string_view(doc["columns"].at(1)["unit"]), "ns");
}

TEST(Stats, IntervalsAndDurations) {
  std::vector<Interval> a{{5, 10}, {0, 3}, {2, 4}, {10, 12}, {20, 20}};
  mergeIntervals(a);
  ASSERT_EQ(a.size(), 2u);  // [0,4) and [5,12); the empty one is dropped
  EXPECT_EQ(coveredLength(a), 11);
  std::vector<Interval> b{{3, 6}, {11, 30}};
  EXPECT_EQ(coveredLength(intersectIntervals(a, b)), 1 + 1 + 1);
  EXPECT_EQ(gapsBetween(a, 1).size(), 1u);
  EXPECT_EQ(parseDuration("1.5ms"), 1'500'000);
  EXPECT_EQ(parseDuration("20 us"), 20'000);
  EXPECT_EQ(parseDuration("20\xc2\xb5s"), 20'000);
  EXPECT_EQ(parseDuration("2s"), 2'000'000'000);
  EXPECT_EQ(parseDuration("-3"), -3);
  EXPECT_EQ(parseDuration("1.000ns"), 1);
  EXPECT_FALSE(parseDuration("1.5ns"));
  EXPECT_FALSE(parseDuration("5 min"));
  EXPECT_FALSE(parseDuration("1.2.3s"));
  EXPECT_FALSE(parseDuration(""));
  EXPECT_FALSE(parseDuration("99999999999s"));
}

TEST(Stats, RealTraceSpotChecks) {
  // AlexNet on an A100 (HTA). Expected values from Python's json module: 79 kernels (10,692 µs in
  // all), the top one ampere_sgemm_32x32_sliced1x4_tn 6 times (97, 98, 393, 399, 812, 822 µs),
  // 16 HtoD copies, cudaLaunchKernel 79 calls for 3,056,561 µs.
  auto s = openSessionFile(
      std::string(TSCOPE_SHARED_DATA) +
      "/kineto/hta-critical_path--alexnet--benchmark_result_2869224_1695835535_trace.json.gz");
  ASSERT_TRUE(s.ok()) << s.error();
  StatsTable k = one(**s, StatsReport::KernSum);
  double kernels = 0, pct = 0;
  for (size_t r = 0; r < k.rows.size(); ++r)
    kernels += cell(k, r, "count"), pct += cell(k, r, "time_pct");
  EXPECT_EQ(kernels, 79);
  EXPECT_NEAR(pct, 100, 1e-9);
  EXPECT_EQ(std::get<std::string>(k.rows[0].back()), "ampere_sgemm_32x32_sliced1x4_tn");
  EXPECT_EQ(cell(k, 0, "count"), 6);
  EXPECT_EQ(cell(k, 0, "total_ns"), 2'621'000);
  EXPECT_EQ(cell(k, 0, "med_ns"), 396'000);
  EXPECT_EQ(cell(k, 0, "min_ns"), 97'000);
  EXPECT_NEAR(cell(k, 0, "time_pct"), 100.0 * 2621 / 10692, 1e-9);
  StatsTable api = one(**s, StatsReport::ApiSum);
  size_t launch = rowOf(api, "name", "cudaLaunchKernel");
  EXPECT_EQ(cell(api, launch, "count"), 79);
  EXPECT_EQ(cell(api, launch, "total_ns"), 3'056'561'000);
  StatsTable m = one(**s, StatsReport::MemTime);
  EXPECT_EQ(cell(m, rowOf(m, "operation", "HtoD"), "count"), 16);
  // The trace lists eight A100s; only GPU 0 ran anything: the utilisation and overlap tables
  // have its rows alone (the seven idle GPUs come only when one is asked for).
  EXPECT_EQ((*s)->devices.size(), 8u);
  const std::vector<bool> active = (*s)->activeDevices();
  EXPECT_EQ(std::count(active.begin(), active.end(), true), 1);
  auto util = computeStats(**s, StatsReport::GpuUtil, {});
  ASSERT_TRUE(util.ok());
  for (size_t r = 0; r < util->front().rows.size(); ++r)
    EXPECT_EQ(std::get<std::string>(util->front().rows[r][0]).find("GPU 1"), std::string::npos);
  StatsTable overlap = one(**s, StatsReport::Overlap);
  for (size_t r = 0; r < overlap.rows.size(); ++r)
    EXPECT_EQ(std::get<std::string>(overlap.rows[r][0]).rfind("GPU 0", 0), 0u);
  StatsOptions idle;
  idle.device = 3;
  auto asked = computeStats(**s, StatsReport::GpuUtil, idle);
  ASSERT_TRUE(asked.ok());
  EXPECT_FALSE(asked->front().rows.empty());  // asked for, an idle GPU has its (empty) row
}

}  // namespace ts

namespace ts {

TEST(Stats, CompareTwoSessionsByHand) {
  // A: gemm 100, 300 and relu 50 ns, one HtoD copy of 1000 B in 100 ns.
  // B: gemm 100, relu 50 and 60, attn 500 ns, two HtoD copies of 1000 B in 80 ns each.
  auto build = [](std::vector<std::pair<const char*, TimeNs>> kernels, int copies, TimeNs copyNs) {
    SessionBuilder b;
    uint32_t s = b.stream(b.device(b.rank(0), 0), 7);
    TimeNs t = 0;
    for (auto [name, ns] : kernels) {
      b.addKernel(s, t, t + ns, b.intern(name), {});
      t += ns + 10;
    }
    for (int i = 0; i < copies; ++i) {
      MemcpyDetail m;
      m.copyKind = CopyKind::HtoD;
      m.bytes = 1000;
      b.addMemcpy(s, t, t + copyNs, b.intern("copy"), m);
      t += copyNs + 10;
    }
    return b.build().value();
  };
  SessionPtr a = build({{"gemm", 100}, {"gemm", 300}, {"relu", 50}}, 1, 100);
  SessionPtr b = build({{"gemm", 100}, {"relu", 50}, {"relu", 60}, {"attn", 500}}, 2, 80);
  StatsTable k = compareKernels(*a, *b);
  ASSERT_EQ(k.rows.size(), 4u);                            // attn, gemm, relu, then all kernels
  EXPECT_EQ(std::get<std::string>(k.rows[0][0]), "attn");  // the largest change first
  EXPECT_TRUE(std::holds_alternative<std::monostate>(k.rows[0][1]));  // not in A
  EXPECT_DOUBLE_EQ(cell(k, 0, "delta_ns"), 500);
  size_t gemm = rowOf(k, "name", "gemm");
  EXPECT_DOUBLE_EQ(cell(k, gemm, "total_a_ns"), 400);
  EXPECT_DOUBLE_EQ(cell(k, gemm, "mean_a_ns"), 200);
  EXPECT_DOUBLE_EQ(cell(k, gemm, "delta_ns"), -300);
  EXPECT_DOUBLE_EQ(cell(k, gemm, "delta_pct"), -75);
  size_t all = rowOf(k, "name", "all kernels");
  EXPECT_DOUBLE_EQ(cell(k, all, "total_a_ns"), 450);
  EXPECT_DOUBLE_EQ(cell(k, all, "total_b_ns"), 710);
  StatsTable c = compareCopies(*a, *b);
  size_t htod = rowOf(c, "operation", "HtoD");
  EXPECT_DOUBLE_EQ(cell(c, htod, "count_b"), 2);
  EXPECT_DOUBLE_EQ(cell(c, htod, "bytes_b"), 2000);
  EXPECT_DOUBLE_EQ(cell(c, htod, "delta_ns"), 60);
  EXPECT_DOUBLE_EQ(cell(c, htod, "delta_pct"), 60);
}

}  // namespace ts

namespace ts {

// layer_sum: a kernel belongs to the NVTX layer range around the call that launched it; kernels
// launched elsewhere are "(no layer)". Two iterations of forward/fc (40 ns, 20 ns kernels) and
// one backward/fc (70 ns), and 10 + 5 ns launched outside layer ranges.
TEST(Stats, LayerSummaryByHand) {
  SessionPtr s = testing::makeLayerRun({{"forward/fc", 0, 100, 40},
                                        {"backward/fc", 200, 300, 70},
                                        {"forward/fc", 1000, 1100, 20},
                                        {"step", 2000, 2100, 10},      // not a layer range
                                        {"misc/fc", 3000, 3100, 5}});  // not a phase: ignored
  ASSERT_TRUE(s);
  auto tables = computeStats(*s, StatsReport::LayerSum, {});
  ASSERT_TRUE(tables.ok()) << tables.error();
  const StatsTable& t = tables->front();
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.text(0, 0), "fc (backward)");
  EXPECT_EQ(t.number(0, 2), 70);
  EXPECT_EQ(t.text(1, 0), "fc (forward)");
  EXPECT_EQ(t.number(1, 2), 60);  // total
  EXPECT_EQ(t.number(1, 3), 2);   // kernels
  EXPECT_EQ(t.number(1, 4), 30);  // average
  EXPECT_EQ(t.text(2, 0), "(no layer)");
  EXPECT_EQ(t.number(2, 2), 15);
  EXPECT_NEAR(t.number(0, 1), 100.0 * 70 / 145, 1e-9);
}

}  // namespace ts
