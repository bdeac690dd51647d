// Timeline arithmetic without a screen: coordinate mapping, ruler, folding bounded by pixels,
// hit-testing, and the row layout.
#include <gtest/gtest.h>

#include "analysis/range_summary.h"
#include "session/session_builder.h"
#include "session_fixture.h"
#include "synth/synthetic_session.h"
#include "timeline/busy_index.h"
#include "timeline/lane_fold.h"
#include "timeline/row_arrangement.h"
#include "timeline/time_axis.h"
#include "timeline/timeline_rows.h"
#include "timeline/zoom_history.h"

namespace ts {

TEST(TimeAxis, MapsAndZoomsAroundTheCursor) {
  TimeAxis a;
  a.fit(1000, 2000, 100);  // 10 ns per pixel
  EXPECT_DOUBLE_EQ(a.nsPerPixel(), 10.0);
  EXPECT_EQ(a.timeAt(0), 1000);
  EXPECT_EQ(a.timeAt(50), 1500);
  EXPECT_DOUBLE_EQ(a.xOf(1500), 50.0);
  a.zoomAround(25, 2.0);  // the time under x = 25 stays there
  EXPECT_DOUBLE_EQ(a.nsPerPixel(), 5.0);
  EXPECT_EQ(a.timeAt(25), 1250);
  a.panPixels(10);
  EXPECT_EQ(a.timeAt(25), 1300);
  a.zoomAround(0, 1e9);  // clamped: at most 100 px per ns
  EXPECT_DOUBLE_EQ(a.nsPerPixel(), 0.01);
}

TEST(TimeAxis, RulerStepsAndUnits) {
  EXPECT_EQ(rulerStep(1.0, 80), 100);          // 80 ns minimum → 100 ns
  EXPECT_EQ(rulerStep(30.0, 80), 5000);        // 2.4 µs → 5 µs
  EXPECT_EQ(rulerStep(1e6, 80), 100'000'000);  // 80 ms → 100 ms
  TimeAxis a(1'000'000, 25'000.0);             // 25 µs per pixel
  auto ticks = rulerTicks(a, 400, 80, 1'000'000);
  ASSERT_GE(ticks.size(), 4u);
  EXPECT_EQ(ticks[0].label, "0 ms");
  EXPECT_EQ(ticks[1].label, "2 ms");
  EXPECT_EQ(ticks[1].time - ticks[0].time, 2'000'000);
  // Deep in a long session: the unit follows the time, the decimals the step.
  TimeAxis deep(30'542'400'000, 1'000.0);  // 30.5424 s, 1 µs per pixel → 100 µs steps
  auto far = rulerTicks(deep, 400, 80, 0);
  ASSERT_GE(far.size(), 2u);
  EXPECT_EQ(far[0].label, "30.5424 s");
  EXPECT_EQ(far[1].label, "30.5425 s");
}

namespace {
// One lane of `n` back-to-back events of `len` ns with `gap` ns between them.
SessionPtr laneOf(uint32_t n, TimeNs len, TimeNs gap) {
  SessionBuilder b;
  uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  StringId name = b.intern("e");
  for (uint32_t i = 0; i < n; ++i) {
    TimeNs start = i * (len + gap);
    b.addApi(thread, start, start + len, name, {});
  }
  auto s = b.build();
  EXPECT_TRUE(s.ok());
  return s.value();
}
}  // namespace

TEST(LaneFold, WideEventsAreBoxesNarrowOnesFoldIntoCountedRuns) {
  SessionPtr s = laneOf(1000, 10, 0);  // [0, 10000) in 10 ns events
  LaneView v{&s->tracks[0], 0, nullptr};
  LaneDraw d;
  TimeAxis zoomedIn(0, 1.0);  // 10 px per event
  foldLane(v, zoomedIn, 200, 3, d);
  EXPECT_EQ(d.boxes.size(), 20u);
  EXPECT_TRUE(d.runs.empty());
  EXPECT_DOUBLE_EQ(d.boxes[3].x0, 30.0);

  d.clear();
  TimeAxis zoomedOut(0, 100.0);  // 0.1 px per event: everything folds
  foldLane(v, zoomedOut, 1000, 3, d);
  EXPECT_TRUE(d.boxes.empty());
  ASSERT_EQ(d.runs.size(), 1u);  // adjacent columns merge into one run
  EXPECT_EQ(d.runs[0].count, 1000u);
  EXPECT_LE(d.steps, 101u);  // one step per pixel column, not per event
}

TEST(LaneFold, WorkIsBoundedByPixelsNotEvents) {
  SessionPtr big = laneOf(1'000'000, 10, 5);
  LaneView v{&big->tracks[0], 0, nullptr};
  TimeAxis a;
  a.fit(0, 15'000'000, 1920);
  LaneDraw d;
  foldLane(v, a, 1920, 3, d);
  EXPECT_LE(d.steps, 1921u);
  size_t counted = 0;
  for (const DrawRun& r : d.runs) counted += r.count;
  EXPECT_EQ(counted + d.boxes.size(), 1'000'000u);  // every event is in a box or a run

  // With its summary (three levels) the lane's 520 events per pixel column fold a level-2 block
  // (262 144 events) a step: a handful of steps, where one level of blocks took 15 625.
  LaneSummary summary = summarizeLane(v);
  ASSERT_EQ(summary.levels.size(), 3u);
  LaneView summarized = v;
  summarized.summary = &summary;
  LaneDraw c;
  foldLane(summarized, a, 1920, 3, c);
  EXPECT_LE(c.steps, 20u);
  ASSERT_EQ(c.runs.size(), 1u);
  EXPECT_EQ(c.runs[0].count, 1'000'000u);
}

// Block summaries change how fast folding is, never what it draws' totals or its boxes.
TEST(LaneFold, BlockSummariesKeepTheResultAndCutTheWork) {
  SessionBuilder b;
  uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  StringId name = b.intern("e");
  uint64_t x = 7;
  TimeNs at = 0;
  for (int i = 0; i < 300'000; ++i) {  // three levels of blocks
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    TimeNs len = (x >> 60) == 0 ? 200'000 : static_cast<TimeNs>((x >> 33) % 50);  // a few long ones
    TimeNs gap = (x >> 58) == 1 ? 300'000 : static_cast<TimeNs>((x >> 40) % 20);  // a few wide gaps
    b.addApi(thread, at, at + len, name, {});
    at += len + gap;
  }
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  LaneView plain{&(*s)->tracks[0], 0, nullptr, nullptr};
  LaneSummary summary = summarizeLane(plain);
  ASSERT_EQ(summary.levels.size(), 3u);
  LaneView summarized = plain;
  summarized.summary = &summary;
  for (double nsPerPixel : {1.0, 50.0, 5'000.0, 500'000.0, 5'000'000.0}) {
    for (TimeNs start : {TimeNs{0}, at / 3}) {
      SCOPED_TRACE(nsPerPixel);
      TimeAxis axis(start, nsPerPixel);
      LaneDraw a, c;
      foldLane(plain, axis, 1900, 3, a);
      foldLane(summarized, axis, 1900, 3, c);
      ASSERT_EQ(a.boxes.size(), c.boxes.size());
      for (size_t i = 0; i < a.boxes.size(); ++i) ASSERT_EQ(a.boxes[i].event, c.boxes[i].event);
      size_t na = 0, nc = 0;
      for (const DrawRun& r : a.runs) na += r.count;
      for (const DrawRun& r : c.runs) nc += r.count;
      EXPECT_EQ(na, nc);
      // Zoomed in, a fold's blocks end out of view or hold boxes: one failed look each, at most
      // doubling the few steps. Zoomed out, a block (or 4 k, or 262 k events) a step.
      if (nsPerPixel < 500'000)
        EXPECT_LE(c.steps, 2 * a.steps);
      else
        EXPECT_LE(c.steps * 10, a.steps);
    }
  }
}

TEST(LaneFold, AWideEventAfterTinyOnesIsStillABox) {
  SessionBuilder b;
  uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  StringId name = b.intern("e");
  b.addApi(thread, 0, 1, name, {});
  b.addApi(thread, 2, 3, name, {});
  b.addApi(thread, 4, 5000, name, {});  // starts in the same pixel, 50 px wide
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  LaneDraw d;
  foldLane({&(*s)->tracks[0], 0, nullptr}, TimeAxis(0, 100.0), 100, 3, d);
  ASSERT_EQ(d.runs.size(), 1u);
  EXPECT_EQ(d.runs[0].count, 2u);
  ASSERT_EQ(d.boxes.size(), 1u);
  EXPECT_EQ(d.boxes[0].event, 2u);
}

TEST(LaneFold, RunsOfViewsSharingALaneMergeColouredByTheLargest) {
  // Two streams' runs on one Compute lane, given out of order: the two that touch merge (their
  // counts add, the colour of the bigger one wins), the far one stays on its own.
  std::vector<ColouredRun> runs = {{10, 20, 3, 0xff0000ffu},   // stream A
                                   {50, 60, 1, 0xffff0000u},   // stream A, far away
                                   {21, 30, 7, 0xff00ff00u}};  // stream B, 1 px after A's first
  mergeLaneRuns(runs);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].x0, 10);
  EXPECT_EQ(runs[0].x1, 30);
  EXPECT_EQ(runs[0].count, 10u);
  EXPECT_EQ(runs[0].colour, 0xff00ff00u);  // stream B has most of its events
  EXPECT_EQ(runs[1].count, 1u);
  EXPECT_EQ(runs[1].colour, 0xffff0000u);
  // A gap of kRunGapPx or more keeps runs apart; nothing to merge is no change.
  runs = {{0, 10, 1, 1}, {10 + kRunGapPx, 20, 1, 2}};
  mergeLaneRuns(runs);
  EXPECT_EQ(runs.size(), 2u);
  runs.clear();
  mergeLaneRuns(runs);
  EXPECT_TRUE(runs.empty());
}

TEST(ZoomHistory, BackAndForwardLikeABrowser) {
  auto axis = [](TimeNs start) {
    TimeAxis a;
    a.fit(start, start + 1000, 100);
    return a;
  };
  ZoomHistory h;
  EXPECT_FALSE(h.back(axis(0)));  // nothing yet
  h.push(axis(0));                // 0 → 1000
  h.push(axis(1000));             // 1000 → 2000
  auto b = h.back(axis(2000));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->start(), 1000);
  b = h.back(*b);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->start(), 0);
  EXPECT_FALSE(h.canGoBack());
  auto f = h.forward(*b);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->start(), 1000);
  h.push(*f);  // a new view forgets the way forward
  EXPECT_FALSE(h.canGoForward());
  for (int i = 0; i < 1000; ++i) h.push(axis(i));  // bounded
  int steps = 0;
  TimeAxis at = axis(5);
  while (auto prev = h.back(at)) {
    at = *prev;
    ++steps;
  }
  EXPECT_EQ(steps, static_cast<int>(ZoomHistory::kLimit));
}

