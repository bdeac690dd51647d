// Launch statistics, queue lengths and the expert rules: on hand-built sessions whose answers are
// worked out in the comments, and on the real PyTorch traces in ../shared/data/kineto against
// values computed from the raw files alone by tests/core/reference/hta_launch_rules.py (no
// Tensorscope code), copied here. Alexnet and the ResNet-50 trace were looked at while the rules
// were written; the others were set aside and checked once the rules were done.
#include <gtest/gtest.h>

#include <string>

#include "analysis/diagnosis.h"
#include "analysis/rules/rules.h"
#include "io/open_session.h"
#include "session/session_builder.h"

namespace ts {
namespace {

std::string kineto(const std::string& name) {
  return std::string(TSCOPE_SHARED_DATA) + "/kineto/" + name;
}

Diagnosis run(const Session& s, DiagnoseOptions o = {}) {
  auto d = diagnose(s, o);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error());
  return d.ok() ? *d : Diagnosis{};
}

std::vector<const Finding*> findings(const Diagnosis& d, std::string_view rule) {
  std::vector<const Finding*> out;
  for (const Finding& f : d.findings) {
    if (f.rule == rule) out.push_back(&f);
  }
  return out;
}

// A one-GPU session built call by call: each operation launched by an API call on one thread,
// tied by correlation id.
struct Build {
  SessionBuilder b;
  uint32_t rank, dev, th, s7, s8;
  uint32_t corr = 0;
  explicit Build(int32_t r = 0) {
    rank = b.rank(r), dev = b.device(rank, 0);
    th = b.thread(b.process(rank, 1), 1);
    s7 = b.stream(dev, 7), s8 = b.stream(dev, 8);
  }
  uint32_t call(const char* api, TimeNs at, TimeNs end) {
    ApiDetail a;
    a.correlation = ++corr;
    b.addApi(th, at, end, b.intern(api), a);
    return corr;
  }
  void kernel(uint32_t stream, TimeNs s, TimeNs e, const char* name, uint32_t c) {
    KernelDetail k;
    k.correlation = c;
    b.addKernel(stream, s, e, b.intern(name), k);
  }
  void launch(TimeNs at, TimeNs callEnd, uint32_t stream, TimeNs s, TimeNs e,
              const char* name = "gemm") {
    kernel(stream, s, e, name, call("cudaLaunchKernel", at, callEnd));
  }
  void copy(const char* api, TimeNs at, TimeNs callEnd, TimeNs s, TimeNs e, CopyKind kind,
            MemoryKind src, MemoryKind dst, uint64_t bytes) {
    MemcpyDetail m;
    m.copyKind = kind, m.srcKind = src, m.dstKind = dst, m.bytes = bytes;
    m.correlation = call(api, at, callEnd);
    b.addMemcpy(s7, s, e, b.intern("Memcpy"), m);
  }
  void range(const char* name, TimeNs s, TimeNs e) {
    b.addRange(th, s, e, b.intern(name), {b.intern("user_annotation"), 0});
  }
  SessionPtr build() {
    auto built = b.build();
    EXPECT_TRUE(built.ok()) << (built.ok() ? "" : built.error());
    return built.ok() ? *built : nullptr;
  }
};

TEST(LaunchStats, CpuGpuAndDelayOfEachOperation) {
  Build x;
  // call [0,10) → kernel [15,20): cpu 10, gpu 5 (short), delay 5.
  x.launch(0, 10, x.s7, 15, 20);
  // call [20,80_020) (runtime outlier) → kernel [200_100, 300_100): delay 120_080 (outlier).
  x.launch(20, 80'020, x.s7, 200'100, 300'100);
  // A kernel without a launch: counted, not measured.
  x.kernel(x.s8, 0, 10, "gemm", 0);
  SessionPtr s = x.build();
  Diagnosis d = run(*s);
  EXPECT_EQ(d.launch.ops, 3u);
  EXPECT_EQ(d.launch.withLaunch, 2u);
  ASSERT_EQ(d.launch.byName.size(), 1u);
  const LaunchSummary& g = d.launch.byName[0];
  EXPECT_EQ(g.label, "gemm");
  EXPECT_EQ(g.count, 2u);
  EXPECT_EQ(g.cpuTotal, 10 + 80'000);
  EXPECT_EQ(g.gpuTotal, 5 + 100'000);
  EXPECT_EQ(g.delayTotal, 5 + 120'080);
  EXPECT_EQ(g.delayMax, 120'080);
  EXPECT_EQ(g.shortOps, 1u);
  EXPECT_EQ(g.runtimeOutliers, 1u);
  EXPECT_EQ(g.delayOutliers, 1u);
  ASSERT_EQ(d.launch.flagged.size(), 2u);
  EXPECT_EQ(d.launch.flagged[0].flags, kShortOp);
  EXPECT_EQ(d.launch.flagged[1].flags, kRuntimeOutlier | kDelayOutlier);
}

TEST(QueueLength, OutstandingOperationsAndAFullQueue) {
  Build x;
  // Three launches at 0, 10, 20 of kernels ending at 100, 200, 300: the queue is 1, 2, 3 from
  // 0, 10, 20, then 2 from 100, 1 from 200, empty at 300.
  x.launch(0, 5, x.s7, 50, 100);
  x.launch(10, 15, x.s7, 100, 200);
  x.launch(20, 25, x.s7, 200, 300);
  SessionPtr s = x.build();
  LaunchIndex li(*s);
  auto q = queueLengths(*s, li, {}, 3);  // a capacity of 3: full from 20 to 100
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].streamId, 7u);
  EXPECT_EQ(q[0].ops, 3u);
  EXPECT_EQ(q[0].maxLength, 3u);
  EXPECT_EQ(q[0].fullTime, 80);
  // Weighted: 1×10 + 2×10 + 3×80 + 2×100 + 1×100 = 570 over 300.
  EXPECT_DOUBLE_EQ(q[0].meanLength, 570.0 / 300.0);
  auto series = queueSeries(*s, li, q[0].stream);
  std::vector<std::pair<TimeNs, uint32_t>> got;
  for (const QueueSample& p : series) got.emplace_back(p.time, p.length);
  EXPECT_EQ(got, (std::vector<std::pair<TimeNs, uint32_t>>{
                     {0, 1}, {10, 2}, {20, 3}, {100, 2}, {200, 1}, {300, 0}}));
  // A range clips the figures: [150, 250) sees lengths 2 then 1.
  auto clipped = queueLengths(*s, li, {150, 250}, 3);
  ASSERT_EQ(clipped.size(), 1u);
  EXPECT_EQ(clipped[0].maxLength, 2u);
  EXPECT_EQ(clipped[0].fullTime, 0);
  EXPECT_DOUBLE_EQ(clipped[0].meanLength, 1.5);
}

// Collectives every rank starts at once have no last rank (a file given twice, clocks aligned on
// that kernel): they do not make anyone a straggler.
TEST(Rules, StragglerIgnoresCollectivesStartedTogether) {
  auto ranks = [](std::vector<TimeNs> a, std::vector<TimeNs> b) {
    std::vector<RankCollectives> out(2);
    for (TimeNs t : a) out[0]["ncclKernel_AllReduce"].push_back({t});
    for (TimeNs t : b) out[1]["ncclKernel_AllReduce"].push_back({t});
    return out;
  };
  EXPECT_FALSE(stragglerFinding(ranks({10, 20, 30, 40}, {10, 20, 30, 40}), {"r0", "r1"}, {0, 1}));
  auto late = stragglerFinding(ranks({10, 20, 30, 40}, {15, 25, 35, 40}), {"r0", "r1"}, {0, 1});
  ASSERT_TRUE(late);
  EXPECT_EQ(late->rank, 1);
  EXPECT_EQ(late->count, 3u);  // the fourth started together
  EXPECT_EQ(late->cost, 15);
}

TEST(Rules, CopiesAndMemsetsThatBlockTheCpu) {
  Build x;
  // An async copy from pageable memory: flagged, costing its call (100).
  x.copy("cudaMemcpyAsync", 0, 100, 10, 90, CopyKind::HtoD, MemoryKind::Pageable,
         MemoryKind::Device, 1 << 20);
  // An async copy from pinned memory: fine.
  x.copy("cudaMemcpyAsync_v3020", 200, 210, 220, 300, CopyKind::HtoD, MemoryKind::Pinned,
         MemoryKind::Device, 1 << 20);
  // Synchronous copies: a 64 KiB HtoD is left out (nsys), a DtoH of 4 KiB is not (cost 50).
  x.copy("cudaMemcpy", 400, 450, 410, 440, CopyKind::HtoD, MemoryKind::Pageable, MemoryKind::Device,
         64 * 1024);
  x.copy("cudaMemcpy_v3020", 500, 550, 510, 540, CopyKind::DtoH, MemoryKind::Device,
         MemoryKind::Pageable, 4096);
  // Synchronous memsets: on pinned memory flagged (cost 30), on device memory not.
  for (auto [kind, at] : {std::pair{MemoryKind::Pinned, 600}, {MemoryKind::Device, 700}}) {
    MemsetDetail m;
    m.memKind = kind;
    m.correlation = x.call("cudaMemset", at, at + 30);
    x.b.addMemset(x.s8, at + 5, at + 25, x.b.intern("Memset"), m);
  }
  SessionPtr s = x.build();
  Diagnosis d = run(*s);
  auto async = findings(d, "cuda_memcpy_async");
  ASSERT_EQ(async.size(), 1u);
  EXPECT_EQ(async[0]->count, 1u);
  EXPECT_EQ(async[0]->cost, 100);
  EXPECT_EQ(async[0]->events.size(), 2u);  // the call and its copy
  EXPECT_NE(async[0]->message.find("1 MiB"), std::string::npos) << async[0]->message;
  auto sync = findings(d, "cuda_memcpy_sync");
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(sync[0]->count, 1u);
  EXPECT_EQ(sync[0]->cost, 50);
  EXPECT_EQ(sync[0]->start, 500);
  auto memset = findings(d, "cuda_memset_sync");
  ASSERT_EQ(memset.size(), 1u);
  EXPECT_EQ(memset[0]->cost, 30);
  EXPECT_EQ(memset[0]->start, 600);
}

TEST(Rules, SynchronisationCallsAndTheGpuTimeTheyWaitedFor) {
  Build x;
  x.launch(0, 10, x.s7, 20, 120);
  // cudaDeviceSynchronize [30, 150): the GPU busy [30, 120) = 90 of it, idle 30.
  x.call("cudaDeviceSynchronize", 30, 150);
  x.call("cuStreamSynchronize", 200, 210);  // the driver's: 10 more, GPU idle
  x.call("cudaStreamWaitEvent", 220, 230);  // makes a stream wait, not the CPU
  SessionPtr s = x.build();
  Diagnosis d = run(*s);
  auto f = findings(d, "cuda_api_sync");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->count, 2u);
  EXPECT_EQ(f[0]->cost, 130);
  EXPECT_EQ(f[0]->start, 30);
  EXPECT_EQ(f[0]->end, 210);
  EXPECT_NE(f[0]->message.find("90 ns of it and sat idle for the other 40 ns"), std::string::npos)
      << f[0]->message;
}

// AMD traces call HIP: its synchronisation and copy calls count as CUDA's do.
TEST(Rules, HipCallsAsTheirCudaCounterparts) {
  Build x;
  x.launch(0, 10, x.s7, 20, 120);
  x.call("hipDeviceSynchronize", 30, 150);
  x.copy("hipMemcpyWithStream", 200, 300, 210, 290, CopyKind::DtoH, MemoryKind::Device,
         MemoryKind::Pageable, 1 << 20);
  SessionPtr s = x.build();
  Diagnosis d = run(*s);
  auto sync = findings(d, "cuda_api_sync");
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(sync[0]->count, 1u);
  auto copies = findings(d, "cuda_memcpy_sync");
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0]->count, 1u);
}

TEST(Rules, GpuGapsLeaveOutTheEndsAndHonourTheThreshold) {
  Build x;
  // Kernels [1000, 2000), [2600, 3000) on stream 7 and [2500, 2700) on 8: device busy
  // [1000, 2000) ∪ [2500, 3000); one gap [2000, 2500) of 500. The time before 1000 and after
  // 3000 is not a gap.
  x.launch(0, 5, x.s7, 1000, 2000);
  x.launch(10, 15, x.s7, 2600, 3000);
  x.launch(20, 25, x.s8, 2500, 2700);
  SessionPtr s = x.build();
  DiagnoseOptions o;
  o.ruleNames = {"gpu_gaps"};
  o.rules.gapThreshold = 500;
  Diagnosis d = run(*s, o);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].count, 1u);
  EXPECT_EQ(d.findings[0].start, 2000);
  EXPECT_EQ(d.findings[0].end, 2500);
  EXPECT_EQ(d.findings[0].cost, 500);
  o.rules.gapThreshold = 501;
  EXPECT_TRUE(run(*s, o).findings.empty());
}

