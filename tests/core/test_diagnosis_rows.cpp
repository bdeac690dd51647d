// The diagnosis drawn on the timeline (timeline/diagnosis_rows.h), on a hand-built session whose
// steps, gaps and queue are worked out in the comments.
#include <gtest/gtest.h>

#include <algorithm>

#include "session/session_builder.h"
#include "timeline/diagnosis_rows.h"

namespace ts {
namespace {

// One GPU, streams 7 and 8, one CPU thread; two profiler steps.
//  step 1 [0, 1000): launch [10, 20) → s7 [100, 300); launch [400, 410) → s7 [500, 600)
//  step 2 [1000, 2000): launch [1010, 1015) → s8 [1100, 1200); launch [1020, 1025) → s7
//  [1200, 1300)
// Stream 7's gaps: [300, 500) and [600, 1200), both host wait (the next launch started after the
// previous kernel ended). Stream 8 has one kernel: no gap.
SessionPtr twoSteps() {
  SessionBuilder b;
  const uint32_t rank = b.rank(0), dev = b.device(rank, 0);
  const uint32_t th = b.thread(b.process(rank, 1), 1);
  const uint32_t s7 = b.stream(dev, 7), s8 = b.stream(dev, 8);
  uint32_t corr = 0;
  auto launch = [&](TimeNs at, TimeNs callEnd, uint32_t stream, TimeNs s, TimeNs e) {
    ApiDetail a;
    a.correlation = ++corr;
    b.addApi(th, at, callEnd, b.intern("cudaLaunchKernel"), a);
    KernelDetail k;
    k.correlation = corr;
    b.addKernel(stream, s, e, b.intern(stream == s7 ? "gemm" : "relu"), k);
  };
  b.addRange(th, 0, 1000, b.intern("ProfilerStep#1"), {b.intern("user_annotation"), 0});
  b.addRange(th, 1000, 2000, b.intern("ProfilerStep#2"), {b.intern("user_annotation"), 0});
  launch(10, 20, s7, 100, 300);
  launch(400, 410, s7, 500, 600);
  launch(1010, 1015, s8, 1100, 1200);
  launch(1020, 1025, s7, 1200, 1300);
  auto built = b.build();
  EXPECT_TRUE(built.ok()) << (built.ok() ? "" : built.error());
  return built.ok() ? *built : nullptr;
}

const TimelineRow* rowNamed(const TimelineRows& rows, std::string_view label, size_t from = 0) {
  for (size_t i = from; i < rows.size(); ++i) {
    if (rows[i].label == label) return &rows[i];
  }
  return nullptr;
}

size_t indexOf(const TimelineRows& rows, std::string_view label) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].label == label) return i;
  }
  return rows.size();
}

std::vector<std::pair<TimeNs, TimeNs>> spans(const Track& t) {
  std::vector<std::pair<TimeNs, TimeNs>> out;
  for (uint32_t e = 0; e < t.size(); ++e) out.emplace_back(t.hot.start[e], t.hot.end[e]);
  return out;
}

struct Drawn {
  SessionPtr run;
  Diagnosis diagnosis;
  DiagnosisRows rows;
};

Drawn draw(const SessionPtr& run, const SessionPtr& base = nullptr,
           std::shared_ptr<const TimelineOverlay> layout = nullptr) {
  Drawn d{run, {}, {}};
  auto diag = diagnose(*run, {});
  EXPECT_TRUE(diag.ok());
  if (!diag.ok()) return d;
  d.diagnosis = *diag;
  LaunchIndex launches(*run);
  auto rows = buildDiagnosisRows(base ? base : run, layout, d.diagnosis, launches);
  EXPECT_TRUE(rows.ok()) << (rows.ok() ? "" : rows.error());
  if (rows.ok()) d.rows = *rows;
  return d;
}