TEST(LaneFold, PickFindsTheEventUnderTheCursorOrTheNearest) {
  SessionPtr s = laneOf(10, 100, 100);  // events at 0, 200, 400, ... each 100 ns
  LaneView v{&s->tracks[0], 0, nullptr};
  TimeAxis a(0, 10.0);  // 10 ns per pixel: events are 10 px wide, 10 px apart
  EXPECT_EQ(pickLane(v, a, 5, 2), 0u);
  EXPECT_EQ(pickLane(v, a, 25, 2), 1u);
  EXPECT_EQ(pickLane(v, a, 15, 2), kNone);  // in a gap, 5 px from both
  EXPECT_EQ(pickLane(v, a, 19, 2), 1u);     // 1 px before event 1
  Column<uint32_t> odd = {1, 3, 5};
  LaneView subset{&s->tracks[0], 0, &odd};
  EXPECT_EQ(pickLane(subset, a, 5, 2), kNone);  // event 0 is not in the subset
  EXPECT_EQ(pickLane(subset, a, 65, 2), 3u);
}

TEST(TimelineRows, NsightLayoutOfTheFixture) {
  TimelineRows rows(testing::makeFixtureSession());
  std::vector<std::string> labels;
  for (const TimelineRow& r : rows.rows())
    labels.push_back(std::string(r.depth * 2, ' ') + r.label);
  std::vector<std::string> want = {"GPU 0: NVIDIA A100-SXM4-40GB",
                                   "  Compute",
                                   "    57.1 % kernel(float*)",
                                   "    42.9 % sgemm_128x64",
                                   "  Stream 7: compute",
                                   "  Stream 13",
                                   "  Memcpy HtoD",
                                   "  Memset",
                                   "  GPU memory used (bytes)",
                                   "GPU 1: NVIDIA A100-SXM4-40GB",
                                   "  Stream 20",
                                   "  Memcpy PtoP",
                                   "python (100)",
                                   "  Thread 100: MainThread",
                                   "    CUDA API",
                                   "    NVTX",
                                   "    Python stack",  // the fixture's python_function range
                                   "  CPU utilization (%)"};
  EXPECT_EQ(labels, want);
  EXPECT_EQ(rows[1].events, 2u);    // both kernels on Compute
  EXPECT_TRUE(rows[1].expandable);  // into one row per kernel name, by time
  EXPECT_EQ(rows[2].events, 1u);
  EXPECT_EQ(rows[4].lanes.size(), 2u);   // stream 7: kernels, then its annotation range
  EXPECT_EQ(rows[15].lanes.size(), 3u);  // NVTX nesting depth 3
  EXPECT_TRUE(rows[8].kind == TimelineRow::Kind::Counter);
}

