#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "io/column_codec.h"
#include "io/open_session.h"
#include "io/sqlite_db.h"
#include "io/tscope_file.h"
#include "session/session_builder.h"
#include "session/session_summary.h"
#include "session_fixture.h"
#include "synth/synthetic_session.h"

namespace ts {

namespace fs = std::filesystem;

class TscopeFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tscope-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Saves the fixture and returns the path.
  std::string savedFixture(const std::string& name = "fixture.tscope") {
    std::string p = path(name);
    Status st = saveSession(*testing::makeFixtureSession(true), p);
    EXPECT_TRUE(st.ok()) << st.error();
    return p;
  }

  // Loads a file that must fail, and checks the message names the file and the problem.
  void expectLoadError(const std::string& p, const std::string& problem) {
    auto r = loadSession(p);
    ASSERT_FALSE(r.ok()) << p << " loaded";
    EXPECT_NE(r.error().find(p), std::string::npos) << r.error();
    EXPECT_NE(r.error().find(problem), std::string::npos) << r.error();
  }

  void sql(const std::string& p, const std::string& statement) {
    auto db = SqliteDb::open(p, false);
    ASSERT_TRUE(db.ok()) << db.error();
    Status st = db->exec(statement);
    ASSERT_TRUE(st.ok()) << st.error();
  }

  fs::path dir_;
};

TEST_F(TscopeFile, RoundTripKeepsEveryField) {
  SessionPtr original = testing::makeFixtureSession(true);
  std::string p = path("rt.tscope");
  ASSERT_TRUE(saveSession(*original, p).ok());
  auto loaded = loadSession(p);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  std::string why;
  EXPECT_TRUE(testing::sameSession(*original, **loaded, &why)) << why;
  // Saving what was loaded gives the same session again.
  ASSERT_TRUE(saveSession(**loaded, path("rt2.tscope")).ok());
  auto again = loadSession(path("rt2.tscope"));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(testing::sameSession(*original, **again, &why)) << why;
}

// Per-rank .tscope files (a distributed capture writes one per rank) open together as one
// multi-rank session: every event, flow and counter of each, strings re-interned.
TEST_F(TscopeFile, SessionsOpenTogetherAsRanks) {
  SessionPtr one = testing::makeFixtureSession(false);
  ASSERT_TRUE(saveSession(*one, path("r0.tscope")).ok());
  ASSERT_TRUE(saveSession(*one, path("r1.tscope")).ok());
  auto both = openSessionFiles({path("r0.tscope"), path("r1.tscope")});
  ASSERT_TRUE(both.ok()) << both.error();
  const Session& s = **both;
  ASSERT_EQ(s.ranks.size(), 2u);
  EXPECT_EQ(s.eventCount(), 2 * one->eventCount());
  EXPECT_EQ(s.flows.srcTrack.size(), 2 * one->flows.srcTrack.size());
  EXPECT_EQ(s.counters.size(), 2 * one->counters.size());
  EXPECT_EQ(s.devices.size(), 2 * one->devices.size());
  SessionSummary a = summarize(*one), b = summarize(s);
  EXPECT_EQ(b.kernels, 2 * a.kernels);
  EXPECT_EQ(b.nvtxRanges, 2 * a.nvtxRanges);
  // Kernel names and their mangled forms survive the re-interning.
  std::set<std::string> names;
  for (const Track& t : s.tracks) {
    for (uint32_t e = 0; e < t.size() && t.kind == EventKind::Kernel; ++e) {
      names.insert(std::string(s.str(t.hot.name[e])) + "|" +
                   std::string(s.str(t.kernels.mangled[e])));
    }
  }
  std::set<std::string> expected;
  for (const Track& t : one->tracks) {
    for (uint32_t e = 0; e < t.size() && t.kind == EventKind::Kernel; ++e) {
      expected.insert(std::string(one->str(t.hot.name[e])) + "|" +
                      std::string(one->str(t.kernels.mangled[e])));
    }
  }
  EXPECT_EQ(names, expected);
  // An already multi-rank file cannot be one rank of another session.
  ASSERT_TRUE(saveSession(s, path("two.tscope")).ok());
  auto refused = openSessionFiles({path("two.tscope"), path("r0.tscope")});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("already holds 2 ranks"), std::string::npos) << refused.error();
}