TEST(Rules, GpuTimeUtilReportsRunsOfLowChunks) {
  Build x;
  // Span [0, 1000) in 10 chunks of 100: busy [0, 300) and [700, 1000), with [300, 700) holding
  // one kernel [400, 420): chunks 3..6 are low (20 % in chunk 4, 0 % in 3, 5, 6).
  x.launch(-10, -5, x.s7, 0, 300);
  x.launch(-4, -3, x.s7, 400, 420);
  x.launch(-2, -1, x.s7, 700, 1000);
  SessionPtr s = x.build();
  DiagnoseOptions o;
  o.ruleNames = {"gpu_time_util"};
  o.rules.utilisationChunks = 10;
  Diagnosis d = run(*s, o);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].count, 1u);  // one run of four chunks
  EXPECT_EQ(d.findings[0].start, 300);
  EXPECT_EQ(d.findings[0].end, 700);
  EXPECT_EQ(d.findings[0].cost, 380);  // idle inside them
  o.rules.lowUtilisation = 10;         // now only chunks 3, 5, 6 (0 %): two runs
  Diagnosis strict = run(*s, o);
  ASSERT_EQ(strict.findings.size(), 1u);
  EXPECT_EQ(strict.findings[0].count, 2u);
  EXPECT_EQ(strict.findings[0].cost, 300);
}