// A thread's annotation row says what it holds: PyTorch's CPU ops, its annotations, NVTX.
TEST(TimelineRows, AnnotationRowsAreNamedByWhatTheyHold) {
  auto rowsOf = [](std::vector<std::string> domains) {
    SessionBuilder b;
    const uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
    TimeNs t = 0;
    for (const std::string& d : domains) {
      b.addNvtx(thread, t, t + 10, b.intern("op"), {b.intern(d), 0, 0});
      t += 20;
    }
    auto s = b.build();
    EXPECT_TRUE(s.ok());
    std::vector<std::string> labels;
    const TimelineRows rows(*s);
    for (const TimelineRow& r : rows.rows()) {
      if (r.kind == TimelineRow::Kind::Nvtx) labels.push_back(r.label);
    }
    return labels;
  };
  EXPECT_EQ(rowsOf({"cpu_op", "cpu_op"}), std::vector<std::string>{"CPU ops"});
  EXPECT_EQ(rowsOf({"Operator", "user_annotation"}),
            std::vector<std::string>{"CPU ops + annotations"});
  EXPECT_EQ(rowsOf({"user_annotation"}), std::vector<std::string>{"Annotations"});
  EXPECT_EQ(rowsOf({"NVTX", "cpu_op"}), std::vector<std::string>{"CPU ops + NVTX"});
  EXPECT_EQ(rowsOf({"instant", "cpu_op", "user_annotation"}),
            std::vector<std::string>{"CPU ops, annotations + marks"});
  EXPECT_EQ(rowsOf({"my-domain"}), std::vector<std::string>{"NVTX"});
}

