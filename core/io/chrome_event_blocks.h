// A trace's event array read ahead on worker threads, in blocks handed out in file order.
//
// Reading the text of events (the JSON grammar, strings, numbers) is most of an import's time and
// needs nothing but the text, so it can be split: the array is cut at guessed event boundaries
// ("}," then "{" outside any string, as far as one can tell without reading from the start), each
// block is read by a worker, and the importer takes the blocks in order and does what depends on
// order (ids, stacks, the session builder). A guess is checked, not trusted: a block counts only
// when the block before it, read from a known boundary, ended exactly where it begins. The
// importer reads on by itself from the first block that does not fit or does not read (a damaged
// event, a boundary guessed inside a string), so the session is the same as a reading in one
// thread, damaged files included.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "io/chrome_event_scan.h"

namespace ts {

struct EventBlock {
  static constexpr size_t npos = static_cast<size_t>(-1);
  size_t begin = 0;  // where its first event starts, at its '{'
  size_t count = 0;  // events read whole, in `events` and `starts`
  std::vector<RawEvent> events;
  std::vector<size_t> starts;  // each event's first byte
  size_t lastEnd = 0;          // just after the last event read (begin when none)
  size_t next = npos;          // where the event after the block starts, when it ended at its end
  size_t closedAt = npos;      // just after the array's ']', when the block holds the last event
};

class EventBlockReader {
 public:
  // Reads the events of `json` from `from` (the first event's '{') on `threads` threads, in blocks
  // of about `blockBytes`, at most `ahead` blocks beyond the one the caller holds. With `arrive`,
  // the text is still arriving (see JsonReadOptions::arrive): `json` is the span it fills, and a
  // block is guessed and read only once its text is in.
  EventBlockReader(std::string_view json, size_t from, unsigned threads, size_t blockBytes,
                   size_t ahead, std::function<size_t(size_t)> arrive = {});
  ~EventBlockReader();  // stops the workers and waits for them
  EventBlockReader(const EventBlockReader&) = delete;
  EventBlockReader& operator=(const EventBlockReader&) = delete;

  // The next block in file order, once read; null after the last. The previous one is released.
  const EventBlock* next();

 private:
  struct Slot {
    explicit Slot(std::string_view json) : scan(json) {}
    EventScanner scan;  // its strings are the block's
    EventBlock block;
    size_t ready = EventBlock::npos;  // the block index it holds, once read
  };
  void work();
  // Reads the block [begin, end) from text of which only the first `in` bytes may be touched.
  void read(size_t begin, size_t end, size_t in, Slot& slot);
  // Whether block k exists, its boundaries guessed as far as that takes: only a few blocks ahead
  // of the reader, so that the text of a huge mapped trace is touched as it is read, not all at
  // once. Under mutex_, which is let go while arriving text is waited for.
  bool known(size_t k, std::unique_lock<std::mutex>& lock);
  // The boundary after `previous`, once the text it needs is in (which `in` then tells).
  size_t guessArriving(size_t previous, size_t& in) const;

  std::string_view json_;
  size_t blockBytes_;
  std::function<size_t(size_t)> arrive_;
  size_t in_;                   // bytes of text that may be read: all of json_ unless arriving
  bool guessing_ = false;       // a thread waits for text to guess the next boundary
  std::vector<size_t> begins_;  // each block's guessed first event, so far
  bool lastKnown_ = false;      // begins_ holds every block's
  std::vector<std::unique_ptr<Slot>> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t taken_ = 0;     // blocks given to workers
  size_t released_ = 0;  // blocks the caller is done with
  size_t held_ = 0;      // the block the caller holds is held_ - 1
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

// The boundary a reader guesses after the one at `previous`: the '{' that follows the first "},"
// (white space allowed around the comma) at least `blockBytes` later, searched for within the
// next `blockBytes`, then the next stretch, and so on; npos when the text ends first.
size_t nextEventBoundary(std::string_view json, size_t previous, size_t blockBytes);
// Every boundary a reader of `json` from `from` guesses (for tests).
std::vector<size_t> guessEventBoundaries(std::string_view json, size_t from, size_t blockBytes);

}  // namespace ts
