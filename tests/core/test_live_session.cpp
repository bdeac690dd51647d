// LiveSession (a capture's growing session) against SessionBuilder on the same events: whatever
// the arrival order, the slicing into publishes and the holdback, the final publish is the session
// the builder builds, every snapshot is a valid session, and a snapshot never changes afterwards.
// Also Column (the shared, chunked columns that make a snapshot cheap) and LaunchTable (the calls
// waiting for their GPU work).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>

#include "live_rounds.h"
#include "session/column.h"
#include "session/launch_table.h"
#include "session/live_session.h"
#include "session/session_builder.h"
#include "session_fixture.h"

namespace ts {
namespace {

TEST(Column, CopiesShareValuesAndNeverSeeLaterAppends) {
  Column<int64_t> live;
  live.makeChunked();
  for (int64_t i = 0; i < 100'000; ++i) live.append(i * 3);
  Column<int64_t> snapshot = live;  // shares the blocks
  for (int64_t i = 100'000; i < 200'000; ++i) live.append(i * 3);
  ASSERT_EQ(snapshot.size(), 100'000u);
  ASSERT_EQ(live.size(), 200'000u);
  for (size_t i = 0; i < live.size(); ++i) ASSERT_EQ(live[i], static_cast<int64_t>(i) * 3);
  for (size_t i = 0; i < snapshot.size(); ++i) ASSERT_EQ(snapshot[i], static_cast<int64_t>(i) * 3);

  // The copy appends after its own end without touching the values the original wrote there.
  snapshot.append(-1);
  EXPECT_EQ(snapshot[100'000], -1);
  EXPECT_EQ(live[100'000], 300'000);

  // set() copies the block it changes when shared: the other column keeps what it had.
  Column<int64_t> before = live;
  live.set(70'000, 7);
  EXPECT_EQ(live[70'000], 7);
  EXPECT_EQ(before[70'000], 210'000);
  EXPECT_EQ(snapshot[70'000], 210'000);

  // Searches and runs across blocks.
  auto it = std::lower_bound(live.begin(), live.end(), int64_t{150'001});
  EXPECT_EQ(it.index(), 50'001u);
  size_t total = 0, spans = 0;
  live.forEachSpan([&](std::span<const int64_t> s) { total += s.size(), ++spans; });
  EXPECT_EQ(total, live.size());
  EXPECT_EQ(spans, (live.size() + Column<int64_t>::kChunk - 1) / Column<int64_t>::kChunk);
  std::vector<int64_t> scratch;
  std::span<const int64_t> across = live.span(65'530, 20, scratch);
  ASSERT_EQ(across.size(), 20u);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(across[i], static_cast<int64_t>(65'530 + i) * 3);
}

TEST(Column, WritingThroughOneCopyLeavesTheOtherAsItWas) {
  Column<uint32_t> a{1, 2, 3};
  Column<uint32_t> b = a;
  b.data()[1] = 20;  // b becomes a column of its own first
  b.push_back(4);
  EXPECT_EQ(a, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(b, (std::vector<uint32_t>{1, 20, 3, 4}));
  Column<uint32_t> chunked;
  chunked.makeChunked();
  for (uint32_t i = 0; i < 70'000; ++i) chunked.append(i);
  Column<uint32_t> copy = chunked;
  copy.resize(3);  // contiguous and its own now
  EXPECT_FALSE(copy.chunked());
  EXPECT_EQ(copy, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(chunked.size(), 70'000u);
  EXPECT_EQ(chunked[69'999], 69'999u);
}

// Every value a snapshot holds (events' times, names, lanes and details, flows) in one list: what
// must not change once published, whatever the live session does afterwards.
std::vector<int64_t> valuesOf(const Session& s) {
  std::vector<int64_t> out;
  auto add = [&](const char*, const auto& column) {
    for (auto v : column) out.push_back(static_cast<int64_t>(v));
  };
  for (const Track& t : s.tracks) {
    out.push_back(static_cast<int64_t>(t.size()));
    t.hot.visit(add);
    t.kernels.visit(add);
    t.memcpys.visit(add);
    t.apis.visit(add);
    t.nvtx.visit(add);
    t.ranges.visit(add);
  }
  s.flows.visit(add);
  return out;
}

TEST(Column, ZeroBlocksTakeNoMemoryAndReadAsZeros) {
  Column<uint32_t> live;
  live.makeChunked();
  for (uint32_t i = 0; i < 100'000; ++i) live.append(0);
  EXPECT_EQ(live.allocatedBytes(), 0u);
  EXPECT_EQ(live[99'999], 0u);
  Column<uint32_t> copy = live;
  live.append(5);  // the last block becomes one of its own, the copy still reads zeros
  copy.append(7);
  EXPECT_EQ(live[100'000], 5u);
  EXPECT_EQ(copy[100'000], 7u);
  copy.set(10, 3);  // a zero block written: made real first
  EXPECT_EQ(copy[10], 3u);
  EXPECT_EQ(live[10], 0u);
  // Assigned, a column may not append into the blocks it now shares.
  Column<uint32_t> assigned;
  assigned = live;
  assigned.append(9);
  live.append(11);
  EXPECT_EQ(assigned[100'001], 9u);
  EXPECT_EQ(live[100'001], 11u);
}

TEST(Column, RunsOfOneValueTakeNoMemoryOnceABlockOfItFills) {
  // A column type of its own (blocks of 32 k values): the values that get a shared block are
  // counted per type and process, and other tests use Column<uint32_t>.
  using Own = Column<uint32_t, 15>;
  constexpr size_t kChunk = Own::kChunk;
  Own live;
  live.makeChunked();
  for (size_t i = 0; i < kChunk - 1; ++i) live.append(7);
  EXPECT_EQ(live.allocatedBytes(), kChunk * sizeof(uint32_t));  // not known to be a run yet
  Own before = live;                                            // shares the block
  live.append(7);  // the block fills with 7s: read from the shared block of 7s from now on
  EXPECT_EQ(live.allocatedBytes(), 0u);
  EXPECT_EQ(before.allocatedBytes(), kChunk * sizeof(uint32_t));  // the copy keeps its own
  for (size_t i = kChunk; i < 3 * kChunk + 10; ++i) live.append(7);
  EXPECT_EQ(live.allocatedBytes(), 0u);
  for (size_t i = 0; i < live.size(); ++i) ASSERT_EQ(live[i], 7u) << i;

  // Another value ends the run: the last block becomes one of its own, the copy reads 7s still.
  Own copy = live;
  live.append(8);
  EXPECT_EQ(live.allocatedBytes(), kChunk * sizeof(uint32_t));
  EXPECT_EQ(live[3 * kChunk + 10], 8u);
  EXPECT_EQ(live[3 * kChunk + 9], 7u);
  copy.append(9);
  EXPECT_EQ(copy[3 * kChunk + 10], 9u);
  EXPECT_EQ(live[3 * kChunk + 10], 8u);
  // Written in the middle of a run: that block is made real first, the others still share.
  copy.set(kChunk + 5, 1);
  EXPECT_EQ(copy[kChunk + 5], 1u);
  EXPECT_EQ(copy[kChunk + 4], 7u);
  EXPECT_EQ(live[kChunk + 5], 7u);
  // Back to the run's value after a mixed block: a block of 7s takes no memory again.
  for (size_t i = live.size(); i % kChunk != 0; ++i) live.append(7);
  const size_t mixed = live.allocatedBytes();
  EXPECT_EQ(mixed, kChunk * sizeof(uint32_t));  // the mixed block, full, keeps its memory
  EXPECT_EQ(live[3 * kChunk + 10], 8u);
  EXPECT_EQ(live[4 * kChunk - 1], 7u);
  for (size_t i = 0; i < kChunk; ++i) live.append(7);
  EXPECT_EQ(live.allocatedBytes(), mixed);
  // A block of 7s but for its last value is no run.
  for (size_t i = 0; i + 1 < kChunk; ++i) live.append(7);
  live.append(6);
  EXPECT_EQ(live.allocatedBytes(), 2 * mixed);
  EXPECT_EQ(live[6 * kChunk - 1], 6u);
  EXPECT_EQ(live[6 * kChunk - 2], 7u);
  // Nor is one whose first value differs (it starts a block of its own after a run).
  live.append(5);
  for (size_t i = 1; i < kChunk; ++i) live.append(7);
  EXPECT_EQ(live.allocatedBytes(), 3 * mixed);
  EXPECT_EQ(live[6 * kChunk], 5u);
  // Truncated inside a run and grown again: the values read are the ones appended.
  ASSERT_EQ(live.size(), 7 * kChunk);
  live.truncate(2 * kChunk + 3);
  live.append(4);
  EXPECT_EQ(live[2 * kChunk + 2], 7u);
  EXPECT_EQ(live[2 * kChunk + 3], 4u);
  EXPECT_EQ(live.size(), 2 * kChunk + 4);
  EXPECT_EQ(before.size(), kChunk - 1);
  for (size_t i = 0; i < before.size(); ++i) ASSERT_EQ(before[i], 7u) << i;
}

TEST(Column, OnlyAFewValuesOfATypeGetASharedBlock) {
  // Blocks of 16 values; each value that fills one gets a shared block, up to kSameValues of
  // them (the process keeps those blocks); blocks of the values after that keep their memory.
  using Small = Column<uint64_t, 4>;
  constexpr size_t kChunk = Small::kChunk;
  Small live;
  live.makeChunked();
  for (uint64_t value = 1; value <= 20; ++value)
    for (size_t i = 0; i < kChunk; ++i) live.append(value);
  EXPECT_EQ(live.allocatedBytes(), (20 - 16) * kChunk * sizeof(uint64_t));
  for (size_t i = 0; i < live.size(); ++i) ASSERT_EQ(live[i], i / kChunk + 1) << i;
}

TEST(LiveSession, FinalPublishIsTheBuildersSessionWhateverTheOrderAndSlices) {
  const char* only = std::getenv("TS_LIVE_ROUND");  // reruns one round
  int roundsRebuilt = 0;
  for (int round = 0; round < 150; ++round) {
    if (only && round != std::atoi(only)) continue;
    SCOPED_TRACE("round " + std::to_string(round));
    std::vector<SessionPtr> snapshots;
    std::vector<size_t> snapshotEvents;
    std::vector<std::vector<int64_t>> snapshotValues;  // each snapshot's values, copied out
    Result<testing::LiveRound> played = testing::playLiveRound(round, [&](SessionPtr s) {
      snapshots.push_back(s);
      snapshotEvents.push_back(s->eventCount());
      snapshotValues.push_back(valuesOf(*s));
    });
    ASSERT_TRUE(played.ok()) << played.error();
    const SessionPtr& final = played->final;
    Result<SessionPtr> built = testing::buildLiveRound(*played);
    ASSERT_TRUE(built.ok()) << built.error();
    std::string why;
    EXPECT_TRUE(testing::sameSession(*final, **built, &why))
        << why << " (flows " << final->flows.srcTrack.size() << " live, "
        << (*built)->flows.srcTrack.size() << " built)";
    if (std::getenv("TS_LIVE_DUMP")) {
      for (const Session* x : {&*final, &**built}) {
        std::printf("--\n");
        for (size_t f = 0; f < x->flows.srcTrack.size(); ++f) {
          const Track& st = x->tracks[x->flows.srcTrack[f]];
          const Track& dt = x->tracks[x->flows.dstTrack[f]];
          std::printf("%u:%u(%ld) -> %u:%u(%ld)\n", x->flows.srcTrack[f], x->flows.srcEvent[f],
                      st.hot.start[x->flows.srcEvent[f]], x->flows.dstTrack[f],
                      x->flows.dstEvent[f], dt.hot.start[x->flows.dstEvent[f]]);
        }
      }
    }
    EXPECT_TRUE(final->sortedFlows());
    EXPECT_GT((*built)->flows.srcTrack.size(), 0u);

    // Every snapshot is a whole valid session, and still what it was when published.
    for (size_t k = 0; k < snapshots.size(); ++k) {
      EXPECT_EQ(snapshots[k]->eventCount(), snapshotEvents[k]);
      EXPECT_EQ(valuesOf(*snapshots[k]), snapshotValues[k]) << "snapshot " << k << " changed";
      std::shared_ptr<Session> copy = copySession(*snapshots[k]);
      Status st = copy->finalize();
      ASSERT_TRUE(st.ok()) << "snapshot " << k << ": " << st.error();
      EXPECT_EQ(copy->startTime(), snapshots[k]->startTime());
      EXPECT_EQ(copy->endTime(), snapshots[k]->endTime());
      for (size_t t = 0; t < copy->tracks.size(); ++t) {
        EXPECT_EQ(copy->tracks[t].laneCount(), snapshots[k]->tracks[t].laneCount());
      }
    }
    if (played->lateRebuilds > 0) ++roundsRebuilt;
  }
  // The late records do make tracks be put in order again (not only in the rounds that move
  // some to the end: the shuffling does too), so that path is held to the builder as well.
  if (!only) {
    EXPECT_GE(roundsRebuilt, 15);
  }
}

// A live capture's flows, sorted in place at its end: sorted as flowsBySource would sort them,
// while a snapshot that shares their blocks keeps them as it saw them.
TEST(LiveSession, FlowsSortedInPlaceLeaveSharersAsTheyWere) {
  std::mt19937 rng(11);
  FlowColumns flows;
  flows.visit([](const char*, auto& c) { c.makeChunked(); });
  std::vector<std::array<uint32_t, 4>> rows;
  for (int i = 0; i < 200'000; ++i) {  // several blocks; some fields 0 (blocks of zeros)
    const std::array<uint32_t, 4> r = {
        static_cast<uint32_t>(rng() % 5), static_cast<uint32_t>(rng() % 90'000),
        static_cast<uint32_t>(rng() % 3), static_cast<uint32_t>(i % 7 ? i : 0)};
    flows.srcTrack.append(r[0]), flows.srcEvent.append(r[1]);
    flows.dstTrack.append(r[2]), flows.dstEvent.append(r[3]);
    rows.push_back(r);
  }
  const FlowColumns shared = flows;  // a snapshot's
  sortFlowsBySource(flows);
  std::vector<std::array<uint32_t, 4>> sorted = rows;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(flows.srcTrack.size(), sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    const std::array<uint32_t, 4> got = {flows.srcTrack[i], flows.srcEvent[i], flows.dstTrack[i],
                                         flows.dstEvent[i]};
    ASSERT_EQ(got, sorted[i]) << "position " << i;
    const std::array<uint32_t, 4> kept = {shared.srcTrack[i], shared.srcEvent[i],
                                          shared.dstTrack[i], shared.dstEvent[i]};
    ASSERT_EQ(kept, rows[i]) << "the snapshot's flow " << i << " changed";
  }
}

// The table against a map on the same puts, lookups and erases: calls of three processes whose
// correlation ids rise with gaps (the table's common case), the oldest erased once a window is
// past, some keys taken again by a later call, and random keys, across several growths, checked
// also while a growth is still moving entries (some in the previous slots, some in the new).
TEST(LaunchTable, FindsWhatAMapFindsAfterPutsAndErases) {
  LaunchTable table;
  std::map<uint64_t, LaunchLink> map;
  std::deque<LaunchLink> order;
  std::mt19937_64 rng(11);
  uint32_t next[3] = {1, 1, 1};
  uint32_t event = 0;
  int checkedWhileGrowing = 0;
  for (int round = 0; round < 300; ++round) {
    for (int i = 0; i < 2'000; ++i) {
      const uint64_t process = rng() % 3;
      uint64_t key;
      if (rng() % 50 == 0) {
        key = rng() | 1;  // anywhere
      } else if (rng() % 40 == 0 && !order.empty()) {
        key = order[rng() % order.size()].key;  // a key taken again
      } else {
        next[process] += 1 + static_cast<uint32_t>(rng() % 3);
        key = (process + 1) << 32 | next[process];
      }
      const LaunchLink l{key, static_cast<uint32_t>(process), event++, round};
      table.put(l);
      map[key] = l;
      order.push_back(l);
    }
    while (order.size() > 40'000) {  // the window: the oldest go, unless their key was retaken
      const LaunchLink old = order.front();
      order.pop_front();
      table.eraseIf(old);
      auto it = map.find(old.key);
      if (it != map.end() && it->second.event == old.event) map.erase(it);
    }
    ASSERT_EQ(table.size(), map.size()) << "round " << round;
    checkedWhileGrowing += table.growing();
    for (int i = 0; i < 500; ++i) {
      const uint64_t key = i % 2 ? order[rng() % order.size()].key : (rng() | 1);
      const LaunchLink* found = table.find(key);
      auto it = map.find(key);
      ASSERT_EQ(found != nullptr, it != map.end()) << "key " << key << " round " << round;
      if (found) {
        ASSERT_EQ(found->event, it->second.event);
      }
    }
    size_t seen = 0;
    table.forEach([&](LaunchLink& l) {
      ++seen;
      auto it = map.find(l.key);
      ASSERT_TRUE(it != map.end() && it->second.event == l.event) << "key " << l.key;
    });
    ASSERT_EQ(seen, map.size()) << "round " << round;
  }
  EXPECT_GE(checkedWhileGrowing, 3);  // the checks above also saw entries in both tables
}

// A put that replaces a key's entry and is also the one that makes the table grow: the entry it
// replaces lands in the previous array, to be moved later; it must be gone from there, not moved
// over the new one (nor, once the new one is erased, brought back).
TEST(LaunchTable, AReplacingPutThatGrowsTheTableLeavesOneEntry) {
  for (const bool eraseIt : {false, true}) {
    LaunchTable table;
    uint32_t event = 0;
    for (uint64_t key = 1; key <= 512; ++key) table.put({key, 0, event++, 0});
    ASSERT_FALSE(table.growing());
    const LaunchLink newer{1, 0, 9'999, 0};  // the 513th put: it grows the table
    table.put(newer);
    ASSERT_TRUE(table.growing());
    EXPECT_EQ(table.size(), 512u);
    if (eraseIt) table.eraseIf(newer);
    for (uint64_t key = 1'000; key < 1'600; ++key) table.put({key, 0, event++, 0});  // moves all
    const LaunchLink* found = table.find(1);
    if (eraseIt) {
      EXPECT_EQ(found, nullptr);
      EXPECT_EQ(table.size(), 1'111u);
    } else {
      ASSERT_NE(found, nullptr);
      EXPECT_EQ(found->event, 9'999u);
      EXPECT_EQ(table.size(), 1'112u);
    }
  }
}

}  // namespace
}  // namespace ts
