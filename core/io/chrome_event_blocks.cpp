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
                                   size_t blockBytes, size_t ahead,
                                   std::function<size_t(size_t)> arrive)
    : json_(json),
      blockBytes_(std::max<size_t>(blockBytes, 1)),
      arrive_(std::move(arrive)),
      in_(arrive_ ? std::min(from, json.size()) : json.size()),
      begins_{from} {
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
  if (!known(held_, lock)) return nullptr;
  Slot& slot = *slots_[held_ % slots_.size()];
  const size_t k = held_;
  changed_.wait(lock, [&] { return slot.ready == k; });
  ++held_;
  return &slot.block;
}

bool EventBlockReader::known(size_t k, std::unique_lock<std::mutex>& lock) {
  while (!lastKnown_ && begins_.size() <= k + 1) {
    if (stop_) break;  // no new guesses while the reader is being stopped
    if (!arrive_) {
      const size_t next = nextEventBoundary(json_, begins_.back(), blockBytes_);
      if (next == EventBlock::npos)
        lastKnown_ = true;
      else
        begins_.push_back(next);
      continue;
    }
    // The text may take a while to arrive: waited for without the lock (the caller and the other
    // workers go on with the blocks already known), by one thread at a time.
    if (guessing_) {
      changed_.wait(lock);
      continue;
    }
    guessing_ = true;
    const size_t previous = begins_.back();
    size_t in = 0;
    lock.unlock();
    const size_t next = guessArriving(previous, in);
    lock.lock();
    guessing_ = false;
    in_ = std::max(in_, in);
    if (next == EventBlock::npos)
      lastKnown_ = true;
    else
      begins_.push_back(next);
    changed_.notify_all();
  }
  return k < begins_.size();
}

size_t EventBlockReader::guessArriving(size_t previous, size_t& in) const {
  // The boundary is looked for from a block on, within a block's length: that much text is
  // waited for, and twice as much again each time a stretch holds none. A guess made from part of
  // the text is as good as one from the whole (it is checked all the same).
  for (size_t want = previous + 2 * blockBytes_ + 1;; want = previous + 2 * (want - previous)) {
    in = std::min(arrive_(want), json_.size());
    const size_t next = nextEventBoundary(json_.substr(0, in), previous, blockBytes_);
    if (next != EventBlock::npos) return next;
    if (in < want) return EventBlock::npos;  // the whole text, and no boundary left
  }
}

void EventBlockReader::work() {
  for (;;) {
    size_t k, begin, end, in;
    Slot* slot;
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        if (stop_) return;
        const size_t t = taken_;
        const bool exists = known(t, lock);
        // known() may have let the lock go while text arrived: what it found holds only if
        // no other worker took a block meanwhile.
        if (stop_) return;
        if (t != taken_) continue;
        if (!exists) return;  // no block left
        if (taken_ < released_ + slots_.size()) break;
        changed_.wait(lock);  // all slots full: until the caller is done with one
      }
      k = taken_++;
      // Read here: begins_ grows under the lock. The last block runs to the text's end, which is
      // known (in_) once it is.
      begin = begins_[k];
      end = k + 1 < begins_.size() ? begins_[k + 1] : in_;
      in = in_;
      slot = slots_[k % slots_.size()].get();
    }
    try {
      read(begin, end, in, *slot);
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

void EventBlockReader::read(size_t begin, size_t end, size_t in, Slot& slot) {
  EventBlock& b = slot.block;
  slot.scan.reset();
  b.begin = begin;
  b.count = 0;
  b.lastEnd = b.begin;
  b.next = b.closedAt = EventBlock::npos;
  // Bounded by the text that is in: an event that runs past it (a guess gone wrong) ends the block.
  JsonCursor c(json_.substr(0, in), b.begin);
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
