// LaunchTable: a live session's CUDA calls waiting for their GPU work, by key (process << 32 |
// correlation id). At 50 k events/s it holds the last 10 s of calls (~250 k) and takes each
// second ~25 k inserts, lookups and erases: in a std::unordered_map those were a node allocated
// and freed each, a third of a snapshot's time (BENCHMARKS.md). Here the entries sit in one array
// (Robin Hood linear probing, erases shifting back: no tombstones), a process's rising correlation
// ids in consecutive slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "util/time_ns.h"

namespace ts {

struct LaunchLink {  // a GPU event waiting for its call, or a call waiting for its work
  uint64_t key;      // process << 32 | correlation; never 0 (a correlation id of 0 links nothing)
  uint32_t track, event;
  TimeNs time;  // the event's start: it waits until the latest time seen is kLinkWindow past
};

static_assert(std::is_trivially_copyable_v<LaunchLink>);  // zeroed memory is empty slots

class LaunchTable {
 public:
  size_t size() const { return size_; }
  size_t bytes() const { return capacity_ * sizeof(LaunchLink); }

  // The entry of `key`, or null.
  const LaunchLink* find(uint64_t key) const {
    const size_t i = slotOf(key);
    return i == kMissing ? nullptr : &slots_[i];
  }
  // Adds `l`, or replaces the entry of its key.
  void put(LaunchLink l) {
    if ((size_ + 1) * 2 > capacity_) grow();
    // Robin Hood: an entry further from its home than the one in its way takes that slot, and
    // the one it displaced goes on looking. Along a run, entries so sit in order of their homes,
    // which lets a lookup stop early and an erase shift only the entries displaced.
    for (size_t i = home(l.key), d = 0;; i = (i + 1) & mask_, ++d) {
      LaunchLink& slot = slots_[i];
      if (slot.key == 0) {
        slot = l;
        ++size_;
        return;
      }
      if (slot.key == l.key) {
        slot = l;
        return;
      }
      if (const size_t theirs = distance(i, slot.key); theirs < d) {
        std::swap(slot, l);
        d = theirs;
      }
    }
  }
  // Removes the entry of `key` when it is `l` (the same event: a later call may have taken the
  // key since).
  void eraseIf(const LaunchLink& l) {
    size_t i = slotOf(l.key);
    if (i == kMissing || slots_[i].track != l.track || slots_[i].event != l.event) return;
    // Backward shift: the entries after it that are displaced move one slot back, toward home.
    for (size_t j = (i + 1) & mask_; slots_[j].key != 0 && distance(j, slots_[j].key) > 0;
         j = (j + 1) & mask_) {
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].key = 0;
    --size_;
  }
  template <class F>
  void forEach(F&& f) {  // f(LaunchLink&): may change anything but the key
    for (size_t i = 0; i < capacity_; ++i)
      if (slots_[i].key != 0) f(slots_[i]);
  }

 private:
  // Correlation ids of a process rise one by one: they take consecutive slots, so a second's calls
  // fill a few pages in order rather than touching one cache line each across the table. Each
  // process starts at an offset of its own, so processes do not pile onto the same slots.
  size_t home(uint64_t key) const {
    const uint64_t offset = ((key >> 32) * 0x9E3779B97F4A7C15ull) >> 32;
    return static_cast<size_t>(((key & 0xffffffffu) + offset) & mask_);
  }
  static constexpr size_t kMissing = ~size_t{0};
  size_t distance(size_t slot, uint64_t key) const { return (slot - home(key)) & mask_; }
  size_t slotOf(uint64_t key) const {
    if (size_ == 0) return kMissing;
    for (size_t i = home(key), d = 0;; i = (i + 1) & mask_, ++d) {
      const LaunchLink& slot = slots_[i];
      if (slot.key == key) return i;
      if (slot.key == 0 || distance(i, slot.key) < d) return kMissing;
    }
  }
  // Twice the slots, from calloc (fresh zero pages, no fill). Growth moves every entry, within
  // one snapshot: 22 ms for 128 k entries on the 2-core VM, at the 6th second of a 50 k/s capture.
  // Starting at a million slots instead avoided that but made every later snapshot twice as slow
  // there (13–21 ms against 6–7; measured, not explained), so the table starts small.
  void grow() {
    Slots old = std::move(slots_);
    const size_t oldCapacity = capacity_;
    capacity_ = oldCapacity == 0 ? 1024 : oldCapacity * 2;
    slots_.reset(static_cast<LaunchLink*>(std::calloc(capacity_, sizeof(LaunchLink))));
    if (!slots_) throw std::bad_alloc();
    mask_ = capacity_ - 1;
    size_ = 0;
    for (size_t i = 0; i < oldCapacity; ++i)
      if (old[i].key != 0) put(old[i]);
  }
  struct Free {
    void operator()(LaunchLink* p) const { std::free(p); }
  };
  using Slots = std::unique_ptr<LaunchLink[], Free>;

  Slots slots_;  // key 0: empty
  size_t capacity_ = 0, size_ = 0, mask_ = 0;
};

}  // namespace ts