// Two ProfilerStep ranges of 1000 ns; in step 1 the CPU launches late, in step 2 on time.
TEST(Rules, HostBoundCountsTheGpuAsAWhole) {
  Build x;
  x.range("ProfilerStep#1", 0, 1000);
  x.range("ProfilerStep#2", 1000, 2000);
  // Step 1: stream 7 runs [0, 100), then the next launch starts at 400 (host wait [100, 410)),
  // the kernel [410, 900). Stream 8 is busy [100, 200) meanwhile, so the GPU waited [200, 410):
  // 210. Stream 8's own gap before its next kernel is host wait too, and overlaps: counted
  // once. Then the GPU is idle from 900 until step 2's first launch ends at 1010: the part in
  // step 1, [900, 1000), is host wait too. 310 of 1000: host-bound.
  x.launch(0, 5, x.s7, 10, 100);
  x.launch(6, 8, x.s8, 100, 200);
  x.launch(400, 405, x.s7, 410, 900);
  x.launch(402, 404, x.s8, 420, 800);
  // Step 2: back-to-back after its first launch: 10 ns of host wait (1 %).
  x.launch(1000, 1005, x.s7, 1010, 1500);
  x.launch(1006, 1008, x.s7, 1500, 1990);
  SessionPtr s = x.build();
  DiagnoseOptions o;
  o.ruleNames = {"host_bound"};
  Diagnosis d = run(*s, o);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].count, 1u);
  EXPECT_EQ(d.findings[0].start, 0);
  EXPECT_EQ(d.findings[0].end, 1000);
  EXPECT_EQ(d.findings[0].cost, 310);
  EXPECT_NE(d.findings[0].message.find("in 1 of 2 steps"), std::string::npos)
      << d.findings[0].message;
  // A range around step 1's GPU work keeps the step (more than half of it inside) and judges
  // it whole: the same 310.
  DiagnoseOptions ranged = o;
  ranged.range = {300, 1000};
  Diagnosis inRange = run(*s, ranged);
  ASSERT_EQ(inRange.steps.steps.size(), 1u);
  ASSERT_EQ(inRange.findings.size(), 1u);
  EXPECT_EQ(inRange.findings[0].cost, 310);
  o.rules.hostBoundShare = 0.35;  // 31 % is below it
  EXPECT_TRUE(run(*s, o).findings.empty());
}

