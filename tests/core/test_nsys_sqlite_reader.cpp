// Nsight Systems SQLite import, on a fixture written from the documented export schema
// (tests/data/nsys_fixture.sql) and variants of it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "io/open_session.h"
#include "io/sqlite_db.h"
#include "io/tscope_file.h"
#include "session/session_summary.h"
#include "session_fixture.h"

namespace ts {

namespace fs = std::filesystem;

class NsysImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tscope-nsys-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ifstream in(TSCOPE_TEST_DATA "/nsys_fixture.sql");
    std::stringstream text;
    text << in.rdbuf();
    fixtureSql_ = text.str();
    ASSERT_FALSE(fixtureSql_.empty());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The fixture as a database, with `edit` SQL applied after it.
  std::string fixture(const std::string& name, const std::string& edit = {}) {
    std::string p = (dir_ / name).string();
    auto db = SqliteDb::open(p, false);
    EXPECT_TRUE(db.ok());
    Status st = db->exec(fixtureSql_ + edit);
    EXPECT_TRUE(st.ok()) << st.error();
    return p;
  }

  const Track* track(const Session& s, EventKind kind, int64_t tid = -1) {
    for (const Track& t : s.tracks) {
      if (t.kind == kind && (tid < 0 || (t.thread != kNone && s.threads[t.thread].tid == tid)))
        return &t;
    }
    return nullptr;
  }

  fs::path dir_;
  std::string fixtureSql_;
};

TEST_F(NsysImport, EveryKindOfEvent) {
  auto s = openSessionFile(fixture("report.sqlite"));
  ASSERT_TRUE(s.ok()) << s.error();
  SessionSummary r = summarize(**s);
  EXPECT_EQ(r.kernels, 3u);
  EXPECT_EQ(r.memcpyCount[static_cast<size_t>(CopyKind::HtoD)], 1u);
  EXPECT_EQ(r.migrationCount[static_cast<size_t>(CopyKind::HtoD)], 1u);  // counted apart
  EXPECT_EQ(r.migrationBytes[static_cast<size_t>(CopyKind::HtoD)], 65536u);
  EXPECT_EQ(r.gpuPageFaults, 16u);
  EXPECT_EQ(r.cpuPageFaults, 1u);
  EXPECT_EQ(r.memcpyCount[static_cast<size_t>(CopyKind::DtoH)], 1u);
  EXPECT_EQ(r.memcpyCount[static_cast<size_t>(CopyKind::PtoP)], 1u);
  EXPECT_EQ(r.memcpyBytes[static_cast<size_t>(CopyKind::PtoP)], 2097152u);
  EXPECT_EQ(r.memsets, 1u);
  EXPECT_EQ(r.apiCalls, 8u);
  EXPECT_EQ(r.nvtxRanges, 3u);
  EXPECT_EQ(r.nvtxMarks, 1u);
  EXPECT_EQ(r.flows, 7u);  // every correlated copy, kernel and memset; the UVM migration has none
}

