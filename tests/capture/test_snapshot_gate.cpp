// The periodic write's pieces step aside for the live snapshots (capture/snapshot_gate.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "capture/snapshot_gate.h"

namespace ts {
namespace {

using namespace std::chrono_literals;
using Clock = SnapshotGate::Clock;

// A writer thread's next piece; `ran` once the gate let it through.
struct Piece {
  explicit Piece(SnapshotGate& gate)
      : thread([&gate, this] {
          gate.beforePiece();
          ran = true;
        }) {}
  ~Piece() { thread.join(); }
  std::atomic<bool> ran{false};
  std::thread thread;
};

// Until `done` holds, or false after `limit` (well inside the gate's own 5 s: a piece let through
// by that limit rather than by the snapshot's end is a failure).
template <class F>
bool within(F done, Clock::duration limit = 2s) {
  const Clock::time_point until = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(SnapshotGate, APieceFarFromTheNextSnapshotRunsAtOnce) {
  SnapshotGate gate;
  gate.startWrite();
  gate.beforePiece();  // no snapshot expected yet
  gate.end(Clock::now() + 10s);
  for (int i = 0; i < 3; ++i) gate.beforePiece();
  EXPECT_EQ(gate.waits(), 0u);
}

TEST(SnapshotGate, APieceWaitsForASnapshotThatIsDueUntilItEnded) {
  SnapshotGate gate;
  gate.end(Clock::now() + 30ms);
  std::this_thread::sleep_for(30ms);  // the next one is due now
  Piece piece(gate);
  ASSERT_TRUE(within([&] { return gate.waits() == 1; }));
  gate.begin();
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(piece.ran);  // the snapshot runs
  gate.end(Clock::now() + 10s);
  EXPECT_TRUE(within([&] { return piece.ran.load(); }));
  EXPECT_GE(gate.waited(), 20ms);
}

TEST(SnapshotGate, APieceWaitsWhileASnapshotRunsHoweverFarTheNextIs) {
  SnapshotGate gate;
  gate.end(Clock::now() + 10s);
  gate.begin();
  Piece piece(gate);
  ASSERT_TRUE(within([&] { return gate.waits() == 1; }));
  EXPECT_FALSE(piece.ran);
  gate.end(Clock::now() + 10s);
  EXPECT_TRUE(within([&] { return piece.ran.load(); }));
}

TEST(SnapshotGate, TheLastPiecesSayHowCloseIsTooClose) {
  SnapshotGate gate;
  gate.startWrite();
  gate.beforePiece();
  gate.end(Clock::now() + 1s);         // snapshots a second apart
  std::this_thread::sleep_for(700ms);  // a piece of 700 ms; the next snapshot in 300 at most
  {
    Piece piece(gate);  // a like piece would meet it
    ASSERT_TRUE(within([&] { return gate.waits() == 1; }));
    gate.begin();
    gate.end(Clock::now() + 1s);
    EXPECT_TRUE(within([&] { return piece.ran.load(); }));
  }
  std::this_thread::sleep_for(700ms);  // 300 ms before the next snapshot again
  // A new write times its pieces afresh: the last write's do not count.
  gate.startWrite();
  gate.beforePiece();
  EXPECT_EQ(gate.waits(), 1u);
  EXPECT_EQ(gate.waited(), Clock::duration{});
}

// A piece longer than the time between two snapshots would meet one whenever it ran: waiting
// would only slow the write.
TEST(SnapshotGate, APieceLongerThanTheGapBetweenSnapshotsDoesNotWait) {
  SnapshotGate gate;
  gate.startWrite();
  gate.beforePiece();
  std::this_thread::sleep_for(120ms);  // a piece of 120 ms
  gate.end(Clock::now() + 100ms);      // snapshots 100 ms apart, the next due in 100
  gate.beforePiece();
  EXPECT_EQ(gate.waits(), 0u);
}

TEST(SnapshotGate, ReleasedNothingWaitsAnyMore) {
  SnapshotGate gate;
  gate.end(Clock::now() + 30ms);
  std::this_thread::sleep_for(30ms);
  {
    Piece piece(gate);
    ASSERT_TRUE(within([&] { return gate.waits() == 1; }));
    gate.release();  // the capture ends: the write under way finishes
    EXPECT_TRUE(within([&] { return piece.ran.load(); }));
  }
  gate.begin();
  gate.beforePiece();  // a snapshot "under way" after the release does not hold it either
  EXPECT_EQ(gate.waits(), 1u);
}

}  // namespace
}  // namespace ts