TEST(Rules, OccurrencesCostliestFirst) {
  FindingBuilder b("dataloader", 0);
  b.setOccurrence("step");
  b.add(0, 1000, 50);  // the longer step lost less
  b.add(1000, 1600, 400);
  Finding f = b.finish("m", "a");
  ASSERT_EQ(f.where.size(), 2u);
  EXPECT_EQ(f.where[0].start, 1000);
  EXPECT_EQ(f.whereCost[0], 400);
  EXPECT_EQ(f.occurrence, "step");
  EXPECT_EQ(f.cost, 450);
}

// A rarely used stream sits in a long host-wait gap; the GPU's idle stretches are host wait only
// where the operation that ends them waited for its launch.
TEST(Rules, HostBoundAsksTheOperationThatEndsTheIdleStretch) {
  Build x;
  x.range("ProfilerStep#1", 0, 2000);
  x.launch(0, 5, x.s7, 10, 100);  // A
  x.launch(1, 3, x.s8, 10, 50);
  // B, launched long before A ends, starts at 600: its gap [100, 600) is "other" (it waited for
  // something else, not for the CPU).
  x.launch(20, 25, x.s7, 600, 700);
  // Stream 8's next kernel, launched at 1400, waited for the CPU since 50: host wait [50, 1500).
  x.launch(1400, 1405, x.s8, 1500, 1550);
  SessionPtr s = x.build();
  DiagnoseOptions o;
  o.ruleNames = {"host_bound"};
  Diagnosis d = run(*s, o);
  // The GPU was idle [100, 600) — ended by B: not host wait, though stream 8 was waiting then —
  // and [700, 1500) — ended by stream 8's launch: host wait. 800 of 2000.
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].cost, 800);
}

