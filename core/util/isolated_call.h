// Runs code we cannot fix (a third-party parser that may crash on a crafted file) in a short-lived
// child process, so that its crash, hang or runaway allocation ends the child and becomes an error
// the caller reports, instead of taking the application and its unsaved sessions with it.
//
// The child is a fork of the caller: it sees the caller's memory as it was (the file's bytes, an
// initialised library) without copying it, runs `work`, sends back the bytes `work` returns and
// exits without running destructors or exit handlers. A fork of a threaded process holds only the
// forking thread; glibc makes malloc usable in the child, and a lock another thread held at the
// fork would hang the child, which the time limit then ends: an error, never a hang of the caller.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace ts {

struct IsolationLimits {
  // Address space the child may add to what the caller already uses. Not applied under the
  // address or thread sanitizer, whose shadow memory is address space by the terabyte.
  int64_t extraMemoryBytes = int64_t{4} << 30;
  int timeoutMs = 120'000;
};

// What the child is doing, for the error when it dies: work calls it before each stage.
using StageReporter = std::function<void(const std::string& stage)>;

struct IsolatedOutcome {
  enum class End : uint8_t {
    Finished,     // work returned; `payload` holds its bytes
    Threw,        // work threw; `detail` is the exception's message
    OutOfMemory,  // work ran past the memory limit (std::bad_alloc)
    Crashed,      // the child died of a signal (`signal`)
    TimedOut,     // the child ran past the time limit and was killed
    NoChild,      // the child could not be started or talked to (`detail` says why)
  };
  End end = End::NoChild;
  std::string payload;
  std::string stage;  // the last stage the child reported
  std::string detail;
  int signal = 0;

  bool finished() const { return end == End::Finished; }
  // "crashed (segmentation fault) while inferring shapes", "ran past 120 s while checking", ...
  std::string describe() const;
};

IsolatedOutcome runIsolated(const std::function<std::string(const StageReporter&)>& work,
                            const IsolationLimits& limits = {});

}  // namespace ts
