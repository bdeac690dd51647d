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
  // of about `blockBytes`, at most `ahead` blocks beyond the one the caller holds.
  EventBlockReader(std::string_view json, size_t from, unsigned threads, size_t blockBytes,
                   size_t ahead);
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
  void read(size_t begin, size_t end, Slot& slot);
  // Whether block k exists, its boundaries guessed as far as that takes: only a few blocks ahead
  // of the reader, so that the text of a huge mapped trace is touched as it is read, not all at
  // once. Under mutex_.
  bool known(size_t k);

  std::string_view json_;
  size_t blockBytes_;
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