TEST(Rules, LaunchBoundOnlyWhenTheGpuWaitsForTheShortOperations) {
  // Ten kernels of 2 ns, each launched by a call of 10 ns. Launched one after another, each
  // waits for its launch: launch-bound. Launched all ahead of the GPU (a deep queue), none
  // waits: not launch-bound, although every one is short.
  for (bool queued : {false, true}) {
    Build x;
    for (int i = 0; i < 10; ++i) {
      TimeNs at = 20 * i;
      TimeNs start = queued ? 1000 + 2 * i : at + 12;
      x.launch(at, at + 10, x.s7, start, start + 2);
    }
    SessionPtr s = x.build();
    DiagnoseOptions o;
    o.ruleNames = {"launch_bound"};
    Diagnosis d = run(*s, o);
    EXPECT_EQ(d.launch.byName[0].shortOps, 10u);
    if (queued) {
      EXPECT_TRUE(d.findings.empty());
      continue;
    }
    ASSERT_EQ(d.findings.size(), 1u);
    // The gaps before kernels 2..10: each from the previous end (20(i−1) + 14) to the next
    // start (20i + 12) = 18 ns, host wait (its call started after the previous end).
    EXPECT_EQ(d.findings[0].count, 9u);
    EXPECT_EQ(d.findings[0].cost, 9 * 18);
  }
}

