// Chrome JSON and CSV export: what Tensorscope writes, it (and other tools) read back the same.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "io/csv_writer.h"
#include "io/open_session.h"
#include "session/session_summary.h"
#include "synth/synthetic_session.h"

namespace ts {

namespace fs = std::filesystem;

namespace {

// Every event as (kind, start, end, name), sorted: what a re-import must reproduce exactly.
using EventKey = std::tuple<int, TimeNs, TimeNs, std::string>;
std::vector<EventKey> events(const Session& s) {
  std::vector<EventKey> out;
  for (const Track& t : s.tracks) {
    for (uint32_t i = 0; i < t.size(); ++i) {
      out.emplace_back(static_cast<int>(t.kind), t.hot.start[i], t.hot.end[i],
                       std::string(s.str(t.hot.name[i])));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Export : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tscope-export-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) { return (dir_ / name).string(); }

  // Exports `s` as Chrome JSON (optionally gzipped), re-imports it, and checks counts, times and
  // names are unchanged.
  void roundTrip(const Session& s, const std::string& name) {
    std::string out = path(name);
    Status st = writeSessionFile(s, out);
    ASSERT_TRUE(st.ok()) << st.error();
    auto back = openSessionFile(out);
    ASSERT_TRUE(back.ok()) << back.error();
    SessionSummary a = summarize(s), b = summarize(**back);
    EXPECT_EQ(a.kernels, b.kernels);
    EXPECT_EQ(a.memcpyCount, b.memcpyCount);
    EXPECT_EQ(a.memcpyBytes, b.memcpyBytes);
    EXPECT_EQ(a.memsets, b.memsets);
    EXPECT_EQ(a.apiCalls, b.apiCalls);
    EXPECT_EQ(a.nvtxRanges, b.nvtxRanges);
    EXPECT_EQ(a.nvtxMarks, b.nvtxMarks);
    EXPECT_EQ(a.otherRanges, b.otherRanges);
    EXPECT_EQ(a.flows, b.flows);
    EXPECT_EQ(a.counterSamples, b.counterSamples);
    EXPECT_TRUE(events(s) == events(**back)) << "times or names changed";
    // Kernel details survive too, with what the profiler reported (per-SM figures, external id,
    // occupancy).
    using KernelKey =
        std::tuple<TimeNs, uint32_t, uint32_t, uint16_t, uint8_t, uint32_t, uint32_t, uint32_t>;
    std::vector<KernelKey> ka, kb;
    std::vector<std::pair<TimeNs, uint16_t>> occupancyA, occupancyB;
    for (const Session* x : {&s, back->get()}) {
      auto& k = x == &s ? ka : kb;
      auto& occupancy = x == &s ? occupancyA : occupancyB;
      for (const Track& t : x->tracks) {
        if (t.kind != EventKind::Kernel) continue;
        for (uint32_t i = 0; i < t.size(); ++i) {
          const uint8_t stats = t.kernels.launchOf(i).reportedStats;
          k.emplace_back(t.hot.start[i], t.kernels.launchOf(i).gridX, t.kernels.launchOf(i).blockX,
                         t.kernels.launchOf(i).registersPerThread, stats & ~kReportedOccupancy,
                         t.kernels.launchOf(i).blocksPerSmX1000,
                         t.kernels.launchOf(i).warpsPerSmX1000, t.kernels.externalId[i]);
          if (stats & kReportedOccupancy)
            occupancy.emplace_back(t.hot.start[i], t.kernels.launchOf(i).estOccupancyX100);
        }
      }
      std::sort(k.begin(), k.end());
      std::sort(occupancy.begin(), occupancy.end());
    }
    EXPECT_TRUE(ka == kb);
    // A kernel without the profiler's occupancy is written with Tensorscope's estimate (for the
    // tools that read that key), so the file has more of them; the reported ones stay as they were.
    EXPECT_TRUE(
        std::includes(occupancyB.begin(), occupancyB.end(), occupancyA.begin(), occupancyA.end()));
  }

  fs::path dir_;
};

}  // namespace

TEST_F(Export, ChromeJsonRoundTripOfARealTrace) {
  auto s = openSessionFile(
      std::string(TSCOPE_SHARED_DATA) +
      "/kineto/hta-critical_path--alexnet--benchmark_result_2869224_1695835535_trace.json.gz");
  ASSERT_TRUE(s.ok()) << s.error();
  // Every kernel of this trace carries the profiler's figures: the first one's, as the file says.
  size_t reported = 0, kernels = 0;
  for (const Track& t : (*s)->tracks) {
    if (t.kind != EventKind::Kernel) continue;
    for (uint32_t i = 0; i < t.size(); ++i, ++kernels)
      reported +=
          t.kernels.launchOf(i).reportedStats ==
          (kReportedOccupancy | kReportedBlocksPerSm | kReportedWarpsPerSm | kReportedExternalId);
  }
  EXPECT_EQ(reported, kernels);
  EXPECT_EQ(kernels, 79u);
  const Track* first = nullptr;  // the first kernel: external id 218, 8 blocks and 64 warps per
                                 // SM, 63 % est. achieved occupancy in the file
  for (const Track& t : (*s)->tracks) {
    if (t.kind == EventKind::Kernel && t.size() && (!first || t.hot.start[0] < first->hot.start[0]))
      first = &t;
  }
  ASSERT_NE(first, nullptr);
  KernelDetail k = first->kernels.row(0);
  EXPECT_EQ(k.externalId, 218u);
  EXPECT_EQ(k.blocksPerSmX1000, 8000u);
  EXPECT_EQ(k.warpsPerSmX1000, 64000u);
  EXPECT_EQ(k.estOccupancyX100, 6300u);
  roundTrip(**s, "alexnet.json");
  roundTrip(**s, "alexnet.tscope");
  roundTrip(**s, "alexnet.json.gz");
  auto triton = openSessionFile(std::string(TSCOPE_SHARED_DATA) +
                                "/kineto/hta-triton_example--triton_example.json.gz");
  ASSERT_TRUE(triton.ok());
  roundTrip(**triton, "triton.json");  // sub-microsecond times, driver API
}

TEST_F(Export, ChromeJsonRoundTripOfASyntheticSessionToTheNanosecond) {
  auto s = generateSyntheticSession({30'001, 3, 2, 4});  // PtoP copies, marks, counters, flows
  ASSERT_TRUE(s.ok());
  roundTrip(**s, "synthetic.json");
}

TEST_F(Export, ChromeJsonIsValidTraceEventFormat) {
  auto s = generateSyntheticSession({2'000, 2, 2, 1});
  ASSERT_TRUE(s.ok());
  std::string out = path("check.json");
  ASSERT_TRUE(writeSessionFile(**s, out).ok());
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(out);
  size_t x = 0, meta = 0, flowsStart = 0, flowsEnd = 0;
  for (simdjson::dom::element ev : doc["traceEvents"].get_array()) {
    std::string_view ph = ev["ph"];
    x += ph == "X";
    meta += ph == "M";
    flowsStart += ph == "s";
    flowsEnd += ph == "f";
    if (ph == "X") {
      double dur = ev["dur"];
      EXPECT_GE(dur, 0);
      EXPECT_TRUE(ev["pid"].is_int64() || ev["pid"].is_string());
    }
  }
  EXPECT_EQ(x + 0, (*s)->eventCount() - summarize(**s).nvtxMarks);
  EXPECT_GT(meta, 0u);
  EXPECT_EQ(flowsStart, summarize(**s).flows);
  EXPECT_EQ(flowsEnd, flowsStart);
  EXPECT_EQ(doc["deviceProperties"].get_array().size(), 2u);
}

TEST_F(Export, CsvTablesFollowRfc4180) {
  auto s = openSessionFile(
      std::string(TSCOPE_SHARED_DATA) +
      "/kineto/hta-critical_path--alexnet--benchmark_result_2869224_1695835535_trace.json.gz");
  ASSERT_TRUE(s.ok());
  std::string out = path("kernels.csv");
  ASSERT_TRUE(writeSessionFile(**s, out, {CsvTable::Kernels}).ok());
  std::ifstream in(out, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  // Records end with CRLF; names with commas are quoted; no field has a bare quote.
  size_t records = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') quoted = !quoted;
    if (!quoted && text[i] == '\n') {
      ASSERT_GT(i, 0u);
      EXPECT_EQ(text[i - 1], '\r');
      ++records;
    }
  }
  EXPECT_FALSE(quoted);
  EXPECT_EQ(records, 1u + 79u);  // header and one row per kernel
  EXPECT_EQ(text.substr(0, 25), "rank,start_ns,end_ns,dura");
  EXPECT_NE(text.find("\"void at::native::(anonymous "
                      "namespace)::distribution_elementwise_grid_stride_kernel<float, 4,"),
            std::string::npos);
  EXPECT_NE(text.find(",864,1,1,256,1,1,47,0,0,0,0.625,"),
            std::string::npos);  // grid, block, registers, occupancy

  for (CsvTable t : {CsvTable::Memcpy, CsvTable::Memset, CsvTable::Api, CsvTable::Nvtx}) {
    std::string p = path(std::string(toString(t)) + ".csv");
    ASSERT_TRUE(writeSessionFile(**s, p, {t}).ok());
    std::ifstream f(p);
    std::string header;
    std::getline(f, header);
    EXPECT_EQ(header.substr(0, 14), "rank,start_ns,");
  }
  EXPECT_FALSE(writeSessionFile(**s, path("x.parquet")).ok());
}

}  // namespace ts
