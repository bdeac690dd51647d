#include "io/arriving_text.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "io/text_file.h"

namespace ts {

std::unique_ptr<ArrivingText> ArrivingText::start(std::string name, Source source, size_t capacity,
                                                  size_t chunk, size_t lead, size_t releaseStep) {
  capacity = std::max<size_t>(capacity, 1);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  releaseStep = std::max<size_t>(releaseStep / page, 1) * page;  // madvise takes whole pages
  // Address space only: no memory is committed or counted until a page is written.
  void* base = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  std::unique_ptr<ArrivingText> text;
  try {
    text.reset(new ArrivingText(std::move(name), std::move(source), static_cast<char*>(base),
                                capacity, std::max<size_t>(chunk, 1), std::max<size_t>(lead, 1),
                                releaseStep));
  } catch (...) {
    ::munmap(base, capacity);
    return nullptr;
  }
  try {
    text->thread_ = std::thread([t = text.get()] { t->run(); });
  } catch (...) {  // no thread to be had: the caller reads the file itself
    return nullptr;
  }
  return text;
}

ArrivingText::ArrivingText(std::string name, Source source, char* base, size_t capacity,
                           size_t chunk, size_t lead, size_t releaseStep)
    : name_(std::move(name)),
      source_(std::move(source)),
      base_(base),
      capacity_(capacity),
      chunk_(chunk),
      lead_(lead),
      releaseStep_(releaseStep) {}

ArrivingText::~ArrivingText() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  ::munmap(base_, capacity_);
}

void ArrivingText::run() {
  size_t at = 0;  // arrived_, which only this thread changes
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      // Paused while far enough ahead of the reader, unless it waits for more.
      changed_.wait(lock, [&] {
        return stop_ || at < std::max(wanted_, consumed_ + std::min(lead_, SIZE_MAX - consumed_));
      });
      if (stop_) return;
    }
    Result<size_t> got = Error{""};
    if (at < capacity_) {
      got = source_(base_ + at, std::min(chunk_, capacity_ - at));
    } else {
      // The span is full: the source must have ended.
      char probe;
      got = source_(&probe, 1);
      if (got.ok() && *got > 0)
        got = Error{name_ + ": the text is longer than its compressed size allows (" +
                    std::to_string(capacity_) + " bytes; was the file changed while read?)"};
    }
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;  // dropped or cancelled meanwhile: what came is not the text's
      if (!got.ok()) {
        error_ = got.failure();
        done_ = true;
      } else if (*got == 0) {
        done_ = true;
      } else {
        at += *got;
        arrived_ = at;
      }
    }
    changed_.notify_all();
    if (!got.ok() || *got == 0) return;
  }
}

size_t ArrivingText::waitFor(size_t bytes) {
  std::unique_lock lock(mutex_);
  if (bytes > wanted_) {
    wanted_ = bytes;
    changed_.notify_all();
  }
  auto ready = [&] { return arrived_ >= bytes || done_; };
  if (!cancelled_) {
    changed_.wait(lock, ready);
    return arrived_;
  }
  // Whoever waits looks at the cancel now and then: a huge text takes seconds to arrive whole.
  while (!changed_.wait_for(lock, std::chrono::milliseconds(50), ready)) {
    if (cancelled_()) {
      stop_ = done_ = true;
      error_ = Error::cancelled(name_ + ": cancelled");
      changed_.notify_all();
    }
  }
  return arrived_;
}

void ArrivingText::cancelWhen(std::function<bool()> cancelled) {
  std::lock_guard lock(mutex_);
  cancelled_ = std::move(cancelled);
}

Status ArrivingText::finish() {
  waitFor(SIZE_MAX);
  std::lock_guard lock(mutex_);
  return error_;
}

void ArrivingText::release(size_t offset) {
  std::lock_guard lock(mutex_);
  offset = std::min(offset, arrived_);
  if (offset <= consumed_) return;
  consumed_ = offset;
  changed_.notify_all();
  // Pages behind the reader: written long ago, never read again. The reading thread writes only
  // at arrived_ and beyond, past them.
  const size_t to = offset / releaseStep_ * releaseStep_;
  if (to >= released_ + releaseStep_) {
    ::madvise(base_ + released_, to - released_, MADV_DONTNEED);
    released_ = to;
  }
}

Result<std::unique_ptr<ArrivingText>> inflateGzipFile(const std::string& path, size_t lead) {
  std::error_code ec;
  const uint64_t onDisk = std::filesystem::file_size(path, ec);
  if (ec) {
    Error e{path + ": cannot read: " + ec.message(), ErrorCode::Io};
    if (ec == std::errc::no_such_file_or_directory) e.code = ErrorCode::NotFound;
    return e;
  }
  auto gz = GzipReader::open(path);
  if (!gz) return gz.failure();
  // Deflate gives at most 1032 bytes per byte; the span is address space, not memory.
  constexpr uint64_t kMaxSpan = uint64_t{1} << 44;
  const uint64_t span = std::min<uint64_t>(onDisk * 1032 + (uint64_t{1} << 20), kMaxSpan);
  std::shared_ptr<GzipReader> reader = std::move(gz).value();
  return ArrivingText::start(
      path, [reader](char* to, size_t room) { return reader->read(to, room); }, span,
      size_t{1} << 20, lead);
}

}  // namespace ts
