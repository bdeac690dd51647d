#include "capture/snapshot_gate.h"

#include <algorithm>

namespace ts {

void SnapshotGate::begin() {
  std::lock_guard lock(lock_);
  taking_ = true;
}

void SnapshotGate::end(Clock::time_point nextDue) {
  {
    std::lock_guard lock(lock_);
    taking_ = false;
    ++snapshots_;
    due_ = nextDue;
  }
  ended_.notify_all();
}

void SnapshotGate::release() {
  {
    std::lock_guard lock(lock_);
    released_ = true;
  }
  ended_.notify_all();
}

void SnapshotGate::startWrite() {
  std::lock_guard lock(lock_);
  pieceStarted_ = {};
  longest_ = {};
}

void SnapshotGate::beforePiece() {
  std::unique_lock lock(lock_);
  const Clock::time_point now = Clock::now();
  if (pieceStarted_ != Clock::time_point{}) longest_ = std::max(longest_, now - pieceStarted_);
  // `due_ - now` rather than `now + longest_`: due_ may be the clock's maximum.
  if (!released_ && (taking_ || due_ - now <= longest_ + kMargin)) {
    ++waits_;
    const uint64_t seen = snapshots_;
    ended_.wait_until(lock, now + kLongestWait, [&] { return released_ || snapshots_ != seen; });
  }
  // Timed from here: a piece's length is its own work, not the wait before it.
  pieceStarted_ = Clock::now();
}

uint64_t SnapshotGate::waits() const {
  std::lock_guard lock(lock_);
  return waits_;
}

}  // namespace ts
