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
  gate.end(Clock::now());  // the next one is due now
  {
    Piece piece(gate);
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(piece.ran);  // it would meet the snapshot
    gate.begin();
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(piece.ran);  // the snapshot runs
    gate.end(Clock::now() + 10s);
  }  // and now it ran (joined)
  EXPECT_EQ(gate.waits(), 1u);
}

TEST(SnapshotGate, APieceWaitsWhileASnapshotRunsHoweverFarTheNextIs) {
  SnapshotGate gate;
  gate.end(Clock::now() + 10s);
  gate.begin();
  Piece piece(gate);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(piece.ran);
  gate.end(Clock::now() + 10s);
}

TEST(SnapshotGate, TheLongestPieceOfTheWriteSaysHowCloseIsTooClose) {
  SnapshotGate gate;
  gate.end(Clock::now() + 10s);
  gate.startWrite();
  gate.beforePiece();
  std::this_thread::sleep_for(100ms);  // a piece of 100 ms
  gate.end(Clock::now() + 50ms);       // the next snapshot in 50: a like piece would meet it
  {
    Piece piece(gate);
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(piece.ran);
    gate.begin();
    gate.end(Clock::now() + 1s);
  }
  EXPECT_EQ(gate.waits(), 1u);
  // A new write times its pieces afresh: its first piece, a second before the snapshot, runs.
  gate.startWrite();
  gate.beforePiece();
  EXPECT_EQ(gate.waits(), 1u);
}

TEST(SnapshotGate, ReleasedNothingWaitsAnyMore) {
  SnapshotGate gate;
  gate.end(Clock::now());
  {
    Piece piece(gate);
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(piece.ran);
    gate.release();  // the capture ends: the write under way finishes
  }
  gate.begin();
  gate.beforePiece();  // a snapshot "under way" after the release does not hold it either
  EXPECT_EQ(gate.waits(), 1u);
}

}  // namespace
}  // namespace ts
