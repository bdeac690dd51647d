// A text that is still arriving: a gzip trace inflated on a thread of its own while the importer
// reads what is already in. Inflating is one core's work and, done first, took longer than
// reading the events on both (a 110 MB trace: 0.29 s of a 0.36 s open).
//
// The text fills one span of address space reserved up front (pages are only used as they are
// written), so what was handed out never moves; the reading thread stays at most `lead` bytes
// ahead of what the reader said it is done with, unless the reader waits for more, so that a huge
// compressed trace is not resident whole either.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "util/result.h"

namespace ts {

class ArrivingText {
 public:
  // Fills `to` with up to `room` bytes: how many it gave, 0 at the end, or an error.
  using Source = std::function<Result<size_t>(char* to, size_t room)>;
  static constexpr size_t kLead = size_t{256} << 20;
  static constexpr size_t kReleaseStep = size_t{64} << 20;

  // Starts reading `source` (named `name` in errors), `chunk` bytes at a time, into a span of
  // `capacity` bytes; memory is given back in steps of `releaseStep` (rounded to pages). Null
  // when the span cannot be reserved (a strict overcommit policy, a limit on address space).
  static std::unique_ptr<ArrivingText> start(std::string name, Source source, size_t capacity,
                                             size_t chunk, size_t lead = kLead,
                                             size_t releaseStep = kReleaseStep);
  ~ArrivingText();  // stops the reading and waits for it
  ArrivingText(const ArrivingText&) = delete;
  ArrivingText& operator=(const ArrivingText&) = delete;

  // The span the text fills; only its first waitFor(n) bytes may be read.
  std::string_view span() const { return {base_, capacity_}; }
  // Waits until `bytes` are in or the text is whole; how many are in (the text's size once whole).
  size_t waitFor(size_t bytes);
  // Asked while waiting: once it says so, the reading stops, every wait returns what is in, and
  // finish() says the reading was cancelled.
  void cancelWhen(std::function<bool()> cancelled);
  // Waits for the whole text: the source's error, or that it held more than the span.
  Status finish();
  // The bytes before `offset` will not be read again: their memory is given back (in steps of
  // releaseStep), and the reading may go on.
  void release(size_t offset);

 private:
  ArrivingText(std::string name, Source source, char* base, size_t capacity, size_t chunk,
               size_t lead, size_t releaseStep);
  void run();

  const std::string name_;
  Source source_;
  std::function<bool()> cancelled_;
  char* base_;
  const size_t capacity_, chunk_, lead_, releaseStep_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t arrived_ = 0;   // bytes in; written by the reading thread only
  size_t wanted_ = 0;    // the most a reader has waited for
  size_t consumed_ = 0;  // the reader is done with the bytes before this
  size_t released_ = 0;  // their memory given back up to here
  bool done_ = false;
  bool stop_ = false;
  Status error_;
  std::thread thread_;
};

// A gzip file's text, arriving: null (and no error) when no span can be reserved for it; an
// error naming the file when it cannot be opened.
Result<std::unique_ptr<ArrivingText>> inflateGzipFile(const std::string& path,
                                                      size_t lead = ArrivingText::kLead);

}  // namespace ts
