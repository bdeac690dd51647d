#include "io/chrome_event_blocks.h"

#include <algorithm>
#include <cstring>

namespace ts {

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

}  // namespace

size_t nextEventBoundary(std::string_view json, size_t previous, size_t blockBytes) {
  blockBytes = std::max<size_t>(blockBytes, 1);
  const size_t size = json.size();
  for (size_t p = previous + blockBytes; p < size;) {
    // Searched for within one block's length; a stretch without a boundary joins the block before.
    const size_t limit = std::min(size, p + blockBytes);
    for (size_t q = p; q < limit;) {
      const void* hit = std::memchr(json.data() + q, ',', limit - q);
      if (!hit) break;
      const size_t comma = static_cast<size_t>(static_cast<const char*>(hit) - json.data());
      size_t before = comma, after = comma + 1;
      while (before > previous && isSpace(json[before - 1])) --before;
      while (after < size && isSpace(json[after])) ++after;
      if (before > previous && json[before - 1] == '}' && after < size && json[after] == '{')
        return after;
      q = comma + 1;
    }
    p = limit;
  }
  return EventBlock::npos;
}

std::vector<size_t> guessEventBoundaries(std::string_view json, size_t from, size_t blockBytes) {
  std::vector<size_t> out{from};
  for (;;) {
    const size_t next = nextEventBoundary(json, out.back(), blockBytes);
    if (next == EventBlock::npos) return out;
    out.push_back(next);
  }
}

EventBlockReader::EventBlockReader(std::string_view json, size_t from, unsigned threads,
                                   size_t blockBytes, size_t ahead)
    : json_(json), blockBytes_(blockBytes), begins_{from} {
  threads = std::max(1u, threads);
  ahead = std::max<size_t>(ahead, threads + 1);
  for (size_t i = 0; i < ahead; ++i) slots_.push_back(std::make_unique<Slot>(json));
  try {
    for (unsigned t = 0; t < threads; ++t) workers_.emplace_back([this] { work(); });
  } catch (...) {  // std::system_error: no more threads; std::bad_alloc
    // No more threads to be had: the ones started do the work; without any, no block is handed
    // out and the importer reads everything itself.
    if (workers_.empty()) {
      begins_.clear();
      lastKnown_ = true;
    }
  }
}

EventBlockReader::~EventBlockReader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
}

const EventBlock* EventBlockReader::next() {
  std::unique_lock lock(mutex_);
  if (released_ != held_) {  // the block the caller held is done with
    released_ = held_;
    changed_.notify_all();
  }
  if (!known(held_)) return nullptr;
  Slot& slot = *slots_[held_ % slots_.size()];
  const size_t k = held_;
  changed_.wait(lock, [&] { return slot.ready == k; });
  ++held_;
  return &slot.block;
}

bool EventBlockReader::known(size_t k) {
  while (!lastKnown_ && begins_.size() <= k + 1) {
    const size_t next = nextEventBoundary(json_, begins_.back(), blockBytes_);
    if (next == EventBlock::npos)
      lastKnown_ = true;
    else
      begins_.push_back(next);
  }
  return k < begins_.size();
}

void EventBlockReader::work() {
  for (;;) {
    size_t k, begin, end;
    Slot* slot;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock,
                    [&] { return stop_ || !known(taken_) || taken_ < released_ + slots_.size(); });
      if (stop_ || !known(taken_)) return;
      k = taken_++;
      // Read here: begins_ grows under the lock.
      begin = begins_[k];
      end = k + 1 < begins_.size() ? begins_[k + 1] : json_.size();
      slot = slots_[k % slots_.size()].get();
    }
    try {
      read(begin, end, *slot);
    } catch (...) {  // out of memory, most likely
      // Left to the importer's own reading, which reports it on the caller's thread.
      slot->block.begin = slot->block.lastEnd = begin;
      slot->block.count = 0;
      slot->block.next = slot->block.closedAt = EventBlock::npos;
    }
    {
      std::lock_guard lock(mutex_);
      slot->ready = k;
    }
    changed_.notify_all();
  }
}

void EventBlockReader::read(size_t begin, size_t end, Slot& slot) {
  EventBlock& b = slot.block;
  slot.scan.reset();
  b.begin = begin;
  b.count = 0;
  b.lastEnd = b.begin;
  b.next = b.closedAt = EventBlock::npos;
  JsonCursor c(json_, b.begin);
  for (;;) {
    c.skipSpace();
    const size_t start = c.pos();
    // What is not a whole event here (damage, a guess gone wrong) ends the block: the importer
    // reads it itself, with its errors.
    if (c.peek() != '{') return;
    if (b.count == b.events.size()) {
      b.events.emplace_back();
      b.starts.push_back(0);
    }
    if (!slot.scan.event(c, b.events[b.count])) return;
    b.starts[b.count++] = start;
    b.lastEnd = c.pos();
    if (c.consume(',')) {
      c.skipSpace();
      if (c.pos() >= end) {
        b.next = c.pos();
        return;
      }
      continue;
    }
    if (c.consume(']')) b.closedAt = c.pos();
    return;
  }
}

}  // namespace ts