TEST(TimelineRows, CopyRowsHoldOnlyTheirKind) {
  auto s = generateSyntheticSession({20'000, 2, 2, 3});
  ASSERT_TRUE(s.ok());
  TimelineRows rows(s.value());
  for (const TimelineRow& r : rows.rows()) {
    if (r.kind != TimelineRow::Kind::Copy) continue;
    for (const LaneView& v : r.lanes[0]) {
      for (uint32_t p = 0; p < v.size(); ++p) {
        ASSERT_EQ(static_cast<int>(v.track->memcpys.copyKind[v.event(p)]), r.copyKind);
      }
    }
  }
}

}  // namespace ts

namespace ts {

TEST(RangeSummary, KernelsBusyTimeAndCopies) {
  SessionBuilder b;
  uint32_t dev = b.device(b.rank(0), 0);
  uint32_t s1 = b.stream(dev, 1), s2 = b.stream(dev, 2);
  KernelDetail k{};
  b.addKernel(s1, 0, 100, b.intern("a"), k);
  b.addKernel(s2, 50, 150, b.intern("b"), k);  // overlaps a: busy counts the union
  b.addKernel(s1, 300, 400, b.intern("c"), k);
  MemcpyDetail m{};
  m.copyKind = CopyKind::HtoD;
  m.bytes = 1000;
  b.addMemcpy(s2, 200, 250, b.intern("Memcpy HtoD"), m);
  m.copyKind = CopyKind::DtoH;
  m.bytes = 7;
  b.addMemcpy(s2, 450, 460, b.intern("Memcpy DtoH"), m);
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  RangeSummary r = summarizeRange(**s, 0, 400);
  EXPECT_EQ(r.kernels, 3u);
  EXPECT_DOUBLE_EQ(r.gpuBusy[0], 250.0 / 400.0);  // [0,150) and [300,400)
  EXPECT_EQ(r.copyBytes[static_cast<size_t>(CopyKind::HtoD)], 1000u);
  EXPECT_EQ(r.copyBytes[static_cast<size_t>(CopyKind::DtoH)], 0u);  // starts after the range
  RangeSummary part = summarizeRange(**s, 120, 320);
  EXPECT_EQ(part.kernels, 2u);
  EXPECT_DOUBLE_EQ(part.gpuBusy[0], 50.0 / 200.0);  // [120,150) and [300,320)

  // The GPU's header row carries its busy index: the same union, any stretch by two searches.
  TimelineRows rows(*s);
  const BusyIndex* busy = rows[0].busy;
  ASSERT_NE(busy, nullptr);
  EXPECT_EQ(rows[0].kind, TimelineRow::Kind::Group);
  ASSERT_EQ(busy->start.size(), 2u);  // [0,150) and [300,400)
  EXPECT_EQ(busy->end[0], 150);
  EXPECT_EQ(busy->busyIn(0, 400), 250);
  EXPECT_EQ(busy->busyIn(120, 320), 50);
  EXPECT_EQ(busy->busyIn(150, 300), 0);
  EXPECT_EQ(busy->busyIn(-50, 1000), 250);
  // Per pixel column at 50 ns / px: [0,50) busy, …, [150,200) idle, [350,400) busy.
  std::vector<float> columns;
  foldBusy(*busy, TimeAxis(0, 50.0), 10, columns);
  ASSERT_EQ(columns.size(), 10u);
  EXPECT_FLOAT_EQ(columns[0], 1.0f);
  EXPECT_FLOAT_EQ(columns[2], 1.0f);
  EXPECT_FLOAT_EQ(columns[3], 0.0f);
  EXPECT_FLOAT_EQ(columns[7], 1.0f);
  EXPECT_FLOAT_EQ(columns[8], 0.0f);
  foldBusy(*busy, TimeAxis(0, 400.0), 2, columns);  // zoomed out: the share, not a max
  EXPECT_FLOAT_EQ(columns[0], 250.0f / 400.0f);
}

}  // namespace ts

#include "analysis/event_search.h"

namespace ts {

TEST(EventSearch, SubstringRegexAndWrapAround) {
  SessionPtr s = testing::makeFixtureSession();
  auto hits = findEvents(*s, "LAUNCH", false);  // case-insensitive substring
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 2u);  // cudaLaunchKernel, cuLaunchKernel
  EXPECT_LT((*hits)[0].start, (*hits)[1].start);
  auto re = findEvents(*s, "^(sgemm|kernel)", true);
  ASSERT_TRUE(re.ok());
  EXPECT_EQ(re->size(), 2u);
  EXPECT_FALSE(findEvents(*s, "([unclosed", true).ok());
  EXPECT_TRUE(findEvents(*s, "", false)->empty());
  // Next after the last wraps to the first; previous before the first wraps to the last.
  EXPECT_EQ(nextHit(*hits, (*hits)[0].start, false), 1u);
  EXPECT_EQ(nextHit(*hits, (*hits)[1].start, false), 0u);
  EXPECT_EQ(nextHit(*hits, (*hits)[0].start, true), 1u);
  EXPECT_EQ(nextHit({}, 0, false), static_cast<size_t>(kNone));
}

}  // namespace ts

