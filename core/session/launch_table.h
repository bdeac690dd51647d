// LaunchTable: a live session's CUDA calls waiting for their GPU work, by key (process << 32 |
// correlation id). At 50 k events/s it holds the last 10 s of calls (~250 k) and takes each
// second ~25 k inserts, lookups and erases: in a std::unordered_map those were a node allocated
// and freed each, a third of a snapshot's time (BENCHMARKS.md). Here the entries sit in one array
// (Robin Hood linear probing, erases shifting back: no tombstones), a process's rising correlation
// ids in consecutive slots; a growth moves the entries a few per put (see kMovesPerPut), the
// previous array marking its entries gone rather than shifting them meanwhile.
#pragma once

#include <algorithm>
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
  size_t bytes() const { return (capacity_ + oldCapacity_) * sizeof(LaunchLink); }
  // Whether entries of the table before the last growth are still being moved (tests).
  bool growing() const { return oldCapacity_ != 0; }

  // The entry of `key`, or null.
  const LaunchLink* find(uint64_t key) const {
    if (const size_t i = slotIn(slots_.get(), mask_, key); i != kMissing) return &slots_[i];
    const size_t j = oldSlotOf(key);
    return j == kMissing ? nullptr : &old_[j];
  }
  // Adds `l`, or replaces the entry of its key.
  void put(LaunchLink l) {
    if (growing()) moveSome(kMovesPerPut);  // before growing: see kMovesPerPut
    if ((size_ + 1) * 2 > capacity_) grow();
    // The key's entry not yet moved (maybe moved into the previous array by the growth just made)
    // is replaced by this one: it must not be moved later.
    if (const size_t j = oldSlotOf(l.key); j != kMissing) {
      old_[j].track = kGone;
      --size_;
    }
    if (insert(l)) ++size_;
  }
  // Removes the entry of `key` when it is `l` (the same event: a later call may have taken the
  // key since).
  void eraseIf(const LaunchLink& l) {
    if (size_t i = slotIn(slots_.get(), mask_, l.key); i != kMissing) {
      if (!same(slots_[i], l)) return;
      // Backward shift: the entries after it that are displaced move one slot back, toward home.
      for (size_t j = (i + 1) & mask_; slots_[j].key != 0 && distance(j, slots_[j].key, mask_) > 0;
           j = (j + 1) & mask_) {
        slots_[i] = slots_[j];
        i = j;
      }
      slots_[i].key = 0;
      --size_;
    } else if (const size_t j = oldSlotOf(l.key); j != kMissing && same(old_[j], l)) {
      old_[j].track = kGone;  // not shifted: the previous array's runs stay as they were
      --size_;
    }
  }
  template <class F>
  void forEach(F&& f) {  // f(LaunchLink&): may change anything but the key and the track
    for (size_t i = 0; i < capacity_; ++i)
      if (slots_[i].key != 0) f(slots_[i]);
    for (size_t i = moved_; i < oldCapacity_; ++i)
      if (old_[i].key != 0 && old_[i].track != kGone) f(old_[i]);
  }

 private:
  // Correlation ids of a process rise one by one: they take consecutive slots, so a second's calls
  // fill a few pages in order rather than touching one cache line each across the table. Each
  // process starts at an offset of its own, so processes do not pile onto the same slots.
  static size_t home(uint64_t key, size_t mask) {
    const uint64_t offset = ((key >> 32) * 0x9E3779B97F4A7C15ull) >> 32;
    return static_cast<size_t>(((key & 0xffffffffu) + offset) & mask);
  }
  static size_t distance(size_t slot, uint64_t key, size_t mask) {
    return (slot - home(key, mask)) & mask;
  }
  static constexpr size_t kMissing = ~size_t{0};
  static size_t slotIn(const LaunchLink* table, size_t mask, uint64_t key) {
    if (!table) return kMissing;
    for (size_t i = home(key, mask), d = 0;; i = (i + 1) & mask, ++d) {
      const LaunchLink& slot = table[i];
      if (slot.key == key) return i;
      if (slot.key == 0 || distance(i, slot.key, mask) < d) return kMissing;
    }
  }
  static bool same(const LaunchLink& a, const LaunchLink& b) {
    return a.track == b.track && a.event == b.event;
  }
  // Adds `l` to the current slots, or replaces the entry of its key; true when added.
  bool insert(LaunchLink l) {
    // Robin Hood: an entry further from its home than the one in its way takes that slot, and
    // the one it displaced goes on looking. Along a run, entries so sit in order of their homes,
    // which lets a lookup stop early and an erase shift only the entries displaced.
    for (size_t i = home(l.key, mask_), d = 0;; i = (i + 1) & mask_, ++d) {
      LaunchLink& slot = slots_[i];
      if (slot.key == 0) {
        slot = l;
        return true;
      }
      if (slot.key == l.key) {
        slot = l;
        return false;
      }
      if (const size_t theirs = distance(i, slot.key, mask_); theirs < d) {
        std::swap(slot, l);
        d = theirs;
      }
    }
  }

  // Growing moves the entries a few per put rather than all at once: moving 128 k entries into
  // twice the slots took 22 ms within one snapshot on the 2-core VM (mostly first touches of the
  // new pages), and a snapshot has 50 ms. Meanwhile no entry is added to the previous array or
  // shifted in it: an entry leaves it by being moved (the slots below `moved_`) or by being marked
  // `kGone` (erased, or replaced by a later put), so its runs, and so its lookups, stay as they
  // were. A key is live in at most one of the two arrays.
  // Starting at a million slots instead also avoided the spike but made every later snapshot
  // twice as slow there (13–21 ms against 6–7; measured, not explained), so the table starts small.
  static constexpr uint32_t kGone = ~uint32_t{0};  // as a track: no entry (no session has 4 G)
  // A growth from C to 2C slots leaves C/2 entries; the next comes when there are C, so at the
  // earliest at the (C/2)th put after it, whose moves, made before its growth check, bring the
  // moved slots to 2 · C/2 = C: the whole previous array. Exactly enough, so two at least, and
  // the moves must stay before the check.
  static constexpr size_t kMovesPerPut = 2;

  size_t oldSlotOf(uint64_t key) const {
    const size_t j = slotIn(old_.get(), oldMask_, key);
    return j != kMissing && j >= moved_ && old_[j].track != kGone ? j : kMissing;
  }
  void moveSome(size_t count) {  // moves the next `count` slots of the previous table
    for (const size_t end = std::min(oldCapacity_, moved_ + count); moved_ < end; ++moved_) {
      const LaunchLink& l = old_[moved_];
      if (l.key != 0 && l.track != kGone) insert(l);  // not in the new slots: counted already
    }
    if (moved_ == oldCapacity_) {
      old_.reset();
      oldCapacity_ = oldMask_ = moved_ = 0;
    }
  }
  // Twice the slots, from calloc (fresh zero pages, no fill, touched as entries arrive).
  void grow() {
    if (growing()) moveSome(oldCapacity_);  // not reached (see kMovesPerPut); kept safe
    const size_t capacity = capacity_ == 0 ? 1024 : capacity_ * 2;
    Slots fresh(static_cast<LaunchLink*>(std::calloc(capacity, sizeof(LaunchLink))));
    if (!fresh) throw std::bad_alloc();
    old_ = std::move(slots_);
    oldCapacity_ = capacity_;
    oldMask_ = mask_;
    moved_ = 0;
    slots_ = std::move(fresh);
    capacity_ = capacity;
    mask_ = capacity - 1;
    if (oldCapacity_ == 0) old_.reset();
  }
  struct Free {
    void operator()(LaunchLink* p) const { std::free(p); }
  };
  using Slots = std::unique_ptr<LaunchLink[], Free>;

  Slots slots_;                                // key 0: empty
  size_t capacity_ = 0, size_ = 0, mask_ = 0;  // size_: entries in both tables
  Slots old_;  // while growing: the slots before the last growth, those from moved_ on not moved
  size_t oldCapacity_ = 0, oldMask_ = 0, moved_ = 0;
};

}  // namespace ts
