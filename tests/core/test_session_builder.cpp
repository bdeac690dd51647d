#include <gtest/gtest.h>

#include <set>

#include "session/session_builder.h"
#include "session/session_summary.h"
#include "session_fixture.h"

namespace ts {

TEST(SessionBuilder, EntitiesAreCreatedOncePerKey) {
  SessionBuilder b;
  uint32_t r0 = b.rank(0), r1 = b.rank(1);
  EXPECT_NE(r0, r1);
  EXPECT_EQ(b.rank(0), r0);
  EXPECT_EQ(b.device(r0, 0), b.device(r0, 0));
  EXPECT_NE(b.device(r0, 0), b.device(r1, 0));  // same ordinal on another rank: another GPU
  uint32_t p = b.process(r0, 42);
  EXPECT_EQ(b.thread(p, 7), b.thread(p, 7));
  EXPECT_NE(b.thread(p, 7), b.thread(b.process(r1, 42), 7));
  uint32_t d = b.device(r0, 0);
  EXPECT_EQ(b.stream(d, 7), b.stream(d, 7));
  EXPECT_NE(b.stream(d, 7), b.stream(d, 8));
}

TEST(SessionBuilder, SortsTracksAndComputesTheTimeSpan) {
  SessionPtr s = testing::makeFixtureSession();
  ASSERT_TRUE(s);
  for (const Track& t : s->tracks) {
    for (size_t i = 1; i < t.size(); ++i) ASSERT_LE(t.hot.start[i - 1], t.hot.start[i]);
  }
  EXPECT_EQ(s->startTime(), 1'000'000);
  EXPECT_EQ(s->endTime(), 1'000'000 + 10'000);
  EXPECT_EQ(s->duration(), 10'000);
  // The kernel added first (late) ends up second, with its detail row moved along.
  const Track* kernels = nullptr;
  for (const Track& t : s->tracks) {
    if (t.kind == EventKind::Kernel) kernels = &t;
  }
  ASSERT_TRUE(kernels);
  ASSERT_EQ(kernels->size(), 2u);
  EXPECT_EQ(s->str(kernels->hot.name[0]), "sgemm_128x64");
  EXPECT_EQ(kernels->kernels.correlation[0], 10u);
  EXPECT_EQ(s->str(kernels->hot.name[1]), "kernel(float*)");
  EXPECT_EQ(kernels->kernels.correlation[1], 11u);
  EXPECT_EQ(kernels->kernels.graphId[1], 9u);
}

TEST(SessionBuilder, LinksApiCallsToGpuWorkByCorrelation) {
  SessionPtr s = testing::makeFixtureSession();
  ASSERT_TRUE(s);
  // cudaMemcpyAsync→HtoD (12), cudaLaunchKernel→sgemm (10), cuLaunchKernel→kernel (11, also an
  // explicit flow: kept once), cudaMemsetAsync→memset (13). The PtoP copy has no correlation.
  ASSERT_EQ(s->flows.srcTrack.size(), 4u);
  std::set<std::pair<std::string, std::string>> got;
  for (size_t i = 0; i < s->flows.srcTrack.size(); ++i) {
    const Track& src = s->tracks[s->flows.srcTrack[i]];
    const Track& dst = s->tracks[s->flows.dstTrack[i]];
    EXPECT_EQ(src.kind, EventKind::Api);
    got.emplace(s->str(src.hot.name[s->flows.srcEvent[i]]),
                s->str(dst.hot.name[s->flows.dstEvent[i]]));
  }
  std::set<std::pair<std::string, std::string>> want = {
      {"cudaMemcpyAsync", "Memcpy HtoD (Pinned -> Device)"},
      {"cudaLaunchKernel", "sgemm_128x64"},
      {"cuLaunchKernel", "kernel(float*)"},
      {"cudaMemsetAsync", "Memset (Device)"}};
  EXPECT_EQ(got, want);
}

TEST(SessionBuilder, CorrelationIdsDoNotCrossRanks) {
  SessionPtr s = testing::makeFixtureSession(/*multiRank=*/true);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->ranks.size(), 2u);
  EXPECT_EQ(s->flows.srcTrack.size(), 8u);
  for (size_t i = 0; i < s->flows.srcTrack.size(); ++i) {
    const Track& src = s->tracks[s->flows.srcTrack[i]];
    const Track& dst = s->tracks[s->flows.dstTrack[i]];
    EXPECT_EQ(s->processes[s->threads[src.thread].process].rank, s->devices[dst.device].rank);
  }
  EXPECT_EQ(s->deviceLabel(2), "rank 1 / node1 · GPU 0: NVIDIA A100-SXM4-40GB");
}

TEST(SessionBuilder, AmbiguousCorrelationWithoutContextIsNotGuessed) {
  SessionBuilder b;
  uint32_t r = b.rank(0);
  uint32_t t1 = b.thread(b.process(r, 1), 1), t2 = b.thread(b.process(r, 2), 2);
  uint32_t stream = b.stream(b.device(r, 0), 7);  // no context: its process is unknown
  b.addApi(t1, 0, 10, b.intern("cudaLaunchKernel"), {5, 0, ApiDomain::Runtime});
  b.addApi(t2, 0, 10, b.intern("cudaLaunchKernel"), {5, 0, ApiDomain::Runtime});
  KernelDetail k{};
  k.correlation = 5;
  b.addKernel(stream, 20, 30, b.intern("k"), k);
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value()->flows.srcTrack.size(), 0u);
}

TEST(SessionBuilder, ClampsEndBeforeStartAndSortsCounters) {
  SessionBuilder b;
  uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  b.addApi(thread, 100, 50, b.intern("cudaFree"), {});
  b.addCounterSample("mem", "B", kNone, 0, 30, 3);
  b.addCounterSample("mem", "B", kNone, 0, 10, 1);
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  const Session& session = *s.value();
  EXPECT_EQ(session.tracks[0].hot.end[0], 100);
  ASSERT_EQ(session.counters.size(), 1u);
  EXPECT_EQ(session.counters[0].samples.time, (std::vector<TimeNs>{10, 30}));
  EXPECT_EQ(session.counters[0].samples.value, (std::vector<double>{1, 3}));
}

TEST(SessionBuilder, SummaryCountsEveryKind) {
  SessionPtr s = testing::makeFixtureSession();
  SessionSummary r = summarize(*s);
  EXPECT_EQ(r.kernels, 2u);
  EXPECT_EQ(r.memcpyCount[static_cast<size_t>(CopyKind::HtoD)], 1u);
  EXPECT_EQ(r.memcpyCount[static_cast<size_t>(CopyKind::PtoP)], 1u);
  EXPECT_EQ(r.memcpyBytes[static_cast<size_t>(CopyKind::HtoD)], 1u << 20);
  EXPECT_EQ(r.memsets, 1u);
  EXPECT_EQ(r.apiCalls, 4u);
  EXPECT_EQ(r.nvtxRanges, 4u);  // three on the thread, one on the stream
  EXPECT_EQ(r.nvtxMarks, 1u);
  EXPECT_EQ(r.otherRanges, 1u);
  EXPECT_EQ(r.streams, 3u);
  EXPECT_EQ(r.events, 15u);
  EXPECT_EQ(r.devices.size(), 2u);
}

TEST(SessionBuilder, SessionsLiveSideBySide) {
  SessionPtr a = testing::makeFixtureSession();
  SessionPtr b = testing::makeFixtureSession(true);
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(a->ranks.size(), 1u);
  EXPECT_EQ(b->ranks.size(), 2u);
  EXPECT_EQ(a->eventCount() * 2, b->eventCount());
}

// build()'s first step: a rank's clock offset moves its events, its counters and the times its
// flows bind at, and nothing of another rank.
TEST(SessionBuilder, ClockOffsetsMoveEveryTimestampOfTheirRankOnly) {
  SessionBuilder b;
  uint32_t r0 = b.rank(0), r1 = b.rank(1);
  b.rankInfo(r1).clockOffsetNs = 1'000;
  uint32_t t0 = b.thread(b.process(r0, 1), 1), t1 = b.thread(b.process(r1, 2), 2);
  uint32_t d1 = b.device(r1, 0);
  uint32_t s1 = b.stream(d1, 7);
  b.addRange(t0, 100, 200, b.intern("rank 0"), {});
  b.addRange(t1, 100, 200, b.intern("rank 1"), {});
  b.addKernel(s1, 150, 160, b.intern("k"), {});
  b.addCounterSample("mem", "B", d1, kNone, 50, 1.0);
  // Bound after the offset: at 1'155 the rank-1 range [1'100, 1'200] encloses it.
  b.addFlow(SessionBuilder::FlowEnd{t1, kNone, 155, true},
            SessionBuilder::FlowEnd{kNone, s1, 150, false});
  auto s = b.build();
  ASSERT_TRUE(s.ok()) << s.error();
  for (const Track& t : (*s)->tracks) {
    const bool rank1 =
        t.device != kNone || (*s)->processes[(*s)->threads[t.thread].process].rank == r1;
    EXPECT_EQ(t.hot.start[0], rank1 ? (t.kind == EventKind::Kernel ? 1'150 : 1'100) : 100);
  }
  EXPECT_EQ((*s)->counters.at(0).samples.time.at(0), 1'050);
  ASSERT_EQ((*s)->flows.srcTrack.size(), 1u);
  EXPECT_EQ((*s)->tracks[(*s)->flows.dstTrack[0]].kind, EventKind::Kernel);
}

// A flow known by owner and time binds to the deepest range enclosing its time, or (not
// enclosing) to the first event starting at or after it — not to one that started before.
TEST(SessionBuilder, TimedFlowsBindToTheDeepestEnclosingOrTheNextEvent) {
  SessionBuilder b;
  uint32_t r = b.rank(0);
  uint32_t t = b.thread(b.process(r, 1), 1);
  uint32_t stream = b.stream(b.device(r, 0), 7);
  b.addRange(t, 0, 100, b.intern("outer"), {});
  b.addRange(t, 10, 50, b.intern("inner"), {});
  b.addKernel(stream, 5, 40, b.intern("covers"), {});
  b.addKernel(stream, 60, 70, b.intern("next"), {});
  b.addFlow(SessionBuilder::FlowEnd{t, kNone, 20, true},
            SessionBuilder::FlowEnd{kNone, stream, 30, false});
  b.addFlow(SessionBuilder::FlowEnd{t, kNone, 500, true},  // nothing encloses 500: dropped
            SessionBuilder::FlowEnd{kNone, stream, 30, false});
  auto s = b.build();
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  ASSERT_EQ(session.flows.srcTrack.size(), 1u);
  const Track& src = session.tracks[session.flows.srcTrack[0]];
  const Track& dst = session.tracks[session.flows.dstTrack[0]];
  EXPECT_EQ(session.str(src.hot.name[session.flows.srcEvent[0]]), "inner");
  EXPECT_EQ(session.str(dst.hot.name[session.flows.dstEvent[0]]), "next");
}

// Flows added by reference follow their events through the sort.
TEST(SessionBuilder, FlowsByReferenceFollowTheSort) {
  SessionBuilder b;
  uint32_t r = b.rank(0);
  uint32_t t = b.thread(b.process(r, 1), 1);
  uint32_t stream = b.stream(b.device(r, 0), 7);
  EventRef late = b.addApi(t, 50, 60, b.intern("late"), {});
  b.addApi(t, 10, 20, b.intern("early"), {});
  EventRef k = b.addKernel(stream, 70, 80, b.intern("k"), {});
  b.addFlow(late, k);
  b.addFlow(late, EventRef{99, 0});  // no such track: dropped
  auto s = b.build();
  ASSERT_TRUE(s.ok()) << s.error();
  const Session& session = **s;
  ASSERT_EQ(session.flows.srcTrack.size(), 1u);
  const Track& src = session.tracks[session.flows.srcTrack[0]];
  EXPECT_EQ(session.flows.srcEvent[0], 1u);  // sorted second
  EXPECT_EQ(session.str(src.hot.name[session.flows.srcEvent[0]]), "late");
}

}  // namespace ts