TEST_F(NsysImport, DevicesNamesAndDetails) {
  auto loaded = openSessionFile(fixture("report.sqlite"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const Session& s = **loaded;
  // CUDA ordinal 0 of pid 4242 is GPU id 1 (TARGET_INFO_CUDA_DEVICE).
  ASSERT_GE(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].ordinal, 0);
  EXPECT_EQ(s.devices[0].uuid, "GPU-bbbb");
  EXPECT_EQ(s.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(s.devices[0].smCount, 132);
  EXPECT_EQ(s.devices[0].clockKHz, 1980000);
  EXPECT_EQ(s.devices[0].computeMajor, 9);

  const Track* kernels = track(s, EventKind::Kernel);
  ASSERT_TRUE(kernels);
  EXPECT_EQ(s.str(kernels->hot.name[0]), "sgemm_128x64_nn");
  EXPECT_EQ(s.str(kernels->kernels.mangled[0]), "_Z15sgemm_128x64_nnPfS_S_");
  EXPECT_EQ(kernels->kernels.launchOf(0).gridX, 132u);
  EXPECT_EQ(kernels->kernels.launchOf(0).gridY, 2u);
  EXPECT_EQ(kernels->kernels.launchOf(0).staticSharedMemory, 16384u);
  EXPECT_EQ(kernels->kernels.launchOf(0).dynamicSharedMemory, 32768u);
  EXPECT_EQ(kernels->hot.start[0], 2000000);
  EXPECT_EQ(kernels->hot.end[0], 2150000);

  const Track* api = track(s, EventKind::Api, 4242);
  ASSERT_TRUE(api);
  std::set<std::string> names;
  for (uint32_t i = 0; i < api->size(); ++i) names.insert(std::string(s.str(api->hot.name[i])));
  EXPECT_EQ(names, (std::set<std::string>{"cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync",
                                          "cudaStreamSynchronize"}));
  EXPECT_EQ(api->apis.returnCode[api->size() - 1], 700);
  EXPECT_EQ(s.threadLabel(api->thread), "Thread 4242: python3");
  EXPECT_EQ(s.processes[s.threads[api->thread].process].name, "python3");
  const Track* loader = track(s, EventKind::Api, 4250);
  ASSERT_TRUE(loader);
  EXPECT_EQ(s.threads[loader->thread].name, "data loader");

  const Track* nvtx = track(s, EventKind::Nvtx, 4242);
  ASSERT_TRUE(nvtx);
  ASSERT_EQ(nvtx->size(), 3u);  // step 0, forward (nested), checkpoint (mark)
  EXPECT_EQ(s.str(nvtx->hot.name[0]), "step 0");
  EXPECT_EQ(s.str(nvtx->nvtx.domain[0]), "NVTX");
  EXPECT_EQ(nvtx->nvtx.color[0], 4283215696u);
  EXPECT_EQ(s.str(nvtx->hot.name[1]), "forward");
  EXPECT_EQ(s.str(nvtx->nvtx.domain[1]), "training");
  EXPECT_EQ(nvtx->hot.lane[1], 1);
  EXPECT_EQ(nvtx->nvtx.isMark[2], 1);

  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Memcpy) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t.memcpys.copyKind[i] == CopyKind::PtoP) {
        EXPECT_EQ(t.memcpys.srcDevice[i], 0);
        EXPECT_EQ(t.memcpys.dstDevice[i], 1);
        EXPECT_EQ(s.str(t.hot.name[i]), "Memcpy PtoP (Device -> Device)");
      }
      if (t.memcpys.srcKind[i] == MemoryKind::Managed) {
        EXPECT_EQ(s.str(t.hot.name[i]), "Unified memory HtoD");
      }
    }
  }
}

// Unified-memory migrations are the driver's, on no stream of the program's: their own stream
// per GPU, with direction, bytes, cause and address, counted apart from the copies; the page
// faults are counters of the GPU and of the process. (Their rows and tables: test_import_rows.)
TEST_F(NsysImport, UnifiedMemoryApartFromCopies) {
  auto loaded = openSessionFile(fixture("report.sqlite"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const Session& s = **loaded;
  size_t migrations = 0;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Memcpy) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      const bool onItsRow = s.streams[t.stream].streamId == kUnifiedMemoryStream;
      EXPECT_EQ(onItsRow, t.memcpys.migration[i] != 0);
      if (!t.memcpys.migration[i]) continue;
      ++migrations;
      EXPECT_EQ(s.streamLabel(t.stream), "Unified memory");
      EXPECT_EQ(t.memcpys.copyKind[i], CopyKind::HtoD);
      EXPECT_EQ(t.memcpys.migrationCause[i], MigrationCause::User);
      EXPECT_EQ(t.memcpys.address[i], 140000000000u);
      EXPECT_EQ(t.memcpys.bytes[i], 65536u);
    }
  }
  EXPECT_EQ(migrations, 1u);

  const CounterTrack* gpuFaults = nullptr;
  for (const CounterTrack& c : s.counters)
    if (c.name == kGpuPageFaultCounter) gpuFaults = &c;
  ASSERT_TRUE(gpuFaults);
  // Running totals in time order, whatever the table's row order.
  EXPECT_EQ(gpuFaults->samples.value, (std::vector<double>{12, 16}));
  EXPECT_EQ(gpuFaults->samples.change, (std::vector<int64_t>{12, 4}));
  EXPECT_EQ(gpuFaults->samples.address[1], 140000065536u);
}

