// A live capture's layouts, each extending the last (TimelineRows(session, previous): subsets,
// lane summaries, busy index and kernel time per name take in only what is new), against the
// layout made afresh from the same snapshot — over generated captures whose records arrive out
// of order, whose tracks are put in order again, whose NVTX ranges close later. Also the busy
// index and the lane summary extended piece by piece, and Column::grow / truncate under them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>

#include "live_rounds.h"
#include "session/column.h"
#include "session/session_builder.h"
#include "timeline/busy_index.h"
#include "timeline/lane_fold.h"
#include "timeline/timeline_rows.h"

namespace ts {
namespace {

bool sameBlocks(const LaneSummary& a, const LaneSummary& b) {
  if (a.levels.size() != b.levels.size()) return false;
  for (size_t k = 0; k < a.levels.size(); ++k) {
    if (a.levels[k].size() != b.levels[k].size()) return false;
    for (size_t i = 0; i < a.levels[k].size(); ++i) {
      const LaneSummary::Block &x = a.levels[k][i], &y = b.levels[k][i];
      if (x.firstStart != y.firstStart || x.lastEnd != y.lastEnd ||
          x.maxDuration != y.maxDuration || x.maxGap != y.maxGap)
        return false;
    }
  }
  return true;
}

bool sameBusy(const BusyIndex& a, const BusyIndex& b) {
  return a.start == b.start && a.end == b.end && a.before == b.before && a.coarse == b.coarse;
}

// An index's values copied out: compared later, it says whether the index still holds them (a
// copy of the index would share its blocks and change with it).
struct BusyValues {
  std::vector<TimeNs> start, end, before, coarse;
  explicit BusyValues(const BusyIndex& b)
      : start(b.start.toVector()),
        end(b.end.toVector()),
        before(b.before.toVector()),
        coarse(b.coarse.toVector()) {}
  bool heldBy(const BusyIndex& b) const {
    return b.start == start && b.end == end && b.before == before && b.coarse == coarse;
  }
};

// Every field the views read, row by row, lane by lane.
void expectSameRows(const TimelineRows& a, const TimelineRows& b, const std::string& where) {
  SCOPED_TRACE(where);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const TimelineRow &x = a[i], &y = b[i];
    SCOPED_TRACE("row " + std::to_string(i) + " " + y.label);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.label, y.label);
    EXPECT_EQ(x.depth, y.depth);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.copyKind, y.copyKind);
    EXPECT_EQ(x.events, y.events);
    EXPECT_EQ(x.expandable, y.expandable);
    EXPECT_EQ(x.startsCollapsed, y.startsCollapsed);
    EXPECT_EQ(x.counter, y.counter);
    ASSERT_EQ(x.busy == nullptr, y.busy == nullptr);
    if (x.busy) {
      EXPECT_TRUE(sameBusy(*x.busy, *y.busy));
    }
    ASSERT_EQ(x.lanes.size(), y.lanes.size());
    for (size_t l = 0; l < x.lanes.size(); ++l) {
      ASSERT_EQ(x.lanes[l].size(), y.lanes[l].size()) << "lane " << l;
      for (size_t v = 0; v < x.lanes[l].size(); ++v) {
        const LaneView &p = x.lanes[l][v], &q = y.lanes[l][v];
        EXPECT_EQ(p.track, q.track);
        EXPECT_EQ(p.lane, q.lane);
        ASSERT_EQ(p.subset == nullptr, q.subset == nullptr);
        if (p.subset) {
          EXPECT_TRUE(*p.subset == *q.subset) << "lane " << l << " view " << v;
        }
        ASSERT_EQ(p.summary == nullptr, q.summary == nullptr) << "lane " << l << " view " << v;
        if (p.summary) {
          EXPECT_TRUE(sameBlocks(*p.summary, *q.summary));
        }
      }
    }
  }
}

