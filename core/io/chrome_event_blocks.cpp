#include "io/chrome_event_blocks.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace ts {

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

}  // namespace

std::vector<size_t> guessEventBoundaries(std::string_view json, size_t from, size_t blockBytes) {
  std::vector<size_t> out{from};
  blockBytes = std::max<size_t>(blockBytes, 1);
  const size_t size = json.size();
  size_t p = from + blockBytes;
  while (p < size) {
    // Searched for within one block's length; a stretch without a boundary joins the block before.
    const size_t limit = std::min(size, p + blockBytes);
    size_t found = EventBlock::npos;
    for (size_t q = p; q < limit;) {
      const void* hit = std::memchr(json.data() + q, ',', limit - q);
      if (!hit) break;
      const size_t comma = static_cast<size_t>(static_cast<const char*>(hit) - json.data());
      size_t before = comma, after = comma + 1;
      while (before > from && isSpace(json[before - 1])) --before;
      while (after < size && isSpace(json[after])) ++after;
      if (before > from && json[before - 1] == '}' && after < size && json[after] == '{') {
        found = after;
        break;
      }
      q = comma + 1;
    }
    if (found == EventBlock::npos) {
      p = limit;
      continue;
    }
    out.push_back(found);
    p = found + blockBytes;
  }
  return out;
}

EventBlockReader::EventBlockReader(std::string_view json, size_t from, unsigned threads,
                                   size_t blockBytes, size_t ahead)
    : json_(json), begins_(guessEventBoundaries(json, from, blockBytes)) {
  threads = std::max(1u, threads);
  ahead = std::max<size_t>(ahead, threads + 1);
  for (size_t i = 0; i < ahead; ++i) slots_.push_back(std::make_unique<Slot>(json));
  for (unsigned t = 0; t < threads; ++t) workers_.emplace_back([this] { work(); });
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
  if (held_ >= begins_.size()) return nullptr;
  Slot& slot = *slots_[held_ % slots_.size()];
  const size_t k = held_;
  changed_.wait(lock, [&] { return slot.ready == k; });
  ++held_;
  return &slot.block;
}

void EventBlockReader::work() {
  for (;;) {
    size_t k;
    Slot* slot;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] {
        return stop_ || taken_ >= begins_.size() || taken_ < released_ + slots_.size();
      });
      if (stop_ || taken_ >= begins_.size()) return;
      k = taken_++;
      slot = slots_[k % slots_.size()].get();
    }
    try {
      read(k, *slot);
    } catch (const std::bad_alloc&) {
      // Left to the importer's own reading, which reports it on the caller's thread.
      slot->block.count = 0;
      slot->block.lastEnd = slot->block.begin;
      slot->block.next = slot->block.closedAt = EventBlock::npos;
    }
    {
      std::lock_guard lock(mutex_);
      slot->ready = k;
    }
    changed_.notify_all();
  }
}

void EventBlockReader::read(size_t k, Slot& slot) {
  EventBlock& b = slot.block;
  slot.scan.reset();
  b.begin = begins_[k];
  b.count = 0;
  b.lastEnd = b.begin;
  b.next = b.closedAt = EventBlock::npos;
  const size_t end = k + 1 < begins_.size() ? begins_[k + 1] : json_.size();
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