TEST(Rules, ExposedCommunicationAndDataLoadingPerStep) {
  Build x;
  x.range("ProfilerStep#1", 0, 1000);
  x.range("ProfilerStep#2", 1000, 2000);
  x.range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 100);      // 10 %
  x.range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1000, 1020);  // 2 %
  // Step 1: an all-reduce [100, 400) with a gemm [100, 250) beside it: 150 exposed (15 %).
  x.launch(10, 20, x.s7, 100, 250);
  x.launch(30, 40, x.s8, 100, 400, "ncclDevKernel_AllReduce_Sum_f32");
  // Step 2: the all-reduce fully under a gemm.
  x.launch(1010, 1020, x.s7, 1100, 1500);
  x.launch(1030, 1040, x.s8, 1200, 1300, "ncclDevKernel_AllReduce_Sum_f32");
  SessionPtr s = x.build();
  DiagnoseOptions o;
  o.ruleNames = {"exposed_comm", "dataloader"};
  Diagnosis d = run(*s, o);
  auto comm = findings(d, "exposed_comm");
  ASSERT_EQ(comm.size(), 1u);
  EXPECT_EQ(comm[0]->count, 1u);
  EXPECT_EQ(comm[0]->cost, 150);
  auto loader = findings(d, "dataloader");
  ASSERT_EQ(loader.size(), 1u);
  EXPECT_EQ(loader[0]->count, 1u);
  EXPECT_EQ(loader[0]->cost, 100);
  EXPECT_EQ(loader[0]->start, 0);
}

TEST(Rules, TheRankWhoseCollectivesStartLastIsTheStraggler) {
  // Two ranks, four all-reduces each; rank 1 starts three of them later than rank 0 (by 50, 60,
  // 70 ns), rank 0 one of them (by 10): rank 1 is last in 75 %, not above the 75 % bar; with a
  // fourth late start it is (100 %).
  for (bool allLate : {false, true}) {
    SessionBuilder b;
    for (int32_t r = 0; r < 2; ++r) {
      uint32_t rank = b.rank(r), dev = b.device(rank, r), st = b.stream(dev, 7);
      for (int k = 0; k < 4; ++k) {
        TimeNs lag =
            r == 0 ? (k == 3 && !allLate ? 10 : 0) : (k < 3 ? 50 + 10 * k : (allLate ? 40 : 0));
        TimeNs at = 1000 * k + lag;
        b.addKernel(st, at, 1000 * k + 500, b.intern("ncclDevKernel_AllReduce"), {});
      }
    }
    auto s = b.build();
    ASSERT_TRUE(s.ok());
    DiagnoseOptions o;
    o.ruleNames = {"straggler"};
    Diagnosis d = run(**s, o);
    if (!allLate) {
      EXPECT_TRUE(d.findings.empty());
      continue;
    }
    ASSERT_EQ(d.findings.size(), 1u);
    EXPECT_EQ(d.findings[0].rank, 1);
    EXPECT_EQ(d.findings[0].count, 4u);
    EXPECT_EQ(d.findings[0].cost, 50 + 60 + 70 + 40);
  }
}

TEST(Rules, UnifiedMemoryMigrationsInsideSteps) {
  Build x;
  x.range("ProfilerStep#1", 0, 1000);
  x.launch(0, 5, x.s7, 10, 20);
  MemcpyDetail m;
  m.bytes = 4096;
  m.migration = 1;
  x.b.addMemcpy(x.s8, 100, 150, x.b.intern("Unified memory HtoD"), m);
  x.b.addMemcpy(x.s8, 2000, 2100, x.b.intern("Unified memory DtoH"), m);  // outside the step
  m.migration = 0;
  // A session saved before the flag: its migrations known by name only.
  x.b.addMemcpy(x.s8, 200, 250, x.b.intern("Unified Memory HtoD"), m);
  x.b.addMemcpy(x.s8, 300, 350, x.b.intern("Memcpy HtoD (Pinned -> Device)"), m);  // a copy
  SessionPtr s = x.build();
  DiagnoseOptions o;
  o.ruleNames = {"unified_memory"};
  Diagnosis d = run(*s, o);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].count, 2u);
  EXPECT_EQ(d.findings[0].cost, 100);
}

