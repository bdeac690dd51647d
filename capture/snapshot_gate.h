// Keeps a periodic write out of the live snapshots' way. The write is insurance against a crash;
// the snapshot is what the user watches, due every interval and held to 50 ms. On two cores a
// write beside a snapshot (its compression, allocations and file writes, at nice 10 or not) was
// there for four of the five longest snapshots of an hour (BENCHMARKS.md). So the write works in
// pieces (a column chunk each) and asks here before each: a piece that could still be running
// when the next snapshot is due waits until that snapshot has been taken.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace ts {

class SnapshotGate {
 public:
  using Clock = std::chrono::steady_clock;

  // The snapshot thread: a snapshot starts; it ended and the next one is due at `nextDue`; no
  // more snapshots will come (from then on nothing waits: call it before waiting for the write).
  void begin();
  void end(Clock::time_point nextDue);
  void release();

  // The writer: a write starts (its pieces are timed afresh).
  void startWrite();
  // The writer, before each piece: returns when the piece can run without meeting a snapshot —
  // at once when, judged by the longest piece of this write so far, it ends before the next
  // snapshot is due; otherwise once that snapshot has ended (or after kLongestWait, so that a
  // snapshot thread gone astray cannot stop the write).
  void beforePiece();

  static constexpr Clock::duration kMargin = std::chrono::milliseconds(2);
  static constexpr Clock::duration kLongestWait = std::chrono::seconds(5);

  // Times the writer waited, for tests and benchmarks.
  uint64_t waits() const;

 private:
  mutable std::mutex lock_;
  std::condition_variable ended_;
  bool taking_ = false, released_ = false;
  uint64_t snapshots_ = 0, waits_ = 0;
  Clock::time_point due_ = Clock::time_point::max();
  Clock::time_point pieceStarted_{};  // zero before a write's first piece
  Clock::duration longest_{};
};

}  // namespace ts