// OS runtime calls and the threads' time on CPUs are ranges of their threads, in categories the
// timeline gives rows of their own.
TEST_F(NsysImport, OsRuntimeAndScheduling) {
  auto loaded = openSessionFile(fixture("report.sqlite"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const Session& s = **loaded;
  std::map<int64_t, std::vector<std::tuple<std::string, std::string, TimeNs, TimeNs>>> byTid;
  for (const Track& t : s.tracks) {
    if (t.kind != EventKind::Range) continue;
    for (uint32_t i = 0; i < t.size(); ++i)
      byTid[s.threads[t.thread].tid].emplace_back(std::string(s.str(t.ranges.category[i])),
                                                  std::string(s.str(t.hot.name[i])), t.hot.start[i],
                                                  t.hot.end[i]);
  }
  using R = std::tuple<std::string, std::string, TimeNs, TimeNs>;
  EXPECT_EQ(byTid[4242],
            (std::vector<R>{{kThreadStateCategory, "Running on CPU 2", 700000, 800000},
                            {kThreadStateCategory, "Running on CPU 3", 900000, 3400000},
                            {kOsRuntimeCategory, "pthread_mutex_lock", 1200000, 1250000}}));
  EXPECT_EQ(byTid[4250],
            (std::vector<R>{{kThreadStateCategory, "Running on CPU 5", 700000, 1100000},
                            {kOsRuntimeCategory, "poll", 1300000, 1800000},
                            {kThreadStateCategory, "Running on CPU 5", 1500000, 3500000}}));
  // Read, so not among what was left out.
  EXPECT_FALSE(s.provenance.skipped.count("OSRT_API rows"));
  EXPECT_FALSE(s.provenance.skipped.count("SCHED_EVENTS rows"));
  // The second out in a row: when the thread ran before it is unknown, and said so.
  EXPECT_EQ(s.provenance.skipped.at("SCHED_EVENTS switches out without their switch in"), 1u);
}

// Whatever the reader does not read is counted by table, never dropped silently.
TEST_F(NsysImport, UnreadTablesAreCounted) {
  auto loaded = openSessionFile(fixture("report.sqlite"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const auto& skipped = (*loaded)->provenance.skipped;
  ASSERT_TRUE(skipped.count("PROFILER_OVERHEAD rows")) << skipped.size();
  EXPECT_EQ(skipped.at("PROFILER_OVERHEAD rows"), 2u);
}

TEST_F(NsysImport, RoundTripThroughTscope) {
  auto s = openSessionFile(fixture("rt.sqlite"));
  ASSERT_TRUE(s.ok()) << s.error();
  std::string out = (dir_ / "rt.tscope").string();
  ASSERT_TRUE(saveSession(**s, out).ok());
  auto back = loadSession(out);
  ASSERT_TRUE(back.ok()) << back.error();
  std::string why;
  EXPECT_TRUE(testing::sameSession(**s, **back, &why)) << why;  // migrations, faults, left out
  EXPECT_FALSE((*back)->provenance.skipped.empty());
  // Through Chrome JSON too: a migration stays a migration, on its own stream.
  const std::string json = (dir_ / "rt.json").string();
  ASSERT_TRUE(writeSessionFile(**s, json).ok());
  auto viaJson = openSessionFile(json);
  ASSERT_TRUE(viaJson.ok()) << viaJson.error();
  EXPECT_EQ(summarize(**viaJson).migrationCount, summarize(**s).migrationCount);
  for (const Track& t : (*viaJson)->tracks) {
    if (t.kind != EventKind::Memcpy) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      EXPECT_EQ(t.memcpys.migration[i] != 0,
                (*viaJson)->streams[t.stream].streamId == kUnifiedMemoryStream);
      if (t.memcpys.migration[i]) {
        EXPECT_EQ(t.memcpys.migrationCause[i], MigrationCause::User);
        EXPECT_EQ(t.memcpys.address[i], 140000000000u);
      }
    }
  }
}

TEST_F(NsysImport, LenientAboutWhatIsOptional) {
  // Older metadata table name, no NVTX, no CUDA device map (ordinal taken as the GPU id), no names.
  auto s = openSessionFile(
      fixture("old.sqlite",
              "ALTER TABLE META_DATA_EXPORT RENAME TO EXPORT_META_DATA; DROP TABLE NVTX_EVENTS;"
              "DROP TABLE TARGET_INFO_CUDA_DEVICE; DROP TABLE ThreadNames; DROP TABLE PROCESSES;"
              "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"));
  ASSERT_TRUE(s.ok()) << s.error();
  SessionSummary r = summarize(**s);
  EXPECT_EQ(r.nvtxRanges + r.nvtxMarks, 0u);
  EXPECT_EQ(r.memsets, 0u);
  EXPECT_EQ(r.kernels, 3u);
  EXPECT_EQ((*s)->devices[0].uuid, "GPU-aaaa");
  EXPECT_EQ((*s)->provenance.sources[0].format, "nsys-sqlite 3.11.0");
}

TEST_F(NsysImport, StrictAboutWhatItTrusts) {
  auto expectError = [&](const std::string& name, const std::string& edit,
                         const std::string& problem) {
    std::string p = fixture(name, edit);
    auto s = openSessionFile(p);
    ASSERT_FALSE(s.ok()) << name << " opened";
    EXPECT_NE(s.error().find(p), std::string::npos) << s.error();
    EXPECT_NE(s.error().find(problem), std::string::npos) << s.error();
  };
  expectError("strings.sqlite", "DELETE FROM StringIds WHERE id = 4;",
              "table CUPTI_ACTIVITY_KIND_KERNEL row 2: string id 4 is not in StringIds");
  expectError("kind.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 42 WHERE rowid = 2;",
              "table CUPTI_ACTIVITY_KIND_MEMCPY row 2: unknown copyKind 42");
  expectError("memkind.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET memKind = 9;",
              "unknown memKind 9");
  expectError("column.sqlite", "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN gridX;",
              "CUPTI_ACTIVITY_KIND_KERNEL: lacks the column 'gridX'");
  expectError("order.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = 0 WHERE rowid = 3;",
              "CUPTI_ACTIVITY_KIND_RUNTIME row 3: ends before it starts");
  expectError("nvtx.sqlite", "UPDATE NVTX_EVENTS SET end = NULL WHERE eventType = 60;",
              "range without an end");
}

TEST_F(NsysImport, OtherSqliteFilesAreRefused) {
  std::string other = (dir_ / "other.sqlite").string();
  {
    auto db = SqliteDb::open(other, false);
    ASSERT_TRUE(db->exec("CREATE TABLE t(x);").ok());
  }
  auto one = openSessionFile(other);
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().find("not a Tensorscope session"), std::string::npos) << one.error();
  auto two = openSessionFiles({fixture("a.sqlite"), other});
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().find("neither a Tensorscope session nor an Nsight Systems export"),
            std::string::npos)
      << two.error();
}

TEST_F(NsysImport, CombinesWithOtherTracesAsRanks) {
  // nsys times are relative, Kineto's absolute: the ranks are lined up on their first events.
  std::string kineto =
      std::string(TSCOPE_SHARED_DATA) + "/kineto/hta-trace_filter--sampled_rank-0.json.gz";
  auto s = openSessionFiles({kineto, fixture("rank1.sqlite")});
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  ASSERT_EQ(session.ranks.size(), 2u);
  TimeNs first[2] = {INT64_MAX, INT64_MAX};
  for (const Track& t : session.tracks) {
    if (t.size() == 0) continue;
    uint32_t rank = t.device != kNone ? session.devices[t.device].rank
                                      : session.processes[session.threads[t.thread].process].rank;
    first[rank] = std::min(first[rank], t.hot.start[0]);
  }
  EXPECT_EQ(first[0], first[1]);
  EXPECT_EQ(session.ranks[1].label, "rank 1 / rank1.sqlite");
}

}  // namespace ts