#include "timeline/counter_fold.h"

namespace ts {

TEST(CounterCeiling, ScaledToTheDataUnlessThePeakNearsTheCapacity) {
  CounterSummary small;
  small.max = 1.75 * (1 << 30);  // a 1.75 GiB peak in 128 GiB of host memory
  const double host = 128.0 * (1 << 30);
  EXPECT_DOUBLE_EQ(counterCeiling(small, host), small.max * 1.1);  // the shape shows
  EXPECT_LT(counterCeiling(small, host), host);                    // so no capacity line
  CounterSummary near;
  near.max = 30.0 * (1 << 30);  // 30 of 31.7 GiB: the headroom is the point
  EXPECT_DOUBLE_EQ(counterCeiling(near, 31.7 * (1 << 30)), 31.7 * (1 << 30));
  CounterSummary over;
  over.max = 50;
  EXPECT_DOUBLE_EQ(counterCeiling(over, 40), 50);  // over capacity: the peak is the top
  CounterSummary empty;
  // Nothing used: a flat row, no capacity line along its top (it read as a full tier).
  EXPECT_DOUBLE_EQ(counterCeiling(empty, host), 1.0);
  EXPECT_LT(counterCeiling(empty, host), host);
  EXPECT_DOUBLE_EQ(counterCeiling(empty, 0), 1.0);
  EXPECT_DOUBLE_EQ(counterCeiling(over, 0), 55);  // no capacity: the data and a margin
}

TEST(CounterFold, MinMaxPerPixelFromBlocks) {
  SessionBuilder b;
  uint32_t device = b.device(b.rank(0), 0);
  for (int i = 0; i < 10'000; ++i) {
    b.addCounterSample("mem", "B", device, kNone, i * 10,
                       i == 5000 ? 1e6 : static_cast<double>(i % 100));
  }
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  const CounterTrack& c = (*s)->counters[0];
  CounterSummary summary = summarizeCounter(c);
  EXPECT_DOUBLE_EQ(summary.max, 1e6);
  EXPECT_DOUBLE_EQ(summary.min, 0);
  std::vector<CounterColumn> cols;
  foldCounter(c, summary, TimeAxis(0, 1000.0), 200, cols);  // 100 samples per pixel column
  ASSERT_EQ(cols.size(), 100u);  // the counter ends at 100 µs: column 99
  EXPECT_DOUBLE_EQ(cols[10].max, 99);
  EXPECT_DOUBLE_EQ(cols[50].max, 1e6);  // the spike is not lost when folding
  EXPECT_DOUBLE_EQ(cols[50].min, 1);    // samples 5000-5099: the spike, then 1 to 99
  foldCounter(c, summary, TimeAxis(50'000, 1.0), 20, cols);  // zoomed in: held values
  ASSERT_EQ(cols.size(), 20u);
  EXPECT_DOUBLE_EQ(cols[0].max, 1e6);   // sample 5000 at 50 µs holds for 10 ns
  EXPECT_DOUBLE_EQ(cols[15].max, 1.0);  // then sample 5001
}

}  // namespace ts

#include "timeline/overview.h"

namespace ts {

TEST(Overview, GpuBusyShareAndCpuActivityPerColumn) {
  SessionBuilder b;
  uint32_t dev = b.device(b.rank(0), 0);
  uint32_t s1 = b.stream(dev, 1);
  KernelDetail k{};
  b.addKernel(s1, 0, 100, b.intern("a"), k);
  b.addKernel(s1, 300, 400, b.intern("b"), k);
  uint32_t th = b.thread(b.process(b.rank(0), 7), 7);
  ApiDetail api{};
  for (TimeNs t : {10, 20, 30, 210})  // three calls in the first column, one in the third
    b.addApi(th, t, t + 5, b.intern("cudaLaunchKernel"), api);
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  TimelineRows rows(*s);
  std::vector<OverviewLane> lanes = foldOverview(rows, TimeAxis(0, 100.0), 4);
  ASSERT_EQ(lanes.size(), 2u);
  EXPECT_EQ(lanes[0].kind, OverviewLane::Kind::Gpu);
  EXPECT_EQ(lanes[0].label, "GPU 0");
  EXPECT_EQ(lanes[0].values, (std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f}));
  EXPECT_EQ(lanes[1].kind, OverviewLane::Kind::Cpu);
  EXPECT_EQ(lanes[1].counts, (std::vector<uint32_t>{3, 0, 1, 0}));
  EXPECT_FLOAT_EQ(lanes[1].values[2], 1.0f / 3.0f);
  EXPECT_TRUE(foldOverview(rows, TimeAxis(0, 100.0), 0).empty());
  EXPECT_EQ(overviewLaneCount(rows), lanes.size());  // the strip's height, without a fold
}

TEST(Overview, ManyGpusFoldIntoOneMeanLane) {
  SessionBuilder b;
  KernelDetail k{};
  const uint32_t rank = b.rank(0);
  for (int g = 0; g < 6; ++g) {  // GPU g busy for the first g * 10 ns of [0, 100)
    uint32_t s = b.stream(b.device(rank, g), 1);
    if (g > 0) b.addKernel(s, 0, g * 10, b.intern("k"), k);
  }
  auto s = b.build();
  ASSERT_TRUE(s.ok());
  TimelineRows rows(*s);
  std::vector<OverviewLane> lanes = foldOverview(rows, TimeAxis(0, 100.0), 1);
  ASSERT_EQ(lanes.size(), 1u);  // no CPU threads: no CPU lane; GPU 0 ran nothing: not counted
  EXPECT_EQ(lanes[0].label, "5 GPUs (mean)");
  EXPECT_EQ(overviewLaneCount(rows), 1u);
  EXPECT_FLOAT_EQ(lanes[0].values[0], (0.1f + 0.2f + 0.3f + 0.4f + 0.5f) / 5.0f);
}

// Rows are known by their path, so an arrangement saved on one layout applies to the next:
// saved rows in their saved places, new rows after them in their own order, a gone row
// forgotten, hidden rows hidden.
TEST(RowArrangement, SurvivesRowsAddedAndGone) {
  SessionPtr s = testing::makeFixtureSession();
  ASSERT_TRUE(s);
  TimelineRows rows(s);
  const std::vector<std::string> paths = rowPaths(rows);
  ASSERT_GE(paths.size(), 4u);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].depth > 0) {
      EXPECT_NE(paths[i].find('/'), std::string::npos) << paths[i];
    }
    EXPECT_EQ(paths[i].substr(paths[i].rfind('/') + 1), rows[i].label);
  }
  // The user moved the last row first and hid the second.
  std::vector<size_t> order(paths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = (i + order.size() - 1) % order.size();
  std::vector<bool> hidden(paths.size(), false);
  hidden[1] = true;
  const RowArrangement saved = savedArrangement(paths, order, hidden);
  EXPECT_EQ(saved.order.front(), paths.back());
  EXPECT_EQ(saved.hidden, std::vector<std::string>{paths[1]});

  // Reopened: the same rows come back as arranged.
  std::vector<size_t> order2;
  std::vector<bool> hidden2;
  applyArrangement(saved, paths, order2, hidden2);
  EXPECT_EQ(order2, order);
  EXPECT_EQ(hidden2, hidden);

  // A layout with a new row (inserted at 2) and without the old row 3.
  std::vector<std::string> next = paths;
  next.erase(next.begin() + 3);
  next.insert(next.begin() + 2, "GPU 9/New row");
  applyArrangement(saved, next, order2, hidden2);
  ASSERT_EQ(order2.size(), next.size());
  EXPECT_EQ(next[order2.front()], paths.back());    // saved first, still first
  EXPECT_EQ(next[order2.back()], "GPU 9/New row");  // unsaved: after the saved ones
  EXPECT_TRUE(hidden2[1]);                          // still hidden
  EXPECT_FALSE(hidden2[2]);                         // the new row is shown
  std::vector<size_t> sorted = order2;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i);  // a permutation
}

}  // namespace ts