TEST_F(TscopeFile, RoundTripOfAnEmptySession) {
  auto empty = SessionBuilder().build();
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(saveSession(**empty, path("empty.tscope")).ok());
  auto loaded = loadSession(path("empty.tscope"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ((*loaded)->eventCount(), 0u);
  EXPECT_EQ((*loaded)->ranks.size(), 1u);
}

TEST_F(TscopeFile, ColumnsSpanningSeveralChunks) {
  SessionBuilder b;
  uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  StringId name = b.intern("cudaLaunchKernel");
  const uint32_t n = 2'500'000;  // three chunks of 1 Mi events
  for (uint32_t i = 0; i < n; ++i)
    b.addApi(thread, 10 * TimeNs{i}, 10 * TimeNs{i} + 5, name, {i, 0, ApiDomain::Runtime});
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(saveSession(**s, path("big.tscope")).ok());
  auto loaded = loadSession(path("big.tscope"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const Track& t = (*loaded)->tracks[0];
  ASSERT_EQ(t.size(), n);
  EXPECT_EQ(t.hot.start[n - 1], 10 * TimeNs{n - 1});
  EXPECT_EQ(t.apis.correlation[1'234'567], 1'234'567u);
  auto db = SqliteDb::open(path("big.tscope"), true);
  auto q = db->prepare("SELECT max(chunk) FROM columns WHERE name = 'start'");
  ASSERT_TRUE(q->step());
  EXPECT_EQ(q->int64(0), 2);
}

// A live capture's periodic write saves a snapshot whose flows are in the order they were linked:
// the writer writes them sorted through an order, without a sorted copy. Over more flows than a
// file chunk holds, shuffled, what loads is the sorted session.
TEST_F(TscopeFile, UnsortedFlowsOfALiveSnapshotAreWrittenSorted) {
  SessionBuilder b;
  const uint32_t r = b.rank(0);
  const uint32_t stream = b.stream(b.device(r, 0), 7);
  const uint32_t thread = b.thread(b.process(r, 1), 1);
  const StringId call = b.intern("cudaLaunchKernel"), kernel = b.intern("k");
  const uint32_t n = 1'200'000;  // flows over two chunks of the file
  for (uint32_t i = 0; i < n; ++i) {
    const TimeNs at = 1000 * TimeNs{i};
    b.addFlow(b.addApi(thread, at, at + 50, call, {}),
              b.addKernel(stream, at + 300, at + 700, kernel, {}));
  }
  auto sorted = b.build();
  ASSERT_TRUE(sorted.ok()) << sorted.error();
  ASSERT_EQ((*sorted)->flows.srcTrack.size(), n);
  // The same flows, reversed in halves of odd and even (no order the writer could keep by chance).
  std::shared_ptr<Session> live = (*sorted)->share();
  FlowColumns shuffled;
  for (size_t i = n; i-- > 0;)
    if (i % 2) shuffled.push(live->flows.row(i));
  for (size_t i = 0; i < n; ++i)
    if (i % 2 == 0) shuffled.push(live->flows.row(i));
  live->flows = std::move(shuffled);
  live->setUnsortedFlows();
  ASSERT_TRUE(saveSession(*live, path("live.tscope")).ok());
  auto loaded = loadSession(path("live.tscope"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_TRUE((*loaded)->sortedFlows());
  std::string why;
  EXPECT_TRUE(testing::sameSession(**sorted, **loaded, &why)) << why;
}

TEST_F(TscopeFile, IsARealSqliteDatabaseWithReadableMetadata) {
  std::string p = savedFixture();
  EXPECT_TRUE(isSqliteFile(p));
  auto db = SqliteDb::open(p, true);
  ASSERT_TRUE(db.ok());
  auto q = db->prepare("SELECT value FROM tscope_meta WHERE key = 'schema_version'");
  ASSERT_TRUE(q->step());
  EXPECT_EQ(q->text(0), "1");
  auto names = db->prepare("SELECT name FROM devices ORDER BY id");
  ASSERT_TRUE(names->step());
  EXPECT_EQ(names->text(0), "NVIDIA A100-SXM4-40GB");
}

TEST_F(TscopeFile, MissingEmptyAndForeignFiles) {
  expectLoadError(path("nope.tscope"), "no such file");
  std::ofstream(path("empty.tscope")).close();
  expectLoadError(path("empty.tscope"), "empty");
  std::ofstream(path("text.tscope")) << "{\"traceEvents\": []}";
  expectLoadError(path("text.tscope"), "not an SQLite database");
  expectLoadError(dir_.string(), "directory");
}

TEST_F(TscopeFile, SqliteFilesThatAreNotSessions) {
  std::string other = path("other.sqlite");
  sql(other, "CREATE TABLE foo(x); INSERT INTO foo VALUES (1);");
  expectLoadError(other, "not a Tensorscope session");
  std::string nsys = path("report.sqlite");
  sql(nsys, "CREATE TABLE TARGET_INFO_GPU(id INTEGER); CREATE TABLE StringIds(id, value);");
  expectLoadError(nsys, "Nsight Systems export");
  std::string wrongFormat = savedFixture("wrong.tscope");
  sql(wrongFormat, "UPDATE tscope_meta SET value = 'something-else' WHERE key = 'format'");
  expectLoadError(wrongFormat, "not a Tensorscope session");
}

TEST_F(TscopeFile, NewerSchemaIsRefusedWithAClearMessage) {
  std::string p = savedFixture();
  sql(p, "UPDATE tscope_meta SET value = '99' WHERE key = 'schema_version'");
  expectLoadError(p, "newer Tensorscope (schema version 99");
}

// A disk that fills during a save (here: a file-size limit, the same EFBIG a full quota gives):
// the save fails naming the file, the previous session stays whole, no temporary file is left.
TEST_F(TscopeFile, ASaveThatRunsOutOfSpaceLeavesThePreviousFile) {
  const std::string p = savedFixture("kept.tscope");
  const auto before = fs::file_size(p);
  auto big = generateSyntheticSession({200'000, 2, 4, 7});
  ASSERT_TRUE(big.ok()) << big.error();
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto oldHandler = ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG
  rlimit small = old;
  small.rlim_cur = 256 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Status st = saveSession(**big, p);
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, oldHandler);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().rfind(p + ": ", 0), 0u) << st.error();
  EXPECT_EQ(fs::file_size(p), before);
  auto reopened = loadSession(p);
  ASSERT_TRUE(reopened.ok()) << reopened.error();
  EXPECT_EQ((*reopened)->eventCount(), testing::makeFixtureSession(true)->eventCount());
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1u) << "a temporary file was left beside the session";
}

TEST_F(TscopeFile, TruncatedFilesAreDetected) {
  SyntheticSpec spec;
  spec.events = 200'000;
  auto s = generateSyntheticSession(spec);
  ASSERT_TRUE(s.ok());
  std::string p = path("cut.tscope");
  ASSERT_TRUE(saveSession(**s, p).ok());
  auto size = fs::file_size(p);
  for (double fraction : {0.9, 0.5, 0.1, 0.001}) {
    std::string cut = path("cut-" + std::to_string(fraction) + ".tscope");
    fs::copy_file(p, cut);
    fs::resize_file(cut, static_cast<uintmax_t>(static_cast<double>(size) * fraction));
    expectLoadError(cut, "truncated");
  }
}

TEST_F(TscopeFile, CorruptOrMissingChunksAreErrorsNotCrashes) {
  std::string p = savedFixture("garbage.tscope");
  sql(p, "UPDATE columns SET data = x'00112233445566778899' WHERE name = 'start' AND owner = 0");
  expectLoadError(p, "column 'start'");

  p = savedFixture("missing.tscope");
  sql(p, "DELETE FROM columns WHERE name = 'end' AND owner = 1");
  expectLoadError(p, "column 'end'");

  p = savedFixture("type.tscope");
  sql(p, "UPDATE columns SET type = 'f64' WHERE name = 'name' AND owner = 0");
  expectLoadError(p, "has type f64");

  p = savedFixture("count.tscope");
  sql(p, "UPDATE tracks SET event_count = event_count + 1 WHERE id = 0");
  expectLoadError(p, "claims");

  // A count no file of this size could hold is refused before anything is reserved (it was a
  // std::bad_alloc: 4 billion events × 22 bytes).
  p = savedFixture("huge.tscope");
  sql(p, "UPDATE tracks SET event_count = 4000000000 WHERE id = 0");
  expectLoadError(p, "track 0 claims 4000000000 values but the file holds");
  p = savedFixture("huge-counter.tscope");
  sql(p, "UPDATE counters SET sample_count = 3000000000 WHERE id = 0");
  expectLoadError(p, "counter 0 claims 3000000000 values");
  // The claim backed by chunks, but by no bytes: 150 empty chunks of 2^20 values each.
  p = savedFixture("empty-chunks.tscope");
  sql(p,
      "DELETE FROM columns WHERE owner_kind = 0 AND owner = 0 AND name = 'start';"
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 149) "
      "INSERT INTO columns SELECT 0, 0, 'start', 'i64', i, 1048576, 'zstd', x'' FROM n;"
      "UPDATE tracks SET event_count = 157286400 WHERE id = 0");
  expectLoadError(p, "claims 157286400 values from 0 compressed bytes");
  p = savedFixture("huge-flows.tscope");
  sql(p, "UPDATE tscope_meta SET value = '5000000000' WHERE key = 'flow_count'");
  expectLoadError(p, "flows claims 5000000000 values");

  p = savedFixture("owner.tscope");
  sql(p, "UPDATE tracks SET device = 77 WHERE id = 0");
  expectLoadError(p, "unknown device");

  p = savedFixture("tables.tscope");
  sql(p, "DROP TABLE streams");
  expectLoadError(p, "streams");
}

TEST_F(TscopeFile, InvalidValuesInsideChunksAreRejected) {
  // Re-encode a copy_kind column with a value outside the enum, and a start column out of order.
  std::string p = savedFixture("enum.tscope");
  {
    auto db = SqliteDb::open(p, false);
    auto q = db->prepare("SELECT owner, count FROM columns WHERE name = 'copy_kind' LIMIT 1");
    ASSERT_TRUE(q->step());
    int64_t owner = q->int64(0), count = q->int64(1);
    std::vector<uint8_t> bad(static_cast<size_t>(count), 99), blob;
    std::string_view enc = encodeColumn(std::span<const uint8_t>(bad), blob);
    auto u = db->prepare(
        "UPDATE columns SET data = ?1, encoding = ?2 WHERE name = 'copy_kind' AND owner = ?3");
    u->bindBlob(1, blob);
    u->bind(2, enc);
    u->bind(3, owner);
    u->step();
    ASSERT_TRUE(u->status().ok());
  }
  expectLoadError(p, "invalid values");

  p = savedFixture("order.tscope");
  {
    auto db = SqliteDb::open(p, false);
    auto q =
        db->prepare("SELECT owner, count FROM columns WHERE name = 'start' AND count >= 2 LIMIT 1");
    ASSERT_TRUE(q->step());
    int64_t owner = q->int64(0), count = q->int64(1);
    std::vector<int64_t> starts(static_cast<size_t>(count));
    for (size_t i = 0; i < starts.size(); ++i) starts[i] = 1000 - static_cast<int64_t>(i);
    std::vector<uint8_t> blob;
    std::string_view enc = encodeColumn(std::span<const int64_t>(starts), blob);
    auto u = db->prepare(
        "UPDATE columns SET data = ?1, encoding = ?2 WHERE name = 'start' AND owner = ?3");
    u->bindBlob(1, blob);
    u->bind(2, enc);
    u->bind(3, owner);
    u->step();
    ASSERT_TRUE(u->status().ok());
  }
  expectLoadError(p, "not sorted");
}

TEST_F(TscopeFile, SaveIntoAMissingDirectoryFailsCleanly) {
  Status st = saveSession(*testing::makeFixtureSession(), path("no/such/dir/x.tscope"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("does not exist"), std::string::npos) << st.error();
}

// A save killed midway leaves the previous file intact and loadable.
TEST_F(TscopeFile, KilledSaveLeavesThePreviousFileIntact) {
  std::string p = savedFixture("target.tscope");
  auto before = fs::file_size(p);
  SyntheticSpec spec;
  spec.events = 3'000'000;
  auto big = generateSyntheticSession(spec);  // generated before the fork: the child only saves
  ASSERT_TRUE(big.ok());

  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Status st = saveSession(**big, p);
    ::_exit(st.ok() ? 0 : 3);
  }
  // Wait until the child's temporary file exists and holds data, then kill it mid-write.
  fs::path temp = dir_ / (".target.tscope.tmp-" + std::to_string(child));
  bool sawTemp = false;
  for (int i = 0; i < 20000 && !sawTemp; ++i) {
    std::error_code ec;
    sawTemp = fs::exists(temp, ec) && fs::file_size(temp, ec) > 64 * 1024;
    if (!sawTemp) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(sawTemp) << "the save finished before it could be interrupted";
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child was not killed midway";

  EXPECT_EQ(fs::file_size(p), before);
  auto loaded = loadSession(p);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  std::string why;
  EXPECT_TRUE(testing::sameSession(*testing::makeFixtureSession(true), **loaded, &why)) << why;

  // A later save succeeds and replaces the file.
  ASSERT_TRUE(saveSession(*testing::makeFixtureSession(false), p).ok());
  auto replaced = loadSession(p);
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ((*replaced)->ranks.size(), 1u);
}

TEST_F(TscopeFile, BundledSampleLoads) {
  auto s = loadSession(TSCOPE_SAMPLE);
  ASSERT_TRUE(s.ok()) << s.error();
  // samples/sample.tscope is the A100 AlexNet trace of HolisticTraceAnalysis, imported.
  EXPECT_EQ((*s)->eventCount(), 867u);  // the profiler's 3 bookkeeping events left out
  ASSERT_FALSE((*s)->devices.empty());
  EXPECT_EQ((*s)->devices[0].name, "NVIDIA A100-PG509-200");
}

TEST(OpenSession, TellsCancelledAndMissingApartByCode) {
  std::atomic<bool> cancel{true};
  Progress progress;
  progress.cancel = &cancel;
  auto cancelled = openSessionFiles({TSCOPE_SAMPLE}, {}, progress);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_TRUE(cancelled.cancelled()) << cancelled.error();
  auto missing = openSessionFiles({"/nonexistent/run.tscope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.failure().code, ErrorCode::NotFound) << missing.error();
  EXPECT_NE(missing.error().find("/nonexistent/run.tscope"), std::string::npos);
}

}  // namespace ts
