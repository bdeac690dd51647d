#include <gtest/gtest.h>

#include "session/session_builder.h"

namespace ts {

namespace {

// A thread with NVTX ranges nested three deep plus a mark, and a stream with two overlapping
// kernels, built through the builder as an importer would.
SessionPtr nestedSession() {
  SessionBuilder b;
  uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  uint32_t stream = b.stream(b.device(0, 0), 7);
  NvtxDetail n{};
  b.addNvtx(thread, 0, 100, b.intern("outer"), n);
  b.addNvtx(thread, 10, 40, b.intern("a"), n);
  b.addNvtx(thread, 50, 90, b.intern("b"), n);
  b.addNvtx(thread, 15, 20, b.intern("a.1"), n);
  b.addNvtx(thread, 60, 60, b.intern("mark"), {0, 0, 1});
  b.addNvtx(thread, 200, 300, b.intern("later"), n);
  KernelDetail k{};
  b.addKernel(stream, 0, 50, b.intern("k0"), k);
  b.addKernel(stream, 40, 80, b.intern("k1"), k);  // overlaps k0: second lane
  b.addKernel(stream, 80, 90, b.intern("k2"), k);
  auto s = b.build();
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
  return s.value();
}

const Track& trackOf(const Session& s, EventKind kind) {
  for (const Track& t : s.tracks) {
    if (t.kind == kind) return t;
  }
  throw std::runtime_error("no track");
}

std::string nameAt(const Session& s, const Track& t, uint32_t lane, TimeNs time) {
  uint32_t e = t.eventAt(lane, time);
  return e == kNone ? "-" : std::string(s.str(t.hot.name[e]));
}

}  // namespace

TEST(Track, NestedRangesGetTheirDepthAsLane) {
  SessionPtr s = nestedSession();
  const Track& t = trackOf(*s, EventKind::Nvtx);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t.laneCount(), 3u);
  std::vector<std::pair<std::string, int>> got;
  for (uint32_t i = 0; i < t.size(); ++i) got.emplace_back(s->str(t.hot.name[i]), t.hot.lane[i]);
  std::vector<std::pair<std::string, int>> want = {{"outer", 0}, {"a", 1},    {"a.1", 2},
                                                   {"b", 1},     {"mark", 2}, {"later", 0}};
  EXPECT_EQ(got, want);
}

TEST(Track, EventAtFindsTheCoveringEventPerLane) {
  SessionPtr s = nestedSession();
  const Track& t = trackOf(*s, EventKind::Nvtx);
  EXPECT_EQ(nameAt(*s, t, 0, 0), "outer");
  EXPECT_EQ(nameAt(*s, t, 0, 99), "outer");
  EXPECT_EQ(nameAt(*s, t, 0, 100), "-");  // end is exclusive
  EXPECT_EQ(nameAt(*s, t, 0, 150), "-");
  EXPECT_EQ(nameAt(*s, t, 0, 250), "later");
  EXPECT_EQ(nameAt(*s, t, 1, 45), "-");
  EXPECT_EQ(nameAt(*s, t, 1, 55), "b");
  EXPECT_EQ(nameAt(*s, t, 2, 17), "a.1");
  EXPECT_EQ(nameAt(*s, t, 2, 60), "mark");  // a zero-length event covers its instant
  EXPECT_EQ(nameAt(*s, t, 2, 61), "-");
  EXPECT_EQ(nameAt(*s, t, 7, 17), "-");  // no such lane
}

TEST(Track, RangeQueriesReturnExactlyTheIntersectingEvents) {
  SessionPtr s = nestedSession();
  const Track& t = trackOf(*s, EventKind::Nvtx);
  EXPECT_EQ(t.countInRange(0, 1000), 6u);
  EXPECT_EQ(t.countInRange(41, 50), 1u);    // only outer
  EXPECT_EQ(t.countInRange(39, 51), 3u);    // outer, a, b
  EXPECT_EQ(t.countInRange(100, 200), 0u);  // the gap: [100, 200) touches neither
  EXPECT_EQ(t.countInRange(60, 61), 3u);    // outer, b, mark
  LaneSpan span = t.laneRange(1, 0, 1000);
  EXPECT_EQ(span.size(), 2u);
  EXPECT_EQ(s->str(t.hot.name[t.laneEvent(1, span.begin)]), "a");
}

TEST(Track, OverlappingStreamWorkGetsLanes) {
  SessionPtr s = nestedSession();
  const Track& t = trackOf(*s, EventKind::Kernel);
  EXPECT_EQ(t.laneCount(), 2u);
  EXPECT_EQ(nameAt(*s, t, 0, 45), "k0");
  EXPECT_EQ(nameAt(*s, t, 1, 45), "k1");
  EXPECT_EQ(nameAt(*s, t, 0, 85), "k2");  // lane 0 is free again after k0
  EXPECT_EQ(t.minStart(), 0);
  EXPECT_EQ(t.maxEnd(), 90);
}