TEST(DiagnosisRows, StepsAboveComputeProjectedOntoTheGpu) {
  Drawn d = draw(twoSteps());
  ASSERT_TRUE(d.rows.rows);
  const TimelineRows& rows = *d.rows.rows;
  // Right under the GPU's header, before Compute.
  const size_t gpu = indexOf(rows, "GPU 0"), steps = indexOf(rows, "Steps");
  ASSERT_LT(steps, rows.size());
  EXPECT_EQ(steps, gpu + 1);
  EXPECT_EQ(rows[steps + 1].label, "Compute");
  EXPECT_EQ(rows[steps].kind, TimelineRow::Kind::Extension);
  EXPECT_EQ(rows[steps].extension, kStepsRow);
  ASSERT_EQ(rows[steps].lanes.size(), 1u);
  ASSERT_EQ(rows[steps].lanes[0].size(), 1u);
  const Track& t = *rows[steps].lanes[0][0].track;
  // Step 1's kernels ran [100, 600), step 2's [1100, 1300): the projection, not the CPU range.
  EXPECT_EQ(spans(t), (std::vector<std::pair<TimeNs, TimeNs>>{{100, 600}, {1100, 1300}}));
  EXPECT_EQ(d.rows.session->str(t.hot.name[0]), "ProfilerStep#1");
  EXPECT_EQ(d.rows.session->str(t.ranges.category[0]), kStepCategory);
  // The tooltip's text: the step's time and its busy share (kernels 200 + 100 of 1000 ns).
  const std::string_view text = d.rows.session->str(t.ranges.args[0]);
  EXPECT_NE(text.find("step time 1 µs"), std::string_view::npos) << text;
  // Busy 300 of its GPU time: from its start (0, the rank's first step) to its GPU end (600).
  EXPECT_NE(text.find("GPU busy 300 ns of its GPU time 600 ns (50 %)"), std::string_view::npos)
      << text;
  // Step 1 waited for the host once on stream 7 ([300, 500)); [600, 1200) is step 2's.
  EXPECT_NE(text.find("host wait 200 ns"), std::string_view::npos) << text;
  EXPECT_EQ(d.rows.steps, 2u);
  // Drawn by the Steps row only: not again as a range row of its own.
  EXPECT_TRUE(d.rows.layout->ownsTrack[static_cast<size_t>(rows[steps].lanes[0][0].track -
                                                           d.rows.session->tracks.data())]);
}

TEST(DiagnosisRows, IdleGapsColouredByCauseInTheirStreamsRow) {
  Drawn d = draw(twoSteps());
  ASSERT_TRUE(d.rows.rows);
  const TimelineRows& rows = *d.rows.rows;
  const Session& s = *d.rows.session;
  const TimelineRow* s7 = nullptr;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].kind == TimelineRow::Kind::Stream && rows[i].label.find('7') != std::string::npos)
      s7 = &rows[i];
  }
  ASSERT_NE(s7, nullptr);
  // Its kernels on lane 0, its gaps on the lane under them.
  ASSERT_EQ(s7->lanes.size(), 2u);
  ASSERT_EQ(s7->lanes[1].size(), 1u);
  const Track& gaps = *s7->lanes[1][0].track;
  EXPECT_EQ(gaps.kind, EventKind::Range);
  EXPECT_EQ(spans(gaps), (std::vector<std::pair<TimeNs, TimeNs>>{{300, 500}, {600, 1200}}));
  EXPECT_EQ(s.str(gaps.hot.name[0]), idleCategory(IdleCause::HostWait));
  EXPECT_EQ(s.str(gaps.ranges.args[1]), "before gemm");
  EXPECT_EQ(d.rows.layout->styleOf(gaps.ranges.category[0]), EventStyle::IdleHostWait);
  EXPECT_EQ(d.rows.gaps, 2u);
  // Stream 8's row holds its kernel only.
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].kind == TimelineRow::Kind::Stream && rows[i].label.find('8') != std::string::npos) {
      EXPECT_EQ(rows[i].lanes.size(), 1u);
    }
  }
}

