// Keeps a periodic write out of the live snapshots' way. The write is insurance against a crash;
// the snapshot is what the user watches, due every interval and held to 50 ms. On two cores a
// write beside a snapshot (its compression, allocations and file writes, at nice 10 or not) was
// there for four of the five longest snapshots of an hour (BENCHMARKS.md). So the write reports
// between pieces of its work — a column chunk each, the first also opening the file and writing
// the small tables, the last also closing and renaming it — and before each piece asks here: a
// piece that could still be running when the next snapshot is due waits until that snapshot has
// been taken. A piece longer than the time between two snapshots would meet one anyway: it runs
// at once.
#pragma once

#include <array>
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

  // The writer: a write starts (its pieces are timed afresh, its waits counted from zero).
  void startWrite();
  // The writer, before each piece: returns when the piece can run without meeting a snapshot —
  // at once when, judged by the longest of the write's last few pieces, it ends before the next
  // snapshot is due; otherwise once that snapshot has ended (or after kLongestWait, so that a
  // snapshot thread gone astray cannot stop the write).
  void beforePiece();

  static constexpr Clock::duration kMargin = std::chrono::milliseconds(2);
  static constexpr Clock::duration kLongestWait = std::chrono::seconds(5);

  // Times the writer waited, and how long in all since startWrite(): a write's own length is
  // its time less this.
  uint64_t waits() const;
  Clock::duration waited() const;

 private:
  Clock::duration expected() const;  // the next piece's length: the longest of the last few

  mutable std::mutex lock_;
  std::condition_variable ended_;
  bool taking_ = false, released_ = false;
  uint64_t snapshots_ = 0, waits_ = 0;
  Clock::time_point due_ = Clock::time_point::max();
  Clock::duration between_ = Clock::duration::max();  // from the last snapshot's end to the next
  Clock::time_point pieceStarted_{};                  // zero before a write's first piece
  // The last pieces' lengths: chunks of one column take alike, the next column's may not, and
  // one piece slowed by the program (the writer runs at nice 10) should not hold for the rest.
  std::array<Clock::duration, 4> recent_{};
  size_t pieces_ = 0;
  Clock::duration waited_{};
};

}  // namespace ts