TEST(Track, RangeQueryMatchesBruteForceOnRandomData) {
  SessionBuilder b;
  uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  uint64_t x = 12345;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull, x >> 33; };
  for (int i = 0; i < 5000; ++i) {
    TimeNs start = static_cast<TimeNs>(next() % 1'000'000);
    TimeNs len = static_cast<TimeNs>(next() % 3000);
    b.addRange(thread, start, start + len, b.intern("r"), {});
  }
  auto s = b.build();
  ASSERT_TRUE(s.ok()) << s.error();
  const Track& t = s.value()->tracks[0];
  for (int q = 0; q < 200; ++q) {
    TimeNs t0 = static_cast<TimeNs>(next() % 1'000'000),
           t1 = t0 + static_cast<TimeNs>(next() % 20000);
    size_t brute = 0;
    for (uint32_t i = 0; i < t.size(); ++i) brute += t.hot.start[i] < t1 && t.effectiveEnd(i) > t0;
    ASSERT_EQ(t.countInRange(t0, t1), brute) << "query " << t0 << ".." << t1;
  }
}

TEST(Track, FinalizeRejectsBrokenInvariants) {
  Track t;
  t.kind = EventKind::Api;
  t.hot.push({10, 20, 0, 0});
  t.apis.push({});
  t.hot.push({5, 30, 0, 1});
  t.apis.push({});
  Status unsorted = t.finalize();
  EXPECT_FALSE(unsorted.ok());
  EXPECT_NE(unsorted.error().find("not sorted"), std::string::npos);

  t.hot.start.set(1, 15);  // sorted now, but overlaps event 0 in lane 0
  t.hot.lane.set(1, 0);
  EXPECT_NE(t.finalize().error().find("overlaps"), std::string::npos);

  t.hot.lane.set(1, 1);
  EXPECT_TRUE(t.finalize().ok());
  t.apis.domain.set(0, static_cast<ApiDomain>(9));
  EXPECT_FALSE(t.finalize().ok());

  t.apis.domain.set(0, ApiDomain::Runtime);
  t.apis.correlation.pop_back();  // a short detail column
  EXPECT_FALSE(t.finalize().ok());
}

TEST(Track, HotColumnsStayWithinTheByteBudget) {
  EXPECT_LE(HotColumns::kRowBytes, 32u);
  EXPECT_EQ(HotColumns::kRowBytes, 22u);
}

}  // namespace ts

namespace ts {

// A kernel's launch configuration is kept once per distinct value: launches share it, rows give
// it back whole, and after the builder sorts the launches by time the configurations are numbered
// by first use — as a file read back numbers them, so equal sessions have equal columns.
TEST(KernelColumns, ConfigurationsSharedAndNumberedByFirstUse) {
  KernelDetail a, b;
  a.gridX = 864, a.blockX = 256, a.registersPerThread = 47, a.dynamicSharedMemory = 4096;
  a.reportedStats = kReportedOccupancy, a.estOccupancyX100 = 5000;
  b = a;
  b.gridX = 2;
  SessionBuilder builder;
  const uint32_t rank = builder.rank(0);
  const uint32_t stream = builder.stream(builder.device(rank, 0), 7);
  const StringId k = builder.intern("k");
  // Pushed out of time order: b at 300, a at 100, a again at 500 (its own correlation).
  b.correlation = 2;
  builder.addKernel(stream, 300, 400, k, b);
  a.correlation = 1;
  builder.addKernel(stream, 100, 200, k, a);
  a.correlation = 3;
  builder.addKernel(stream, 500, 600, k, a);
  auto s = builder.build();
  ASSERT_TRUE(s.ok()) << s.error();
  const Track* track = nullptr;
  for (const Track& t : (*s)->tracks) {
    if (t.kind == EventKind::Kernel) track = &t;
  }
  ASSERT_NE(track, nullptr);
  const KernelColumns& kc = track->kernels;
  ASSERT_EQ(kc.size(), 3u);
  EXPECT_EQ(kc.launches.size(), 2u);
  EXPECT_EQ(kc.launch, (std::vector<uint32_t>{0, 1, 0}));  // a first: it runs first
  EXPECT_EQ(kc.row(0).gridX, 864u);
  EXPECT_EQ(kc.row(1).gridX, 2u);
  EXPECT_EQ(kc.row(2).correlation, 3u);
  EXPECT_EQ(kc.row(2).estOccupancyX100, 5000u);
  EXPECT_EQ(kc.launchOf(2).dynamicSharedMemory, 4096u);
  // A file's rows read back: the same columns.
  const KernelColumns back = KernelColumns::fromFile(kc.toFile());
  EXPECT_EQ(back.launch, kc.launch);
  EXPECT_EQ(back.launches, kc.launches);
  EXPECT_EQ(back.correlation, kc.correlation);
  EXPECT_EQ(KernelColumns::kRowBytes, 24u);
}

}  // namespace ts