TEST(Rules, WithoutLaunchesTheyJudgeNothingAndSaySo) {
  Build x;
  MemcpyDetail m;
  m.srcKind = MemoryKind::Pageable;
  x.b.addMemcpy(x.s7, 0, 100, x.b.intern("Memcpy HtoD (Pageable -> Device)"), m);
  x.b.addKernel(x.s7, 200, 300, x.b.intern("gemm"), {});
  SessionPtr s = x.build();
  Diagnosis d = run(*s);
  EXPECT_TRUE(findings(d, "cuda_memcpy_async").empty());
  bool said = false;
  for (const std::string& n : d.ruleNotes) said |= n.starts_with("cuda_memcpy_async: 1 copy");
  EXPECT_TRUE(said);
}

TEST(Rules, ARuleListIsCheckedAndRanked) {
  auto ok = parseRuleList("gpu_gaps,cuda_api_sync");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, (std::vector<std::string>{"gpu_gaps", "cuda_api_sync"}));
  auto bad = parseRuleList("gpu_gaps,gpu_gasp");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("unknown rule 'gpu_gasp'"), std::string::npos);
  EXPECT_NE(bad.error().find("unified_memory"), std::string::npos);  // lists the known ones
  EXPECT_FALSE(parseRuleList(",").ok());
  EXPECT_EQ(expertRules().size(), 12u);
}

TEST(Rules, AnEmptyRangeIsAnError) {
  Build x;
  x.launch(0, 5, x.s7, 10, 20);
  SessionPtr s = x.build();
  DiagnoseOptions o;
  o.range = {100, 100};
  auto d = diagnose(*s, o);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().find("empty"), std::string::npos);
}

// Reference values from tests/core/reference/hta_launch_rules.py.
struct Reference {
  uint64_t ops, withLaunch, shortOps, runtimeOutliers, delayOutliers;
  std::vector<std::pair<uint32_t, uint32_t>> maxQueue;   // (stream, max length)
  std::pair<size_t, TimeNs> memcpyAsync, apiSync, gaps;  // count, cost (0, 0: no finding)
};

size_t findingCount(const Diagnosis& d, std::string_view rule, int32_t rank, TimeNs* cost) {
  for (const Finding& f : d.findings) {
    if (f.rule == rule && f.rank == rank) {
      *cost = f.cost;
      return f.count;
    }
  }
  *cost = 0;
  return 0;
}

void expectReference(const Diagnosis& d, int32_t rank, const Reference& want) {
  SCOPED_TRACE("rank " + std::to_string(rank));
  uint64_t withLaunch = 0, shortOps = 0, runtime = 0, delay = 0;
  for (const LaunchSummary& l : d.launch.byName) {
    if (l.rankNumber != rank) continue;
    withLaunch += l.count, shortOps += l.shortOps;
    runtime += l.runtimeOutliers, delay += l.delayOutliers;
  }
  EXPECT_EQ(withLaunch, want.withLaunch);
  EXPECT_EQ(shortOps, want.shortOps);
  EXPECT_EQ(runtime, want.runtimeOutliers);
  EXPECT_EQ(delay, want.delayOutliers);
  std::vector<std::pair<uint32_t, uint32_t>> queues;
  for (const StreamQueue& q : d.queues) {
    if (q.rank == rank) queues.emplace_back(q.streamId, q.maxLength);
    EXPECT_EQ(q.fullTime, 0);
  }
  EXPECT_EQ(queues, want.maxQueue);
  TimeNs cost = 0;
  EXPECT_EQ(findingCount(d, "cuda_memcpy_async", rank, &cost), want.memcpyAsync.first);
  EXPECT_EQ(cost, want.memcpyAsync.second);
  EXPECT_EQ(findingCount(d, "cuda_api_sync", rank, &cost), want.apiSync.first);
  EXPECT_EQ(cost, want.apiSync.second);
  EXPECT_EQ(findingCount(d, "gpu_gaps", rank, &cost), want.gaps.first);
  EXPECT_EQ(cost, want.gaps.second);
  EXPECT_EQ(findingCount(d, "cuda_memcpy_sync", rank, &cost), 0u);
}