TEST(LiveLayout, EachSnapshotsExtendedLayoutIsTheOneMadeAfresh) {
  const char* only = std::getenv("TS_LIVE_ROUND");  // reruns one round
  size_t extended = 0, summariesSeen = 0;
  // Rounds of 40 to 640 events, and a few of up to 10,040 (lanes long enough for summaries).
  std::vector<int> rounds;
  for (int r = 0; r < 150; r += 3) rounds.push_back(r);
  for (int r : {151, 400, 800, 1500, 2500}) rounds.push_back(r);
  for (int round : rounds) {
    if (only && round != std::atoi(only)) continue;
    SCOPED_TRACE("round " + std::to_string(round));
    std::shared_ptr<const TimelineRows> last;
    int k = 0;
    auto check = [&](SessionPtr s) {
      auto rows = last ? std::make_shared<const TimelineRows>(s, *last)
                       : std::make_shared<const TimelineRows>(s);
      TimelineRows fresh(s);
      expectSameRows(*rows, fresh, "snapshot " + std::to_string(k++));
      extended += rows->extended();
      for (const TimelineRow& row : fresh.rows()) {
        for (const auto& lane : row.lanes)
          for (const LaneView& v : lane) summariesSeen += v.summary != nullptr;
      }
      last = rows;
    };
    Result<testing::LiveRound> played = testing::playLiveRound(round, check);
    ASSERT_TRUE(played.ok()) << played.error();
    check(played->final);
  }
  if (!only) {
    EXPECT_GT(extended, 50000u);      // the extension is what was compared, not a fresh layout
    EXPECT_GT(summariesSeen, 5000u);  // with lanes long enough to be summarised
  }
}

