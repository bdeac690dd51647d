// What an imported Nsight export looks like on the timeline and in the tables: unified memory on
// its own row and in rows of its own in the memory tables, the threads' state and OS runtime
// calls on rows of their own (tests/data/nsys_fixture.sql).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/stats_reports.h"
#include "io/open_session.h"
#include "io/sqlite_db.h"
#include "timeline/timeline_rows.h"

namespace ts {

namespace {

namespace fs = std::filesystem;

SessionPtr openFixture() {
  const fs::path p =
      fs::temp_directory_path() / ("tscope-rows-" + std::to_string(::getpid()) + ".sqlite");
  fs::remove(p);
  std::ifstream in(TSCOPE_TEST_DATA "/nsys_fixture.sql");
  std::stringstream sql;
  sql << in.rdbuf();
  {
    auto db = SqliteDb::open(p.string(), false);
    EXPECT_TRUE(db.ok());
    Status st = db->exec(sql.str());
    EXPECT_TRUE(st.ok()) << st.error();
  }
  auto s = openSessionFile(p.string());
  fs::remove(p);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
  return s.ok() ? *s : nullptr;
}

}  // namespace

TEST(ImportRows, UnifiedMemoryHasItsOwnRow) {
  SessionPtr s = openFixture();
  ASSERT_TRUE(s);
  TimelineRows rows(s);
  std::map<std::string, size_t> events;
  for (const TimelineRow& r : rows.rows()) {
    events[r.label] += r.events;
    EXPECT_EQ(r.label.find("Stream 4294967294"), std::string::npos);  // not a stream row
  }
  EXPECT_EQ(events["Unified memory"], 1u);
  EXPECT_EQ(events["Memcpy HtoD"], 1u);  // the program's copy only
  EXPECT_EQ(events["Stream 7"], 4u);     // two kernels and two copies: not the migration
  EXPECT_EQ(events[std::string(kGpuPageFaultCounter) + " (faults)"], 2u);
}

TEST(ImportRows, UnifiedMemoryApartInTables) {
  SessionPtr s = openFixture();
  ASSERT_TRUE(s);
  auto mem = computeStats(*s, StatsReport::MemSize, {});
  ASSERT_TRUE(mem.ok()) << mem.error();
  std::set<std::string> operations;
  for (const auto& row : mem->front().rows) operations.insert(std::get<std::string>(row.back()));
  EXPECT_EQ(operations,
            (std::set<std::string>{"HtoD", "DtoH", "PtoP", "Memset", "Unified memory HtoD"}));
  auto overlap = computeStats(*s, StatsReport::Overlap, {});
  ASSERT_TRUE(overlap.ok()) << overlap.error();
  std::map<std::string, int64_t> counts;
  for (const auto& row : overlap->front().rows)
    counts[std::get<std::string>(row[1])] = std::get<int64_t>(row[2]);
  EXPECT_EQ(counts["all"], 3);  // the program's copies
  EXPECT_EQ(counts["Unified memory HtoD"], 1);
}

// PyTorch's Python stack (with_stack=True, category python_function) is a row of its own, nested
// as it was; other ranges of the thread keep theirs.
TEST(ImportRows, PythonStackRow) {
  const fs::path p =
      fs::temp_directory_path() / ("tscope-py-" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "train.py(10): main", "pid": 1, "tid": 1,
     "ts": 0, "dur": 100},
    {"ph": "X", "cat": "python_function", "name": "nn/module.py(1): forward", "pid": 1, "tid": 1,
     "ts": 10, "dur": 50},
    {"ph": "X", "cat": "app", "name": "other", "pid": 1, "tid": 1, "ts": 200, "dur": 10}
  ]})";
  auto s = openSessionFile(p.string());
  fs::remove(p);
  ASSERT_TRUE(s.ok()) << s.error();
  TimelineRows rows(*s);
  std::map<std::string, size_t> lanes, events;
  for (const TimelineRow& r : rows.rows()) {
    if (r.kind != TimelineRow::Kind::Range) continue;
    lanes[r.label] = r.lanes.size();
    events[r.label] = r.events;
  }
  EXPECT_EQ(events["Python stack"], 2u);
  EXPECT_EQ(lanes["Python stack"], 2u);  // main, and forward nested in it
  EXPECT_EQ(events["Ranges"], 1u);
}

TEST(ImportRows, ThreadStateAndOsRuntimeRows) {
  SessionPtr s = openFixture();
  ASSERT_TRUE(s);
  TimelineRows rows(s);
  std::vector<std::pair<std::string, size_t>> threadRows;
  for (const TimelineRow& r : rows.rows()) {
    if (r.kind == TimelineRow::Kind::Range) threadRows.emplace_back(r.label, r.events);
  }
  // Per thread (4242, then 4250): its state, then its OS runtime calls.
  EXPECT_EQ(threadRows, (std::vector<std::pair<std::string, size_t>>{{"Thread state", 2},
                                                                     {"OS runtime libraries", 1},
                                                                     {"Thread state", 2},
                                                                     {"OS runtime libraries", 1}}));
}

}  // namespace ts