Diagnosis runFiles(const std::vector<std::string>& names, TimeNs gapThreshold) {
  std::vector<std::string> paths;
  for (const std::string& n : names) paths.push_back(kineto(n));
  auto s = openSessionFiles(paths);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
  if (!s.ok()) return {};
  DiagnoseOptions o;
  o.rules.gapThreshold = gapThreshold;
  return run(**s, o);
}

TEST(RulesOnTraces, AlexnetMatchesTheReference) {
  Diagnosis d =
      runFiles({"hta-critical_path--alexnet--benchmark_result_2869224_1695835535_trace.json.gz"},
               100'000'000);
  EXPECT_EQ(d.launch.ops, 98u);
  expectReference(d, 0,
                  {98,
                   98,
                   32,
                   11,
                   43,
                   {{7, 19}, {20, 3}},
                   {16, 56'991'000},
                   {21, 1'497'000},
                   {4, 12'726'296'000}});
}

TEST(RulesOnTraces, ResNetDataLoadingMatchesTheReference) {
  Diagnosis d =
      runFiles({"kineto-tb_plugin--resnet50_num_workers_0--worker0.1623143089861.pt.trace.json.gz"},
               100'000'000);
  expectReference(
      d, 0, {9096, 9096, 5748, 6, 7267, {{7, 570}}, {12, 12'047'000}, {13, 16'745'000}, {0, 0}});
  // Steps 5 to 10 each spent over 5 % loading data: 68.694 + 68.777 + 73.418 + 71.425 +
  // 70.844 + 62.633 ms.
  auto loader = findings(d, "dataloader");
  ASSERT_EQ(loader.size(), 1u);
  EXPECT_EQ(loader[0]->count, 6u);
  EXPECT_EQ(loader[0]->cost, 415'791'000);
}

// Set aside while the rules were written, checked after.
TEST(RulesOnTraces, HeldOutTracesMatchTheReference) {
  expectReference(runFiles({"param--et_replay--linear_kineto.json.gz"}, 10'000'000), 0,
                  {10356, 10356, 6408, 45, 190, {{7, 13}}, {0, 0}, {1, 187'000}, {0, 0}});
  expectReference(
      runFiles({"hta-critical_path--cuda_event_sync--event_sync_trace.json.gz"}, 10'000'000), 0,
      {5, 5, 3, 0, 0, {{7, 1}}, {1, 29'000}, {3, 48'000}, {0, 0}});
  expectReference(runFiles({"hta-triton_example--triton_example.json.gz"}, 10'000'000), 0,
                  {1, 1, 1, 0, 0, {{7, 1}}, {0, 0}, {1, 16'846}, {0, 0}});
  // Two ranks opened together: each rank's figures as from its own file.
  Diagnosis both = runFiles(
      {"hta-trace_filter--sampled_rank-0.json.gz", "hta-trace_filter--sampled_rank-1.json.gz"},
      10'000'000);
  expectReference(both, 0,
                  {1204,
                   1204,
                   282,
                   2,
                   937,
                   {{7, 80}, {23, 5}, {25, 8}, {84, 2}, {203, 1}},
                   {24, 1'267'000},
                   {0, 0},
                   {9, 254'757'000}});
  expectReference(both, 1,
                  {1154,
                   1154,
                   278,
                   0,
                   880,
                   {{7, 91}, {23, 3}, {25, 8}, {84, 2}, {203, 1}},
                   {24, 316'000},
                   {0, 0},
                   {15, 303'888'000}});
  // The straggler: rank 1 starts 8 of the 10 collectives both ranks ran last.
  auto straggler = findings(both, "straggler");
  ASSERT_EQ(straggler.size(), 1u);
  EXPECT_EQ(straggler[0]->rank, 1);
  EXPECT_EQ(straggler[0]->count, 8u);
}

}  // namespace
}  // namespace ts
