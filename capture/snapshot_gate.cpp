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
    between_ = nextDue - Clock::now();
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
  recent_ = {};
  pieces_ = 0;
  waited_ = {};
}

SnapshotGate::Clock::duration SnapshotGate::expected() const {
  return *std::max_element(recent_.begin(), recent_.end());
}

void SnapshotGate::beforePiece() {
  std::unique_lock lock(lock_);
  const Clock::time_point now = Clock::now();
  if (pieceStarted_ != Clock::time_point{})
    recent_[pieces_++ % recent_.size()] = now - pieceStarted_;
  const Clock::duration piece = expected() + kMargin;
  // `due_ - now` rather than `now + piece`: due_ may be the clock's maximum.
  const bool meets = taking_ || (piece < between_ && due_ - now <= piece);
  if (!released_ && meets) {
    ++waits_;
    const uint64_t seen = snapshots_;
    ended_.wait_until(lock, now + kLongestWait, [&] { return released_ || snapshots_ != seen; });
    waited_ += Clock::now() - now;
  }
  // Timed from here: a piece's length is its own work, not the wait before it.
  pieceStarted_ = Clock::now();
}

uint64_t SnapshotGate::waits() const {
  std::lock_guard lock(lock_);
  return waits_;
}

SnapshotGate::Clock::duration SnapshotGate::waited() const {
  std::lock_guard lock(lock_);
  return waited_;
}

}  // namespace ts