TEST(DiagnosisRows, QueueDepthPerGpuAndPerStream) {
  Drawn d = draw(twoSteps());
  ASSERT_TRUE(d.rows.rows);
  const TimelineRows& rows = *d.rows.rows;
  const size_t all = indexOf(rows, kQueueDepthRow);
  ASSERT_LT(all, rows.size());
  const TimelineRow& gpu = rows[all];
  EXPECT_EQ(gpu.kind, TimelineRow::Kind::Counter);
  EXPECT_TRUE(gpu.expandable);
  EXPECT_TRUE(gpu.startsCollapsed);
  ASSERT_NE(gpu.counter, nullptr);
  // +1 at each launch's start, −1 at each kernel's end, both streams:
  // 1 at 10, 0 at 300, 1 at 400, 0 at 600, 1 at 1010, 2 at 1020, 1 at 1200, 0 at 1300.
  std::vector<std::pair<TimeNs, double>> got;
  for (size_t i = 0; i < gpu.counter->size(); ++i)
    got.emplace_back(gpu.counter->samples.time[i], gpu.counter->samples.value[i]);
  EXPECT_EQ(
      got, (std::vector<std::pair<TimeNs, double>>{
               {10, 1}, {300, 0}, {400, 1}, {600, 0}, {1010, 1}, {1020, 2}, {1200, 1}, {1300, 0}}));
  // One row per stream under it, deeper.
  ASSERT_LT(all + 2, rows.size());
  EXPECT_EQ(rows[all + 1].depth, gpu.depth + 1);
  EXPECT_EQ(rows[all + 2].depth, gpu.depth + 1);
  EXPECT_EQ(rows[all + 2].counter->size(), 2u);  // stream 8: 1 at 1010, 0 at 1200
  EXPECT_EQ(d.rows.queues, 3u);
  // The counters are the rows', not the GPU's ordinary counter rows as well.
  size_t named = 0;
  for (size_t i = 0; i < rows.size(); ++i) named += rows[i].counter == gpu.counter;
  EXPECT_EQ(named, 1u);
}

TEST(DiagnosisRows, KeepTheRowsOfTheBaseTheyAreDrawnOver) {
  // Drawn over a session that already carries another module's rows (here: the diagnosis's
  // own), both sets are kept, the tracks of the base at their indices.
  Drawn first = draw(twoSteps());
  ASSERT_TRUE(first.rows.rows);
  Drawn second = draw(first.run, first.rows.session, first.rows.layout);
  ASSERT_TRUE(second.rows.rows);
  const TimelineRows& rows = *second.rows.rows;
  size_t steps = 0;
  for (size_t i = 0; i < rows.size(); ++i) steps += rows[i].label == "Steps";
  EXPECT_EQ(steps, 2u);
  EXPECT_GT(second.rows.session->tracks.size(), first.rows.session->tracks.size());
  for (size_t t = 0; t < first.rows.session->tracks.size(); ++t)
    EXPECT_EQ(second.rows.layout->ownsTrack[t], first.rows.layout->ownsTrack[t]) << t;
}

TEST(DiagnosisRows, ATraceWithoutLaunchesDrawsUnknownGapsAndNoQueue) {
  SessionBuilder b;
  const uint32_t rank = b.rank(0), dev = b.device(rank, 0), st = b.stream(dev, 7);
  b.addKernel(st, 0, 100, b.intern("gemm"), {});
  b.addKernel(st, 300, 400, b.intern("gemm"), {});
  auto built = b.build();
  ASSERT_TRUE(built.ok());
  Drawn d = draw(*built);
  ASSERT_TRUE(d.rows.rows);
  EXPECT_EQ(d.rows.steps, 0u);   // no steps marked, no kernels repeated twice
  EXPECT_EQ(d.rows.queues, 0u);  // no launch known: no queue to draw
  ASSERT_EQ(d.rows.gaps, 1u);
  const TimelineRows& rows = *d.rows.rows;
  EXPECT_EQ(rowNamed(rows, "Steps"), nullptr);
  EXPECT_EQ(rowNamed(rows, kQueueDepthRow), nullptr);
  const Session& s = *d.rows.session;
  const Track& gaps = s.tracks.back();
  EXPECT_EQ(s.str(gaps.hot.name[0]), idleCategory(IdleCause::Unknown));
}

}  // namespace
}  // namespace ts