// Kernels on three streams whose records come a little out of order: each step adds what came
// since, some starting before intervals already in the index.
TEST(LiveLayout, BusyIndexExtendedStepByStepIsTheOneBuiltAtOnce) {
  for (int seed = 0; seed < 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(static_cast<unsigned>(seed));
    SessionBuilder b;
    const uint32_t d = b.device(b.rank(0), 0);
    const StringId name = b.intern("k");
    uint32_t streams[3];
    for (uint32_t i = 0; i < 3; ++i) streams[i] = b.stream(d, 7 + i);
    // 300 k kernels: the index outgrows one chunk (Column::grow turns it chunked).
    TimeNs at[3] = {0, 0, 0};
    for (int i = 0; i < 300'000; ++i) {
      const uint32_t st = static_cast<uint32_t>(rng() % 3);
      const TimeNs start = at[st] + static_cast<TimeNs>(rng() % 400);
      const TimeNs len = static_cast<TimeNs>(rng() % 300);  // some are 0 ns long
      b.addKernel(streams[st], start, start + len, name, {});
      at[st] = start + len;
    }
    Result<SessionPtr> s = b.build();
    ASSERT_TRUE(s.ok()) << s.error();
    std::vector<uint32_t> tracks;
    for (uint32_t ti = 0; ti < (*s)->tracks.size(); ++ti) tracks.push_back(ti);
    const BusyIndex whole = buildBusyIndex(**s, tracks);
    ASSERT_GT(whole.start.size(), Column<TimeNs>::kChunk);

    // Steps: each track's events up to a random point, the points of different tracks far apart
    // in time, so a step's kernels start before the last step's intervals.
    BusyIndex grown, copy;
    std::vector<size_t> from(tracks.size(), 0);
    while (true) {
      bool more = false;
      std::shared_ptr<Session> step = copySession(**s);
      std::vector<size_t> upTo(tracks.size());
      for (size_t k = 0; k < tracks.size(); ++k) {
        const size_t n = (*s)->tracks[tracks[k]].size();
        upTo[k] = std::min(n, from[k] + rng() % 40'000);
        more = more || upTo[k] < n;
      }
      // A session holding the first upTo[k] events of each track: the step's view.
      for (size_t k = 0; k < tracks.size(); ++k) {
        Track& t = step->tracks[tracks[k]];
        t.hot.visit([&](const char*, auto& c) { c.truncate(upTo[k]); });
      }
      copy = grown;  // the next step extends a copy: the one before keeps what it held
      const BusyValues before(grown);
      extendBusyIndex(copy, *step, tracks, from);
      EXPECT_TRUE(sameBusy(copy, buildBusyIndex(*step, tracks)));
      EXPECT_TRUE(before.heldBy(grown));
      grown = copy;
      from = upTo;
      if (!more) break;
    }
    EXPECT_TRUE(sameBusy(grown, whole));
  }
}

// Enough positions for three levels, the first of them chunked (more than 1 k blocks), grown in
// small steps first and then in large ones.
TEST(LiveLayout, LaneSummaryExtendedStepByStepIsTheOneMadeAtOnce) {
  SessionBuilder b;
  const uint32_t thread = b.thread(b.process(b.rank(0), 1), 1);
  const StringId name = b.intern("e");
  std::mt19937 rng(5);
  TimeNs at = 0;
  for (int i = 0; i < 330'000; ++i) {
    const TimeNs len = static_cast<TimeNs>(rng() % 50), gap = static_cast<TimeNs>(rng() % 30);
    b.addApi(thread, at, at + len, name, {});
    at += len + gap;
  }
  Result<SessionPtr> s = b.build();
  ASSERT_TRUE(s.ok()) << s.error();
  const Track& t = (*s)->tracks[0];
  // A subset view that grows: every event but each 7th, taken in steps of up to 300, then of up
  // to 30 000.
  Column<uint32_t> events;
  LaneSummary summary;
  uint32_t summarized = 0, next = 0;
  while (next < t.size()) {
    const uint32_t most = next < 20'000 ? 300 : 30'000;
    const uint32_t until = std::min<uint32_t>(static_cast<uint32_t>(t.size()),
                                              next + 1 + static_cast<uint32_t>(rng() % most));
    for (; next < until; ++next) {
      if (next % 7) events.grow(next);
    }
    LaneView view{&t, 0, &events, nullptr};
    LaneSummary copy = summary;  // extended in a copy: the earlier one keeps its blocks
    std::vector<std::vector<LaneSummary::Block>> held;
    for (const LaneSummary::Blocks& level : summary.levels) held.push_back(level.toVector());
    extendLaneSummary(copy, view, summarized);
    ASSERT_TRUE(sameBlocks(copy, summarizeLane(view))) << "at " << next;
    ASSERT_EQ(summary.levels.size(), held.size()) << "at " << next;
    for (size_t k = 0; k < held.size(); ++k) {
      ASSERT_EQ(summary.levels[k].size(), held[k].size()) << "at " << next;
      for (size_t i = 0; i < held[k].size(); ++i) {
        const LaneSummary::Block &x = summary.levels[k][i], &y = held[k][i];
        ASSERT_TRUE(x.firstStart == y.firstStart && x.lastEnd == y.lastEnd &&
                    x.maxDuration == y.maxDuration && x.maxGap == y.maxGap)
            << "block " << i << " of level " << k << " of the earlier summary changed at " << next;
      }
    }
    summary = copy;
    summarized = view.size();
  }
  ASSERT_EQ(summary.levels.size(), 3u);
  EXPECT_TRUE(summary.levels[0].chunked());
}

TEST(Column, GrowAndTruncateLeaveCopiesAsTheyWere) {
  Column<uint32_t> c;
  std::vector<uint32_t> want;
  std::vector<std::pair<Column<uint32_t>, std::vector<uint32_t>>> copies;
  std::mt19937 rng(3);
  // Past two chunks and back, copies taken along the way.
  for (int step = 0; step < 60; ++step) {
    const size_t add = rng() % 20'000;
    for (size_t i = 0; i < add; ++i) {
      const uint32_t v = (rng() % 4 == 0) ? 0 : static_cast<uint32_t>(rng());  // zeros too
      c.grow(v);
      want.push_back(v);
    }
    if (step % 5 == 4) {
      const size_t keep = want.size() - std::min(want.size(), size_t{rng() % 70'000});
      c.truncate(keep);
      want.resize(keep);
    }
    ASSERT_TRUE(c == want) << "step " << step;
    copies.emplace_back(c, want);
  }
  EXPECT_TRUE(c.chunked());
  for (size_t i = 0; i < copies.size(); ++i)
    EXPECT_TRUE(copies[i].first == copies[i].second) << "copy " << i;
}

}  // namespace
}  // namespace ts
